#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every file the guest tests run comes over 9p, never virtiofs: under
# QEMU TCG, virtiofsd writes file data into guest memory behind QEMU's
# back and the guest may run stale translated code
# (check/qemu-tcg/README.md).  pipeline/run.sh boots with --force-9p.
# Prints KTAP (lib/tap.sh), one case per file system checked: the root,
# the project tree and /usr/lib.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=lib/tap.sh
. "$top/lib/tap.sh"
tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.
ktap_set_plan 3
# check DIR WHAT: DIR, named WHAT (the project tree's path differs from
# one checkout to another), is on no virtiofs
check()
{
	local fs src

	fs=$(stat -f -c %T "$1" 2>/dev/null)
	src=$(findmnt -n -o FSTYPE -T "$1" 2>/dev/null)
	echo "# $1: ${src:-$fs}"
	case "$fs $src" in
	*virtiofs*|*fuseblk*|*fuse*) tap_fail "$2 is not virtiofs" ;;
	*) tap_pass "$2 is not virtiofs" ;;
	esac
}
check / "the root"
check "$top" "the project tree"
check /usr/lib /usr/lib
ktap_finished
