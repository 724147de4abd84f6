#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# eh2sframe-libdw.sh - check/host/eh2sframe-libdw.sh's oracle over whole
# roots: every 64-bit executable and shared object under /usr/bin,
# /usr/sbin, /usr/lib and /usr/libexec (not /usr/lib/debug) of the x86_64
# toolchain root and of the arm64 guest root is converted by
# userspace/eh2sframe and its table checked by eh2sframe-oracle against
# libdw's reading of its .eh_frame.  Prints, per root, the objects
# checked, the totals of the oracle's counts, and each object that
# disagrees (the oracle's first messages); keeps each object's line in
# out/measure/eh2sframe-libdw-ROOT.txt.  Takes minutes: the test checks a
# few objects, this all of them.

set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/lib/lib.sh"

bin=$(eh2sframe_build all oracle)
dest=$OUT/measure
mkdir -p "$dest"
work=$(mktemp -d -p "$CACHE" eh2sframe-libdw.XXXXXX)
trap 'rm -rf "$work"' EXIT

# objects ROOT: its 64-bit little-endian ELF executables and shared
# objects (e_type 2 or 3)
objects()
{
	(cd "$1" && find usr/bin usr/sbin usr/lib usr/libexec -path usr/lib/debug -prune \
		-o -type f -size +1k -print 2> /dev/null) |
	python3 -c '
import sys
root = sys.argv[1]
for f in sys.stdin.read().splitlines():
    try:
        with open(root + "/" + f, "rb") as o:
            h = o.read(18)
    except OSError:
        continue
    if h[:6] == b"\x7fELF\x02\x01" and h[16] in (2, 3) and h[17] == 0:
        print(root + "/" + f)
' "$1"
}

# check LIST BIN WORK: in the root, each object of LIST converted and
# checked; one line each, "STATUS ORACLE-LINE", then its messages
cat > "$work/check.sh" <<'EOF'
#!/bin/bash
while IFS= read -r f; do
	rc=0
	"$2/eh2sframe" -v -o "$3/t" "$f" > /dev/null 2> "$3/v" || rc=$?
	if [ $rc -ne 0 ]; then
		echo "$rc $f: not converted: $(head -n 1 "$3/v")"
		continue
	fi
	[ -e "$3/t" ] || : > "$3/t"
	line=$("$2/eh2sframe-oracle" "$f" "$3/t" "$3/v" 2> "$3/e") || rc=$?
	echo "$rc ${line:-$f}"
	[ $rc -eq 0 ] || head -n 5 "$3/e" | sed 's/^/    /'
	rm -f "$3/t"
done < "$1"
EOF
chmod +x "$work/check.sh"

for root in "$ROOT" "$AROOT"; do
	[ -d "$root/usr" ] || { echo "no root at $root: skipped"; continue; }
	name=$(basename "$root")
	objects "$root" > "$work/list"
	start=$(date +%s)
	inroot "$work/check.sh" "$work/list" "$bin" "$work" > "$dest/eh2sframe-libdw-$name.txt"
	end=$(date +%s)
	echo "== $name: $(wc -l < "$work/list") objects in $((end - start)) s"
	grep '^0 ' "$dest/eh2sframe-libdw-$name.txt" | tr ' ' '\n' | grep '=' |
		awk -F= '{ t[$1] += $2 } END { for (k in t) print k "=" t[k] }' |
		sort | paste -sd' ' | sed 's/^/   checked: /'
	echo "   not checked or disagreeing: $(grep -c '^[1-9]' "$dest/eh2sframe-libdw-$name.txt" || true)"
	grep -A5 '^[1-9]' "$dest/eh2sframe-libdw-$name.txt" | head -n 40 | sed 's/^/   /' || true
done
