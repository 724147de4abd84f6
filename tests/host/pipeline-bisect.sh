#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bisect step catches a patch that breaks the build even when a later
# patch repairs it: the series plus "break kernel/unwind/user.c" plus
# "repair it" must fail exactly at the breaking patch, and pass at every
# other one.  The step itself covers the whole series; here the last
# patch of the series and the two added ones are enough.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/lib.sh"

# The tree and kernel build of check.sh, so that nothing is built twice;
# it is put back to the plain series at the end.
tree=$CACHE/trees/check
work=$(mktemp -d -p "$CACHE" bisecttest.XXXXXX)
FORCE=1 "$top/scripts/tree.sh" "$tree" >/dev/null
orig=$(git -C "$tree" rev-parse HEAD)
cleanup()
{
	rm -rf "$work"
	git -C "$tree" reset -q --hard "$orig" || true
}
trap cleanup EXIT
[ -e "$(kbuild_dir x86_64 "$tree")/vmlinux" ] ||
	"$top/scripts/kernel.sh" x86_64 "$tree" >/dev/null

# The series with a broken patch and its fix on top.
cd "$tree"
n=$(git rev-list --count base..HEAD)
echo "int sframe_bisect_probe(void) { return 0 }" >> kernel/unwind/user.c
git commit -q -a -m "test: break the build"
git revert --no-edit HEAD >/dev/null

rc=0
BISECT_FROM=$orig~1 "$top/scripts/bisect.sh" "$tree" x86_64 > "$work/out" 2>&1 || rc=$?
cat "$work/out" | grep -E '^(not )?ok'
[ $rc -ne 0 ] || { echo "bisect.sh passed a series with a broken patch"; exit 1; }
want_bad="bisect $((n + 1))/$((n + 2)) x86_64: test: break the build"
grep -qx "not ok - $want_bad" "$work/out" || { echo "did not flag: $want_bad"; exit 1; }
[ "$(grep -c '^not ok' "$work/out")" -eq 1 ] || { echo "flagged other patches too"; exit 1; }
[ "$(grep -c '^ok' "$work/out")" -eq 2 ] || { echo "wrong number of passing patches"; exit 1; }
echo "bisect flagged exactly the broken patch"
