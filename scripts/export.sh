#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# export.sh [DIR] - regenerate patches/ and patches/series from the commits
# on top of base in DIR (default build/linux).  The cover letter's subject
# and text come from the branch description, which tree.sh took from the
# previous cover letter; git format-patch redoes its shortlog and diffstat.

. "$(dirname "$0")/lib.sh"

dir=${1:-$BUILD/linux}
[ -d "$dir/.git" ] || die "$dir is not a tree: run 'make tree'"
[ -z "$(git -C "$dir" status --porcelain --untracked-files=no)" ] ||
	die "$dir has uncommitted changes"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

git -C "$dir" -c core.abbrev=12 format-patch -q --zero-commit --no-signature \
	--cover-letter --cover-from-description=subject \
	--base=base -o "$tmp" base..HEAD

# git dates the cover letter now; date it as the newest patch instead so
# that exporting an unchanged series changes nothing.
date=$(git -C "$dir" log -1 --format=%aD)
sed -i "0,/^Date: .*/s//Date: $date/" "$tmp"/0000-cover-letter.patch

rm -f "$TOP"/patches/*.patch "$TOP/patches/series"
mkdir -p "$TOP/patches"
for p in "$tmp"/*.patch; do
	cp "$p" "$TOP/patches/"
	case $(basename "$p") in
	0000-*) ;;
	*) basename "$p" >> "$TOP/patches/series" ;;
	esac
done
log "exported $(wc -l < "$TOP/patches/series") patches to patches/"
