#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# eh2sframe-coverage.sh - how much of the code of the roots' ELF objects
# userspace/eh2sframe converts: every executable and shared object under
# /usr/bin, /usr/sbin, /usr/lib and /usr/libexec (not /usr/lib/debug) of
# the x86_64 toolchain root and of the arm64 guest root, converted into a
# build-id directory as a distribution would fill it.  Prints, per root:
# the objects, FDEs and code bytes converted, the reasons for what was
# left out, the time the conversion took, and the tables' bytes against
# the .eh_frame they came from.  The line of each object is kept in
# out/measure/eh2sframe-ROOT.txt.

set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/lib/lib.sh"

bin=$(eh2sframe_build all)
dest=$OUT/measure
mkdir -p "$dest"
work=$(mktemp -d -p "$CACHE" coverage.XXXXXX)
trap 'rm -rf "$work"' EXIT

# objects ROOT: the ELF files of ROOT's prefixes, as paths inside it
objects()
{
	(cd "$1" && find usr/bin usr/sbin usr/lib usr/libexec -path usr/lib/debug -prune \
		-o -type f -size +1k -print 2> /dev/null) |
	while IFS= read -r f; do
		if is_elf "$1/$f"; then
			echo "$1/$f"
		fi
	done
}

for root in "$ROOT" "$AROOT"; do
	[ -d "$root/usr" ] || { echo "no root at $root: skipped"; continue; }
	name=$(basename "$root")
	objects "$root" > "$work/list"
	start=$(date +%s.%N)
	inroot xargs -a "$work/list" -d '\n' "$bin/eh2sframe" -d "$work/$name" \
		> "$dest/eh2sframe-$name.txt" 2> "$work/err" || true
	end=$(date +%s.%N)
	echo "== $name: $(wc -l < "$work/list") ELF files, converted in $(echo "$end - $start" | bc) s"
	sed 's/^[^:]*: //' "$work/err" | sort | uniq -c | sed 's/^/   not read: /'
	python3 - "$dest/eh2sframe-$name.txt" <<'EOF'
import re, sys
tot, per = {}, []
for line in open(sys.argv[1]):
    d = {k: int(v) for k, v in re.findall(r'(\S+)=(\d+)', line)}
    if not d.get('fdes'):
        continue
    per.append((line.split()[0], d))
    for k, v in d.items():
        tot[k] = tot.get(k, 0) + v
print(f"   objects with CFI: {len(per)}")
print(f"   FDEs: {tot['converted']} of {tot['fdes']} converted "
      f"({100 * tot['converted'] / tot['fdes']:.2f}%)")
print(f"   code bytes: {tot['bytes_converted']} of {tot['bytes']} "
      f"({100 * tot['bytes_converted'] / tot['bytes']:.2f}%)")
print(f"   tables: {tot.get('table_size', 0)} bytes from {tot['cfi_size']} "
      f"bytes of .eh_frame ({tot.get('table_size', 0) / tot['cfi_size']:.2f}x)")
for k in sorted(k for k in tot if k.startswith('out.')):
    print(f"   left out, {k[4:]}: {tot[k]} FDEs")
print("   least converted, by code bytes left out:")
per.sort(key=lambda p: p[1]['bytes'] - p[1]['bytes_converted'], reverse=True)
for path, d in per[:10]:
    print(f"     {path.split('/usr/', 1)[-1]}: {d['converted']}/{d['fdes']} FDEs, "
          f"{100 * d['bytes_converted'] / max(1, d['bytes']):.1f}% of code")
EOF
done
