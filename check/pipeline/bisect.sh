#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bisect step catches a patch that breaks the build even when a later
# patch repairs it, and a patch that calls a function only a later patch
# defines: the series plus "break kernel/unwind/user.c", "repair it",
# "call a function of kernel/unwind/sframe.c that does not exist yet" and
# "add it" must fail exactly at the breaking and at the calling patch, and
# pass at every other one.  The step itself covers the whole series; here
# the last patch of the series and the four added ones are enough.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/lib/lib.sh"

# The tree and kernel build of check.sh, so that nothing is built twice;
# it is put back to the plain series at the end.
tree=${1:?usage: $0 TREE (the check tree, docs/check-tree.md)}
work=$(mktemp -d -p "$CACHE" bisecttest.XXXXXX)
FORCE=1 "$top/pipeline/tree.sh" "$tree" >/dev/null
orig=$(git -C "$tree" rev-parse HEAD)
cleanup()
{
	rm -rf "$work"
	git -C "$tree" reset -q --hard "$orig" || true
}
trap cleanup EXIT
[ -e "$(kbuild_dir x86_64 "$tree")/vmlinux" ] ||
	"$top/pipeline/kernel.sh" x86_64 "$tree" >/dev/null

# The series with a broken patch and its fix on top.
cd "$tree"
n=$(git rev-list --count base..HEAD)
echo "int sframe_bisect_probe(void) { return 0 }" >> kernel/unwind/user.c
git commit -q -a -m "test: break the build"
git revert --no-edit HEAD >/dev/null
cat >> kernel/unwind/user.c <<'EOF2'

int sframe_bisect_later(void);
int sframe_bisect_caller(void) { return sframe_bisect_later(); }
EOF2
git commit -q -a -m "test: call a function that does not exist yet"
echo "int sframe_bisect_later(void) { return 0; }" >> kernel/unwind/sframe.c
git commit -q -a -m "test: add the function"

# bisect.sh reads what the series defines from a build of its HEAD.
"$top/pipeline/kernel.sh" x86_64 "$tree" >/dev/null
rc=0
BISECT_FROM=$orig~1 "$top/check/bisect.sh" "$tree" x86_64 > "$work/out" 2>&1 || rc=$?
# Its results are the step's, not this test's: shown as diagnostics.
grep -E '^(not )?ok' "$work/out" | sed 's/^/# /'
[ $rc -ne 0 ] || { echo "bisect.sh passed a series with a broken patch"; exit 1; }
# Its KTAP results, without their numbers.
sed -nE 's/^(not ok|ok) [0-9]+ /\1 /p' "$work/out" > "$work/results"
for want in "$((n + 1))/$((n + 4)) x86_64: test: break the build (build)" \
	    "$((n + 3))/$((n + 4)) x86_64: test: call a function that does not exist yet (link)"; do
	grep -qxF "not ok bisect $want" "$work/results" || { echo "did not flag: $want"; exit 1; }
done
[ "$(grep -c '^not ok' "$work/out")" -eq 2 ] || { echo "flagged other patches too"; exit 1; }
[ "$(grep -c '^ok' "$work/out")" -eq 3 ] || { echo "wrong number of passing patches"; exit 1; }
echo "bisect flagged exactly the broken patch and the early call"
