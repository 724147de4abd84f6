#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lib/ustacks.py, which reads the user stacks that trace-cmd report
# (named by ustack-symbolize), bpf-profile and perf script print and
# says which reach main() or _start, on fixtures written here: the frames
# each parser gives, exactly, and the figures of the demo (samples, share
# that reaches, mean depth) and of the guest tests (reach.py's whole
# stacks), with the edge cases: an empty stack, samples without a stack,
# a stack whose last frame is __libc_start_main's caller without a _start
# symbol, a frame past _start, a frame outside every mapping, a cookie
# without its event.  The demo's scripts (trace-cmd-stacks.py,
# bpf-profile-report.py) and check/guest/stock-tables/reach.py run on
# the same fixtures.  Runs in seconds, without a kernel or a guest: of
# the check tree only its KTAP helpers are used.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tree=${1:?usage: $0 TREE (the check tree, for its KTAP helpers)}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# No __pycache__ left in lib/
export PYTHONDONTWRITEBYTECODE=1

# shellcheck source=lib/tap.sh
. "$top/lib/tap.sh"
tap_start "$tree"

# py CODE: run CODE with lib/ustacks.py imported as u
py()
{
	PYTHONPATH=$top/lib python3 -c "import ustacks as u
$1"
}

# reaches() on stacks written as "FUNC@OBJ ...", innermost first: "-"
# for no name, "-" as OBJ for a frame in no mapping.
cat > "$work/reach.py" <<'EOF'
import sys
import ustacks as u


def stack(text):
    out = []
    for i, word in enumerate(text.split()):
        func, obj = word.rsplit("@", 1)
        out.append(u.Frame(i, None if func == "-" else func,
                           None if obj == "-" else obj))
    return out


for line in sys.stdin:
    start, text = line.rstrip("\n").split(":", 1)
    print("%s %s:%s" % ("yes" if u.reaches(stack(text), start) else "no",
                        start, text))
EOF
reach()
{
	PYTHONPATH=$top/lib python3 "$work/reach.py"
}

is "reaches: _start, by name, by following __libc_start_main, outermost only" \
	"yes _start: leaf@a.out main@a.out __libc_start_call_main@libc __libc_start_main@libc _start@a.out
yes _start: leaf@a.out __libc_start_main_impl@libc -@xz
yes _start: leaf@a.out __libc_start_main@@GLIBC_2.34@libc -@xz
no _start: leaf@a.out __libc_start_main@libc
no _start: leaf@a.out _start@a.out -@a.out
no _start: leaf@a.out main@a.out
no _start: 
no _start: leaf@- _start@a.out
no _start: leaf@a.out main@a.out __libc_start_main@libc -@-
no _start: leaf@a.out _start_x@a.out" \
	"$(reach <<'EOF'
_start: leaf@a.out main@a.out __libc_start_call_main@libc __libc_start_main@libc _start@a.out
_start: leaf@a.out __libc_start_main_impl@libc -@xz
_start: leaf@a.out __libc_start_main@@GLIBC_2.34@libc -@xz
_start: leaf@a.out __libc_start_main@libc
_start: leaf@a.out _start@a.out -@a.out
_start: leaf@a.out main@a.out
_start: 
_start: leaf@- _start@a.out
_start: leaf@a.out main@a.out __libc_start_main@libc -@-
_start: leaf@a.out _start_x@a.out
EOF
)"

is "reaches: main anywhere, frames past it not judged, none before it unmapped" \
	"yes main: leaf@a.out main@a.out -@- -@-
yes main: main@a.out
no main: leaf@- main@a.out
no main: leaf@a.out mainly@a.out _start@a.out
no main: " \
	"$(reach <<'EOF'
main: leaf@a.out main@a.out -@- -@-
main: main@a.out
main: leaf@- main@a.out
main: leaf@a.out mainly@a.out _start@a.out
main: 
EOF
)"

is "reaches: no other start" "ValueError" \
	"$(py 'try:
    u.reaches([], "__libc_start_main")
except ValueError:
    print("ValueError")' 2>&1)"

# A report of trace-cmd as ustack-symbolize prints it: two tasks, frames
# in no file, unmapped, of an unnamed inode and without a name; a stack
# whose cookie no event gave, and one whose cookie a stack had already.
cat > "$work/named.txt" <<'EOF'
cpus=1
            prog-171   [000]    96.226452: sys_enter_getppid:    
            prog-171   [000]    96.226453: user_unwind_cookie:   cookie=300000001
            prog-172   [000]    96.226454: user_unwind_cookie:   cookie=300000002
            prog-171   [000]    96.226470: user_unwind_stack:    cookie=300000001
 => <0000000000001139> leaf+0x2 (/tmp/prog)
 => <0000000000001150> main+0x7 (/tmp/prog)
 => <0000000000027249> __libc_start_main+0x89 (/usr/lib/libc.so.6)
 => <0000000000001065> ?? (/tmp/prog)
            prog-172   [000]    96.226471: user_unwind_stack:    cookie=300000002
 => <00000000000010f0> ?? (no file)
 => <0000000000001150> main+0x7 (/tmp/prog)
            prog-171   [000]    96.226480: user_unwind_stack:    cookie=300000003
 => <0000000000001139> leaf+0x2 (/tmp/prog)
 => <0000000000001234> ?? (not mapped)
 => <0000000000000040> ?? (inode 514 dev 254:3)
            prog-171   [000]    96.226490: inode_cache:          inode=257 dev=[254:3] path=/tmp/prog build_id=00
            prog-171   [000]    96.226491: user_unwind_cookie:   cookie=300000001
            prog-171   [000]    96.226492: user_unwind_stack:    cookie=300000001
 => <0000000000001139> leaf+0x2 (/tmp/prog)
            prog-171   [000]    96.226493: user_unwind_stack:    cookie=300000004
some other line
 => <0000000000001150> main+0x7 (/tmp/prog)
EOF
is "trace-cmd: stacks, frames, cookies and orphans of every task" \
	"171 300000001 ok 1139 leaf /tmp/prog | 1150 main /tmp/prog | 27249 __libc_start_main /usr/lib/libc.so.6 | 1065 None /tmp/prog
172 300000002 ok 10f0 None None | 1150 main /tmp/prog
171 300000003 orphan 1139 leaf /tmp/prog | 1234 None None | 40 None inode 514 dev 254:3
171 300000001 orphan 1139 leaf /tmp/prog
171 300000004 orphan 
cookies {171: ['300000001', '300000001'], 172: ['300000002']}" \
	"$(py 'stacks, cookies = u.trace_cmd(open("'"$work/named.txt"'"))
for t in stacks:
    print(t.pid, "%x" % t.cookie, "orphan" if t.orphan else "ok",
          " | ".join("%x %s %s" % fr for fr in t.stack))
print("cookies", {p: ["%x" % c for c in cs] for p, cs in cookies.items()})')"
is "trace-cmd: one task's entries only" \
	"172 300000002 ok 2 | cookies [172]" \
	"$(py 'stacks, cookies = u.trace_cmd(open("'"$work/named.txt"'"), 172)
print(" ".join("%d %x %s %d" % (t.pid, t.cookie, "orphan" if t.orphan else "ok",
                                len(t.stack)) for t in stacks), "| cookies",
      sorted(cookies))')"

# The demo's script on it: every stack counts once, main() is reached by
# the first only (the second's innermost frame is in no file, the others
# have no main); 10 frames in the 4 stacks that have one (the last one's
# frame is cut off from it by another line).
python3 "$top/demo/trace-cmd-stacks.py" "$work/named.txt" "$work/stacks.txt" \
	> "$work/tc-summary.txt"
is "trace-cmd-stacks.py: summary (stacks, reach main, mean depth)" \
	"       5          20.0%         2.5" "$(cat "$work/tc-summary.txt")"
is "trace-cmd-stacks.py: the stacks it writes" \
	"            1139 leaf (prog)
            1150 main (prog)
           27249 __libc_start_main (libc.so.6)
            1065 [unknown] (prog)

            10f0 [unknown] (?)
            1150 main (prog)

            1139 leaf (prog)
            1234 [unknown] (?)
              40 [unknown] (inode 514 dev 254:3)

            1139 leaf (prog)" "$(cat "$work/stacks.txt")"

# bpf-profile: 10 samples without a stack of 30, its maps and stacks.
cat > "$work/profile.txt" <<'EOF'
# bpf-profile lua: 30 samples at 499 Hz, 3 distinct stacks; without a stack: 4 not requested, 3 not delivered, 2 unreadable; 1 records lost
maps:
555555554000 555555556000 /nonexistent/prog
555555556000 555555558000 /nonexistent/prog
7ffff7dd0000 7ffff7f00000 /nonexistent/libc.so.6
stacks:
12 555555556100 555555556200 7ffff7dd1000 555555556010
6 555555556100 7fffffffe000
2 555555556100
EOF
is "bpf-profile: comment, maps, stacks, samples without a stack" \
	"bpf-profile lua: 30 samples at 499 Hz, 3 distinct stacks; without a stack: 4 not requested, 3 not delivered, 2 unreadable; 1 records lost
3 maps
12 555555556100 555555556200 7ffff7dd1000 555555556010
6 555555556100 7fffffffe000
2 555555556100
10 without a stack" \
	"$(py 'c, m, s, n = u.bpf_profile(open("'"$work/profile.txt"'"))
print(c)
print(len(m), "maps")
for count, st in s:
    print(count, " ".join("%x" % a for a in st))
print(n, "without a stack")')"
is "bpf-profile: maps, their objects' bases, and where an address is" \
	"555555554000 555555556000 /nonexistent/prog 555555554000
555555556000 555555558000 /nonexistent/prog 555555554000
7ffff7dd0000 7ffff7f00000 /nonexistent/libc.so.6 7ffff7dd0000
(None, 140737488347136)
('/nonexistent/prog', 8464)" \
	"$(py 'm = u.read_maps(open("'"$work/profile.txt"'"))
for start, end, obj, base in m:
    print("%x %x %s %x" % (start, end, obj, base))
print(u.where(m, 0x7fffffffe000))
print(u.where(m, 0x555555556110))')"
# Named as addr2line would name them: main() reached by the 12 samples,
# not by the 6 whose second frame is in no mapping, nor by the 2 of one
# frame, nor by the 10 without a stack: 12 of 30; depth (12 * 4 + 6 * 2
# + 2) / 20.
is "bpf-profile: figures, samples without a stack counted as not reaching" \
	"Figures(samples=30, reached=12, share=40.0, depth=3.1)
      30          40.0%         3.1" \
	"$(py 'c, ml, s, n = u.bpf_profile(open("'"$work/profile.txt"'"))
m = u.read_maps(ml)
sym = {0x555555556100: ("leaf", "prog"), 0x555555556200: ("main", "prog"),
       0x7ffff7dd1000: ("__libc_start_main", "libc.so.6"),
       0x7fffffffe000: ("main", "?")}
f = u.figures([(count, u.named(st, m, sym)) for count, st in s] + [(n, [])],
              "main")
print(f)
print(u.summary_line(f))')"
# The demo's script, end to end: the objects do not exist, so nothing is
# named and nothing reaches main(); the samples are still all 30.
echo '<html>/** @options_json **/ /** @flamegraph_json **/</html>' > "$work/template.html"
is "bpf-profile-report.py: summary when nothing is named" \
	"      30           0.0%         3.1" \
	"$(python3 "$top/demo/bpf-profile-report.py" "$work/profile.txt" \
		"$work/template.html" "$work/bpf-stacks.txt" "$work/flame.html")"
is "bpf-profile-report.py: the stacks it writes" \
	"12 samples
    555555556100 [unknown] (prog)
    555555556200 [unknown] (prog)
    7ffff7dd1000 [unknown] (libc.so.6)
    555555556010 [unknown] (prog)

6 samples
    555555556100 [unknown] (prog)
    7fffffffe000 [unknown] (?)

2 samples
    555555556100 [unknown] (prog)" "$(cat "$work/bpf-stacks.txt")"

# perf script -F ip,sym,dso as the demo runs it, a callchain a sample:
# Lua to main() (kept past main by libc's frames), one with an unmapped
# frame before main, python3 to _start, one to __libc_start_main's
# caller with no _start symbol (xz), one that goes past _start, one of a
# single frame.
cat > "$work/script.txt" <<'EOF'
	    55d4c0a0b1c2 luaV_execute+0x12 (/demo/lua/lua-sframe)
	    55d4c0a0a000 main (/demo/lua/lua-sframe)
	    7f0000027249 __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)

	    55d4c0a0b1c2 luaV_execute (/demo/lua/lua-sframe)
	    ffffffffffff [unknown] ([unknown])
	    55d4c0a0a000 main (/demo/lua/lua-sframe)

	    55d4c0a0b1c2 _PyEval_EvalFrameDefault (/usr/bin/python3.13)
	    7f0000027300 __libc_start_main_impl (/usr/lib/x86_64-linux-gnu/libc.so.6)
	    55d4c0a01005 _start (/usr/bin/python3.13)

	    5600000010a0 [unknown] (/usr/bin/xz)
	    7f0000027300 __libc_start_main@@GLIBC_2.34 (/usr/lib/x86_64-linux-gnu/libc.so.6)
	    5600000003a5 [unknown] (/usr/bin/xz)

	    5600000010a0 [unknown] (/usr/bin/xz)
	    55d4c0a01005 _start (/usr/bin/python3.13)
	    400000 [unknown] ([unknown])

	    7f0000030000 write (/usr/lib/x86_64-linux-gnu/libc.so.6)
EOF
is "perf script: frames, symbol offsets dropped, [unknown] as None" \
	"luaV_execute@/demo/lua/lua-sframe main@/demo/lua/lua-sframe __libc_start_call_main@/usr/lib/x86_64-linux-gnu/libc.so.6
luaV_execute@/demo/lua/lua-sframe None@None main@/demo/lua/lua-sframe
_PyEval_EvalFrameDefault@/usr/bin/python3.13 __libc_start_main_impl@/usr/lib/x86_64-linux-gnu/libc.so.6 _start@/usr/bin/python3.13
None@/usr/bin/xz __libc_start_main@@GLIBC_2.34@/usr/lib/x86_64-linux-gnu/libc.so.6 None@/usr/bin/xz
None@/usr/bin/xz _start@/usr/bin/python3.13 None@None
write@/usr/lib/x86_64-linux-gnu/libc.so.6" \
	"$(py 'for s in u.perf_script(open("'"$work/script.txt"'")):
    print(" ".join("%s@%s" % (f.func, f.obj) for f in s.stack))')"
# 6 samples, 16 frames; main: the first only (the second has an
# unmapped frame before main); _start: the third and the fourth.
is "ustacks.py perf-script: the demo's columns, to main() and to _start" \
	"       6          16.7%         2.7
       6          33.3%         2.7" \
	"$(python3 "$top/lib/ustacks.py" perf-script main "$work/script.txt"
	   python3 "$top/lib/ustacks.py" perf-script _start "$work/script.txt")"
# Without the dso field every frame is taken as mapped: the second
# sample reaches main() too.
sed 's/ ([^)]*)$//' "$work/script.txt" > "$work/script-nodso.txt"
is "ustacks.py perf-script --no-dso: every frame mapped" \
	"       6          33.3%         2.7" \
	"$(python3 "$top/lib/ustacks.py" perf-script main --no-dso "$work/script-nodso.txt")"
# Other fields (comm, pid) on a line of their own before the frames
printf 'busy 1234\n\t    5600000010a0 main (/bench/busy)\n\nbash 1235\n\t    5600000010a0 f (/bin/bash)\n' \
	> "$work/script-comm.txt"
is "perf script: other fields as each sample's header" \
	"busy 1234: main
bash 1235: f" \
	"$(py 'for s in u.perf_script(open("'"$work/script-comm.txt"'"), header=True):
    print("%s: %s" % (s.header, " ".join(f.func for f in s.stack)))')"
is "figures: nothing at all" "Figures(samples=0, reached=0, share=0.0, depth=0.0)" \
	"$(py 'print(u.figures([], "_start"))')"

# check/guest/stock-tables/reach.py, the guest tests' figure, on the
# same kinds of input: a program (any position-independent 64-bit ELF
# file: its entry point is all that is read) mapped at 0x555555554000,
# whose _start is the 64 bytes from its entry point.
prog=$(readlink -f /usr/bin/env)
read -r entry pie < <(python3 -c 'import struct, sys
h = open(sys.argv[1], "rb").read(64)
print(struct.unpack_from("<Q", h, 24)[0], int(struct.unpack_from("<H", h, 16)[0] == 3))' "$prog")
base=0x555555554000
[ "$pie" = 1 ] || { echo "$prog is not position independent" >&2; exit 1; }
s=$((base + entry + 5))
{
	echo "# bpf-profile python3: 20 samples at 199 Hz, 4 distinct stacks; without a stack: 1 not requested, 0 not delivered, 0 unreadable; 0 records lost"
	echo "maps:"
	printf '%x %x %s\n' "$base" $((base + 0x1000000)) "$prog"
	printf '%x %x %s\n' $((0x7ffff7dd0000)) $((0x7ffff7f00000)) /usr/lib/libc.so.6
	echo "stacks:"
	# whole; past _start; an unmapped frame; short of _start
	printf '15 7ffff7dd1000 %x\n' "$s"
	printf '2 7ffff7dd1000 %x %x\n' "$s" $((base + 0x100))
	printf '1 7fffffffe000 %x\n' "$s"
	printf '1 7ffff7dd1000 %x\n' $((s + 64))
} > "$work/bp.txt"
# rp ARGS: reach.py's verdict line and status
rp()
{
	local rc=0 out

	out=$(python3 "$top/check/guest/stock-tables/reach.py" "$@" 2>&1) || rc=$?
	grep -v '^    \|a stack short' <<< "$out"
	echo "status $rc"
}
name=$(basename "$prog")
is "reach.py bpf-profile: 15 of 20 whole (the sample without a stack counts)" \
	"  $name, bpf-profile: 20 stacks, 15 of them whole to _start
status 1" "$(rp "$prog" 10 bpf-profile "$work/bp.txt")"
is "reach.py bpf-profile --share 75: passes" \
	"  $name, bpf-profile: 20 stacks, 15 of them whole to _start
status 0" "$(rp --share 75 "$prog" 10 bpf-profile "$work/bp.txt")"
is "reach.py bpf-profile: too few stacks" \
	"  $name, bpf-profile: 20 stacks, 15 of them whole to _start
status 1" "$(rp --share 75 "$prog" 21 bpf-profile "$work/bp.txt")"
is "reach.py bpf-profile --control: too many whole is status 2" \
	"  $name, bpf-profile: 20 stacks, 15 of them whole to _start
status 2" "$(rp --control --share 50 "$prog" 10 bpf-profile "$work/bp.txt")"

# trace-cmd: offsets in the files, placed with the process's maps; the
# program's text mapped from file offset 0x1000 at base + 0x1000.
off=$((s - base))
cat > "$work/proc.maps" <<EOF
$(printf '%x-%x' "$base" $((base + 0x1000))) r--p 00000000 fe:03 1234    $prog
$(printf '%x-%x' $((base + 0x1000)) $((base + 0x1000000))) r-xp 00001000 fe:03 1234    $prog
7ffff7dd0000-7ffff7f00000 r-xp 00000000 fe:03 99    /usr/lib/libc.so.6
7ffff7ff0000-7ffff7ff2000 r-xp 00000000 00:00 0    [vdso]
EOF
{
	echo "            python3-300   [000]    96.1: user_unwind_cookie:   cookie=1"
	echo "            python3-300   [000]    96.2: user_unwind_stack:    cookie=1"
	echo " => <0000000000001000> foo+0x0 (/usr/lib/libc.so.6)"
	printf ' => <%016x> ?? (%s)\n' "$off" "$prog"
	echo "            python3-300   [000]    96.3: user_unwind_cookie:   cookie=2"
	echo "            python3-300   [000]    96.4: user_unwind_stack:    cookie=2"
	echo " => <0000000000000010> ?? (no file)"
	printf ' => <%016x> ?? (%s)\n' "$off" "$prog"
	echo "            python3-301   [000]    96.5: user_unwind_stack:    cookie=9"
	echo " => <0000000000000010> ?? (no file)"
} > "$work/tc.sym"
is "reach.py trace-cmd: a frame in no file is not whole" \
	"  $name, trace-cmd: 2 stacks, 1 of them whole to _start, 0 without their cookie
status 1" "$(rp "$prog" 2 trace-cmd "$work/tc.sym" "$work/proc.maps" 300)"
echo "            python3-300   [000]    96.6: user_unwind_stack:    cookie=1" >> "$work/tc.sym"
printf ' => <%016x> ?? (%s)\n' "$off" "$prog" >> "$work/tc.sym"
is "reach.py trace-cmd: a cookie's second stack fails the test" \
	"  $name, trace-cmd: 3 stacks, 2 of them whole to _start, 1 without their cookie
status 1" "$(rp --share 50 "$prog" 2 trace-cmd "$work/tc.sym" "$work/proc.maps" 300)"
tap_done
