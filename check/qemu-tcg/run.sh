#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [ARCH [TREE]] - run stale-code (see stale-code.c and README.md)
# in guests of ARCH (default x86_64) booted from the test kernel of TREE
# (default the tree of make check): once with the root file system over
# virtiofs and once over 9p, each time on a file of the root file system
# and on a file of a 9p share.  Prints one line per case and exits 0
# when the result is the one this directory documents: stale code over
# virtiofs (where the guest lets O_DIRECT through), fresh code over 9p.

set -euo pipefail
. "$(dirname "$0")/../../lib/lib.sh"

arch=${1:-x86_64}
tree=${2:-$CACHE/trees/check}
work=$CACHE/qemu-tcg
mkdir -p "$work"

arch_vars "$arch"
root=$GUEST_ROOT cc=${CROSS}gcc
# The function stale-code.c expects in the file: return 2.
case $arch in
x86_64)	code='\xb8\x02\x00\x00\x00\xc3' ;;
arm64)	code='\x40\x00\x80\x52\xc0\x03\x5f\xd6' ;;
esac

inroot $cc -O2 -Wall -static -o "$work/stale-code-$arch" \
	"$TOP/check/qemu-tcg/stale-code.c"
# The file in the root file system: the guest sees $root as /.
{ printf "$code"; head -c 4096 /dev/zero; } | head -c 4096 > "$root/var/lib/stale-code.bin"
cp "$root/var/lib/stale-code.bin" "$work/stale-code.bin"

rc=0
for fs in virtiofs 9p; do
	out=$(VM_ROOTFS=$fs "$TOP/pipeline/run.sh" "$arch" "$tree" 600 \
		"echo root: \$($work/stale-code-$arch /var/lib/stale-code.bin 500); \
		 echo share: \$($work/stale-code-$arch $work/stale-code.bin 500)" |
		grep -E '^(root|share): ' || true)
	echo "$out" | sed "s/^/$arch, root over $fs, file on the /"
	case $fs in
	# An arm64 guest's virtiofs root refuses O_DIRECT: the program
	# skips there, and decides nothing.
	virtiofs) echo "$out" | grep -qE '^root: (stale|SKIP)' || rc=1 ;;
	9p) echo "$out" | grep -q '^root: fresh' || rc=1 ;;
	esac
	echo "$out" | grep -q '^share: fresh' || rc=1
done
rm -f "$root/var/lib/stale-code.bin"
exit $rc
