#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every file the guest tests run comes over 9p, never virtiofs: under
# QEMU TCG, virtiofsd writes file data into guest memory behind QEMU's
# back and the guest may run stale translated code
# (check/qemu-tcg/README.md).  pipeline/run.sh boots with --force-9p.

top=$(cd "$(dirname "$0")/../.." && pwd)
rc=0
for d in / "$top" /usr/lib; do
	fs=$(stat -f -c %T "$d" 2>/dev/null)
	src=$(findmnt -n -o FSTYPE -T "$d" 2>/dev/null)
	echo "$d: ${src:-$fs}"
	case "$fs $src" in
	*virtiofs*|*fuseblk*|*fuse*) rc=1 ;;
	esac
done
[ $rc -eq 0 ] || echo "a guest file system is virtiofs"
exit $rc
