#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# userspace/trace-cmd/ustack-symbolize on fixtures: a report in the form
# stock trace-cmd prints ftrace/user_unwind_stack (three __data_loc
# arrays), the same in its -l, --ts-diff and -R layouts, and one in the
# form of the trace file, all naming a program
# built here by inode through inode_cache.  The frames must be named as
# the program's symbol table says (eu-nm), at offsets taken from its
# program headers by readelf, not by the script's own mapping; a frame
# without a file, one where nothing was mapped and one of an inode no
# inode_cache event named keep their offsets; in a signal handler's
# stack, the restorer and the interrupted PC are named as they are, not
# as return addresses; a command name with braces does not break the
# arrays; a program rebuilt since
# (another build ID) is named from the debug file of the recorded build
# ID, and not at all without one.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/lib/lib.sh"
. "$top/lib/tap.sh"

tree=${1:?usage: $0 TREE (the check tree, docs/check-tree.md)}
tap_start "$tree"

work=$(mktemp -d -p "$CACHE" ustack-symbolize.XXXXXX)
trap 'rm -rf "$work"' EXIT
cat > "$work/prog.c" <<'EOF'
__attribute__((noipa)) int leaf(int x) { return x * 3 + 1; }
__attribute__((noipa)) int mid(int x) { return leaf(x) + 2; }
int main(int argc, char **argv) { (void)argv; return mid(argc); }
EOF
inroot gcc -O1 -g -Wl,--build-id -o "$work/prog" "$work/prog.c"
sym="$top/userspace/trace-cmd/ustack-symbolize"

# off FUNCTION N [FILE]: the file offset of FUNCTION+N in FILE (the
# program by default), from readelf's view of the text segment and
# eu-nm's of the symbol
off()
{
	local addr seg file=${3:-$work/prog}
	addr=$(inroot eu-nm -P "$file" | awk -v f="$1" '$1 == f { print $3 }')
	seg=$(inroot readelf -lW "$file" | inroot gawk -v a=$((16#$addr)) '
		$1 == "LOAD" && strtonum($3) <= a && a < strtonum($3) + strtonum($5) {
			print strtonum($2) - strtonum($3) }')
	[ -n "$seg" ] || { echo "no segment holds $1" >&2; exit 1; }
	printf '%#x' $((16#$addr + $2 + seg))
}

leaf=$(off leaf 2) mid=$(off mid 5) main=$(off main 7)
bid=$(inroot eu-readelf -n "$work/prog" | sed -n 's/.*Build ID: //p')
# dev 254:3 is 0xfe00003 as the kernel stores a dev_t
cat > "$work/report.txt" <<EOF
cpus=1
            prog-171   [000]    96.226452: sys_enter_getppid:    
            prog-171   [000]    96.226453: user_unwind_cookie:   cookie=300000001
            prog-171   [000]    96.226470: user_unwind_stack:    cookie=300000001
{$leaf,$mid,$main,0x7ffd1000,0x1234,0x40}{0x101,0x101,0x101,0x0,0xffffffffffffffff,0x202}{0xfe00003,0xfe00003,0xfe00003,0x0,0x0,0xfe00003}
            prog-171   [000]    96.226490: inode_cache:          inode=257 dev=[254:3] path=$work/prog build_id=$bid
         pr{o}g-172   [000]    96.226500: user_unwind_stack:    cookie=300000002
{$leaf}{0x101}{0xfe00003}
EOF
inroot python3 "$sym" "$work/report.txt" > "$work/out.txt"
got=$(grep '^ => ' "$work/out.txt" | head -n 6 | sed 's/^ => <[0-9a-f]*> //')
is "trace-cmd report: frames named from the recorded file" \
	"leaf+0x2 ($work/prog)
mid+0x5 ($work/prog)
main+0x7 ($work/prog)
?? (no file)
?? (not mapped)
?? (inode 514 dev 254:3)" "$got"
is "trace-cmd report: offsets kept" "$(printf '%016x\n' "$leaf" "$mid" "$main" 0x7ffd1000 0x1234 0x40)" \
	"$(sed -n 's/^ => <\([0-9a-f]*\)>.*/\1/p' "$work/out.txt" | head -n 6)"
is "trace-cmd report: a command name with braces" "leaf+0x2 ($work/prog)" \
	"$(sed -n '/pr{o}g-172/{n;s/^ => <[0-9a-f]*> //p}' "$work/out.txt")"
is "trace-cmd report: other lines unchanged" \
	"$(grep -v '^{' "$work/report.txt")" "$(grep -v '^ => ' "$work/out.txt")"

# The trace file's own form of the same stack
{
	echo "            prog-171     [000] .....    96.226470: <user unwind stack: cookie=300000001>"
	printf ' => <%016x> : 257 : 254:3\n' "$leaf" "$mid"
	echo "            prog-171     [000] ...1.    96.226490: inode_cache: inode=257 dev=[254:3] path=$work/prog build_id=$bid"
} > "$work/trace.txt"
is "trace file: frames named" "leaf+0x2
mid+0x5" "$(inroot python3 "$sym" "$work/trace.txt" | sed -n 's/^ => <[0-9a-f]*> \([^ ]*\) .*/\1/p')"

# The other layouts of trace-cmd report, as it prints them: -l (CPU and
# flags run together), --ts-diff ("(+N)" before the event) and -R (the
# arrays' bytes in the header, the dev_t as a number, the build ID as
# bytes).  A -R stack whose arrays disagree in length is left unnamed.
le()	# le SIZE VALUE...: each VALUE's bytes, little-endian, as -R prints them
{
	local size=$1 v i out=
	shift
	for v; do
		for ((i = 0; i < size; i++)); do
			out+=${out:+, }$(printf '%02x' $(((v >> 8 * i) & 255)))
		done
	done
	printf '%s' "$out"
}
bidbytes=$(echo "$bid" | sed 's/../&, /g; s/, $//')
cat > "$work/layouts.txt" <<EOF
    prog-171    12.L...    96.226470: user_unwind_stack:    cookie=300000001
{$leaf,$mid}{0x101,0x101}{0xfe00003,0xfe00003}
            prog-171   [000] .L...    96.226471: (+1)     user_unwind_stack:    cookie=300000002
{$leaf,$mid}{0x101,0x101}{0xfe00003,0xfe00003}
            prog-171   [000]-0x2    96.226472: user_unwind_stack:     cookie=300000003 stack=ARRAY[$(le 8 "$leaf" "$mid")] inodes=ARRAY[$(le 8 257 257)] dev=ARRAY[$(le 4 0xfe00003 0xfe00003)]
            prog-171   [000]-0x2    96.226473: user_unwind_stack:     cookie=300000004 stack=ARRAY[$(le 8 "$leaf" "$mid")] inodes=ARRAY[$(le 8 257)] dev=ARRAY[$(le 4 0xfe00003 0xfe00003)]
            prog-171   [000]-0x2    96.226474: user_unwind_stack:     cookie=300000005 stack=ARRAY[$(le 8 "$leaf")] inodes=ARRAY[$(le 8 258)] dev=ARRAY[$(le 4 0xfe00003)]
            prog-171   [000]-0x2    96.226490: inode_cache:           inode=257 dev=$((0xfe00003)) path=ARRAY[$(printf '%s' "$work/prog" | od -An -tx1 -v | tr -s ' \n' ' ' | sed 's/^ //; s/ $//; s/ /, /g')] build_id=ARRAY[$bidbytes]
            prog-171   [000]-0x2    96.226491: inode_cache:           inode=258 dev=$((0xfe00003)) path=$work/prog build_id=
EOF
# The first file's path is bytes too (libtraceevent prints a string so
# once it holds a byte it finds unprintable); the last stack's file has
# no build ID, which -R prints as an empty string: it is read as it is.
is "report -l, --ts-diff, -R: frames named" \
	"leaf+0x2 mid+0x5 leaf+0x2 mid+0x5 leaf+0x2 mid+0x5 leaf+0x2" \
	"$(inroot python3 "$sym" "$work/layouts.txt" |
	   sed -n 's/^ => <[0-9a-f]*> \([^ ]*\) .*/\1/p' | paste -sd' ')"

# A stack taken in a signal handler (x86_64): the handler's frame, then
# the restorer it returns to, then the PC the signal interrupted, then a
# return address.  Neither of the middle two follows a call: each is
# named as it is, not one byte back, where the functions before them end
# (as glibc's padding before __restore_rt does).  The restorer is known
# by its code, as in a stock libc without symbols for it: here its name
# says nothing, and its bytes are given as they are.
cat > "$work/sig.s" <<'EOF'
	.text
	.globl	handler, before, trampoline, prior, interrupted, caller
	.type	handler, @function
handler:
	nop
	ret
	.size	handler, .-handler
	.type	before, @function
before:
	ret
	.size	before, .-before
	.type	trampoline, @function
trampoline:
	/* movq $15, %rax; syscall */
	.byte	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05
	.size	trampoline, .-trampoline
	.type	prior, @function
prior:
	ret
	.size	prior, .-prior
	.type	interrupted, @function
interrupted:
	nop
	ret
	.size	interrupted, .-interrupted
	.type	caller, @function
caller:
	call	interrupted
	ret
	.size	caller, .-caller
	.section .note.GNU-stack,"",@progbits
EOF
inroot gcc -shared -nostdlib -Wl,--build-id -o "$work/sig.so" "$work/sig.s"
sbid=$(inroot eu-readelf -n "$work/sig.so" | sed -n 's/.*Build ID: //p')
sframes=$(for f in "handler 1" "trampoline 0" "interrupted 0" "caller 5"; do
	# shellcheck disable=SC2086
	off $f "$work/sig.so"
	echo
done | paste -sd,)
cat > "$work/signal.txt" <<EOF
            sig-175   [000]    96.226470: user_unwind_stack:    cookie=300000009
{$sframes}{0x103,0x103,0x103,0x103}{0xfe00003,0xfe00003,0xfe00003,0xfe00003}
            sig-175   [000]    96.226490: inode_cache:          inode=259 dev=[254:3] path=$work/sig.so build_id=$sbid
EOF
is "a signal handler's stack: the restorer and the interrupted PC named as they are" \
	"handler+0x1 trampoline+0x0 interrupted+0x0 caller+0x5" \
	"$(inroot python3 "$sym" "$work/signal.txt" |
	   sed -n 's/^ => <[0-9a-f]*> \([^ ]*\) .*/\1/p' | paste -sd' ')"

# Rebuilt after the trace: the recorded build ID is found in a debug
# directory, and without it nothing is named from the wrong file.
mkdir -p "$work/debug/.build-id/${bid:0:2}"
cp "$work/prog" "$work/debug/.build-id/${bid:0:2}/${bid:2}.debug"
inroot gcc -O0 -g -Wl,--build-id -o "$work/prog" "$work/prog.c"
first()
{
	inroot python3 "$sym" -d "$1" "$work/report.txt" > "$work/first.txt"
	sed -n 's/^ => <[0-9a-f]*> \([^ ]*\) .*/\1/p' "$work/first.txt" | head -n 1
}
is "rebuilt: named from the debug file of the recorded build ID" "leaf+0x2" \
	"$(first "$work/debug")"
is "rebuilt, no debug file: not named" "??" "$(first "$work/none")"
# A program that is not position independent: its text's file offsets
# and addresses differ (0x1000 against 0x401000), so only a mapping
# through its PT_LOAD names the frames.
inroot gcc -O1 -g -no-pie -Wl,--build-id -o "$work/prog" "$work/prog.c"
leaf=$(off leaf 2)
bid=$(inroot eu-readelf -n "$work/prog" | sed -n 's/.*Build ID: //p')
{
	echo "            prog-173   [000]    96.226470: user_unwind_stack:    cookie=300000003"
	echo "{$leaf}{0x101}{0xfe00003}"
	echo "            prog-173   [000]    96.226490: inode_cache:          inode=257 dev=[254:3] path=$work/prog build_id=$bid"
} > "$work/nopie.txt"
is "not position independent: offset mapped through PT_LOAD" \
	"$(printf '%016x' "$leaf") leaf+0x2" \
	"$(inroot python3 "$sym" "$work/nopie.txt" | sed -n 's/^ => <\([0-9a-f]*\)> \([^ ]*\) .*/\1 \2/p')"
[ $((leaf)) -lt $((0x400000)) ] ||
	echo "# the offset $leaf looks like an address: the case proves nothing"
tap_done
