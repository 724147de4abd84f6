#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The checkpatch step can fail: a patch with a style error, trailing
# whitespace and no Signed-off-by must be reported "not ok", and an
# exception listed for it in config/checkpatch-exceptions must be honoured
# only for its own type.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/lib/lib.sh"

tree=${1:?usage: $0 TREE (the check tree, docs/check-tree.md)}
[ -d "$tree/.git" ] || FORCE=1 "$top/pipeline/tree.sh" "$tree" >/dev/null
work=$(mktemp -d -p "$CACHE")
trap 'rm -rf "$work"' EXIT

cat > "$work/0001-bad.patch" <<'PATCH'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Test <test@example.com>
Date: Thu, 1 Jan 2026 00:00:00 +0000
Subject: [PATCH] unwind: Add a badly styled line

A test patch for the pipeline.
---
 kernel/unwind/user.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/kernel/unwind/user.c b/kernel/unwind/user.c
--- a/kernel/unwind/user.c
+++ b/kernel/unwind/user.c
@@ -1,4 +1,5 @@
 // SPDX-License-Identifier: GPL-2.0
+int  bad_style_probe( int x ){ return x; } 
 /*
 * Generic interfaces for unwinding user space
 */
PATCH
echo 0001-bad.patch > "$work/series"

rc=0
PATCHES=$work "$top/check/checkpatch.sh" "$tree" > "$work/out" 2>&1 || rc=$?
# Its KTAP is the step's, not this test's: shown as diagnostics.
sed 's/^/# /' "$work/out"
[ $rc -ne 0 ] || { echo "checkpatch.sh passed a bad patch"; exit 1; }
grep -qE '^not ok [0-9]+ checkpatch 0001-bad.patch$' "$work/out"
grep -q 'MISSING_SIGN_OFF' "$work/out"
grep -q 'TRAILING_WHITESPACE' "$work/out"
echo "checkpatch step flags a bad patch"

# An exception removes its own type and nothing else.
echo "bad.patch TRAILING_WHITESPACE accepted for this test" > "$work/exceptions"
rc=0
CHECKPATCH_EXCEPTIONS=$work/exceptions PATCHES=$work \
	"$top/check/checkpatch.sh" "$tree" > "$work/out" 2>&1 || rc=$?
[ $rc -ne 0 ] || { echo "the exception hid other findings"; exit 1; }
! grep -q 'TRAILING_WHITESPACE' "$work/out" || { echo "the exception was ignored"; exit 1; }
grep -q 'MISSING_SIGN_OFF' "$work/out"
echo "checkpatch exceptions apply to their own type only"
