#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The round trip is exact: on a copy of the project, "make tree" followed
# by "make export" leaves git status clean.  Also checks that "make tree"
# refuses to discard a commit that was never exported.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d -p "${SFRAME_CACHE:-$HOME/.cache/sframe}" roundtrip.XXXXXX)
trap 'rm -rf "$work"' EXIT

git init -q "$work/p"
cp -a "$top/Makefile" "$top/lib" "$top/pipeline" "$top/config" "$top/patches" "$work/p/"
cd "$work/p"
. "$top/lib/lib.sh"
git config user.name "$(identity name)"
git config user.email "$(identity email)"
printf 'build/\nout/\n' > .gitignore
git add -A
git commit -q -m snapshot

make -s tree
make -s export
if [ -n "$(git status --porcelain)" ]; then
	git status --short
	git diff | head -n 40
	echo "make tree && make export changed the checkout"
	exit 1
fi
echo "round trip exact"

echo "/* not exported */" >> build/linux/kernel/unwind/user.c
git -C build/linux commit -q -a -m "unexported work"
if make -s tree > out.log 2>&1; then
	echo "make tree discarded an unexported commit"
	exit 1
fi
grep -q "unexported work" out.log || { cat out.log; exit 1; }
echo "make tree refused to discard an unexported commit"
