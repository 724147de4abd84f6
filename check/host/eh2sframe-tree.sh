#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# userspace/eh2sframe's -d with a prefix, as a distribution or a user
# fills a table directory: every ELF executable and shared object under
# the prefix gets DIR/.build-id/xx/yyyy.sframe, the same table as -o
# writes for it; everything else under the prefix (a script, a
# relocatable object, a FIFO, a symbolic link) is skipped without an
# error; a second run finds every table current and writes none; a
# table that differs from the one it would write is written again; -f
# writes them all again.  Run by root, it skips objects that root does not
# own or that others may write: set-user-ID programs trust the tables.
# The objects are the toolchain root's own.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/lib/lib.sh"
. "$top/lib/tap.sh"

tree=${1:?usage: $0 TREE (the check tree, docs/check-tree.md)}

bin=$(eh2sframe_build all)
work=$(mktemp -d -p "$CACHE" eh2sframe-tree.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The prefix: two objects (one twice, by a hard link), and what is not
# an object to convert.
pre=$work/prefix
mkdir -p "$pre/bin" "$pre/lib/sub"
cp "$ROOT/usr/bin/bash" "$pre/bin/bash"
cp "$ROOT/usr/bin/dash" "$pre/lib/sub/dash"
ln "$pre/bin/bash" "$pre/lib/bash-again"
ln -s ../bin/bash "$pre/lib/bash-link"
printf '#!/bin/sh\necho not an object\n' > "$pre/bin/script"
printf 'int f(void) { return 1; }\n' > "$work/f.c"
inroot gcc -c -o "$pre/lib/f.o" "$work/f.c"
mkfifo "$pre/lib/fifo"
# Objects that a table written by root must not be made for
cp "$ROOT/usr/bin/dash" "$pre/lib/not-roots"
chown 65534 "$pre/lib/not-roots"
cp "$ROOT/usr/bin/dash" "$pre/lib/group-writable"
chmod g+w "$pre/lib/group-writable"

tap_start "$tree"

# build_id FILE: its GNU build-id in hex
build_id()
{
	inroot readelf -n "$1" | sed -n 's/.*Build ID: *//p'
}

# run ARG...: eh2sframe's output; its status in $rc.  A FIFO opened by
# mistake would block it: the timeout turns that into a failure.
run()
{
	rc=0
	timeout 120 "$top/lib/inroot" "$bin/eh2sframe" "$@" || rc=$?
}

run -d "$work/tables" "$pre" > "$work/first" 2> "$work/err"
is "eh2sframe-tree: the first run succeeds" 0 "$rc"
is "eh2sframe-tree: one line per object met (bash twice, by its links)" \
	3 "$(wc -l < "$work/first")"
is "eh2sframe-tree: two tables written" \
	2 "$(grep -c ' table_size=[1-9]' "$work/first")"
# The FIFO and the symbolic link are not regular files: not even opened
# (a FIFO would block the open), so not counted.
is "eh2sframe-tree: the script, the relocatable object and the two objects root must not trust skipped" \
	"eh2sframe: 4 files under the prefixes are not objects to convert" \
	"$(cat "$work/err")"

same=yes
for f in bin/bash lib/sub/dash; do
	id=$(build_id "$pre/$f")
	t=$work/tables/.build-id/${id:0:2}/${id:2}.sframe
	run -o "$work/one.sframe" "$pre/$f" > /dev/null
	[ "$rc" = 0 ] || { same=no; echo "# $f: -o failed ($rc)"; }
	cmp -s "$t" "$work/one.sframe" || { same=no; echo "# $f: $t differs from -o's table"; }
done
is "eh2sframe-tree: each table is -o's, at its object's build-id" yes "$same"

run -d "$work/tables" "$pre" > "$work/second" 2> /dev/null
is "eh2sframe-tree: a second run finds every table current" \
	"0 3" "$rc $(grep -c ' current=1$' "$work/second")"

# A table there that is not what this converter makes (an older one's,
# here dash's with one byte changed) is replaced, not kept as current.
id=$(build_id "$pre/lib/sub/dash")
t=$work/tables/.build-id/${id:0:2}/${id:2}.sframe
run -o "$work/dash.sframe" "$pre/lib/sub/dash" > /dev/null
printf '\377' | dd of="$t" bs=1 seek=100 conv=notrunc status=none
run -d "$work/tables" "$pre" > "$work/third" 2> /dev/null
is "eh2sframe-tree: a table that differs is written again, the others kept" \
	"0 1 2 same" \
	"$rc $(grep -c ' table_size=[1-9]' "$work/third") $(grep -c ' current=1$' "$work/third") $(cmp -s "$t" "$work/dash.sframe" && echo same)"

# So is one with the same bytes and another mode (an older converter
# took it from the umask).
chmod 0600 "$t"
run -d "$work/tables" "$pre" > "$work/fourth" 2> /dev/null
is "eh2sframe-tree: a table of mode 0600 is written again, 0644" \
	"0 1 644" \
	"$rc $(grep -c ' table_size=[1-9]' "$work/fourth") $(stat -c %a "$t")"

# -f writes each table again: new files, renamed over the old ones.
before=$(find "$work/tables" -type f -printf '%i\n' | sort)
run -f -d "$work/tables" "$pre" > "$work/forced" 2> /dev/null
after=$(find "$work/tables" -type f -printf '%i\n' | sort)
is "eh2sframe-tree: -f writes them again" \
	"0 3 yes" \
	"$rc $(grep -c ' table_size=[1-9]' "$work/forced") $([ "$before" != "$after" ] && echo yes)"

# How tables are written: the modes whatever the umask, since every
# user's processes read them; no symbolic link in the table directory
# followed, and no directory used that is not root's or that others may
# write (run by root, as here): someone who can write there can put a
# table that set-user-ID programs trust, or a link that sends root's
# writes elsewhere.  That the table and its rename reach the disk
# (fsync) before the next one is written no test here can see: only a
# crash would.
id=$(build_id "$pre/bin/bash")
rm -rf "$work/tables"
rc=0
(umask 077 && run -d "$work/tables" "$pre/bin/bash" > /dev/null 2>&1; exit "$rc") || rc=$?
is "eh2sframe-tree: with umask 077, the table is 0644 and its directories 0755" \
	"0 644 755 755" \
	"$rc $(stat -c %a "$work/tables/.build-id/${id:0:2}/${id:2}.sframe" \
		"$work/tables/.build-id/${id:0:2}" "$work/tables/.build-id" | tr '\n' ' ' | sed 's/ $//')"

rm -rf "$work/tables" "$work/elsewhere"
mkdir -p "$work/tables/.build-id" "$work/elsewhere"
ln -s "$work/elsewhere" "$work/tables/.build-id/${id:0:2}"
run -d "$work/tables" "$pre/bin/bash" > /dev/null 2> "$work/err"
is "eh2sframe-tree: a symbolic link in the table directory is not followed" \
	"1 0 yes" "$rc $(find "$work/elsewhere" -type f | wc -l) $(grep -q 'not a directory (a symbolic link?)' "$work/err" && echo yes)"
# A symbolic link at the table's own name is replaced, not written through.
rm -rf "$work/tables" "$work/elsewhere"
mkdir -p "$work/tables/.build-id/${id:0:2}" "$work/elsewhere"
touch "$work/elsewhere/target"
ln -s "$work/elsewhere/target" "$work/tables/.build-id/${id:0:2}/${id:2}.sframe"
run -d "$work/tables" "$pre/bin/bash" > /dev/null 2> "$work/err"
is "eh2sframe-tree: a symbolic link in place of a table is replaced by the table" \
	"0 0 regular" "$rc $(stat -c %s "$work/elsewhere/target") $(stat -c %F "$work/tables/.build-id/${id:0:2}/${id:2}.sframe" | sed 's/ file$//')"
# A table there already that others could have written is not trusted.
chmod o+w "$work/tables/.build-id/${id:0:2}/${id:2}.sframe"
run -d "$work/tables" "$pre/bin/bash" > "$work/out" 2>&1
is "eh2sframe-tree: run by root, a table that others may write is written again" \
	"0 644" "$rc $(stat -c %a "$work/tables/.build-id/${id:0:2}/${id:2}.sframe")"

for how in "chown 65534" "chmod o+w" "chmod g+w"; do
	rm -rf "$work/tables"
	mkdir -p "$work/tables/.build-id"
	$how "$work/tables/.build-id"
	run -d "$work/tables" "$pre/bin/bash" > /dev/null 2> "$work/err"
	is "eh2sframe-tree: run by root, no table in a directory after $how" \
		"1 0 yes" \
		"$rc $(find "$work/tables" -type f | wc -l) $(grep -q "not root's, or writable by others" "$work/err" && echo yes)"
done

tap_done
