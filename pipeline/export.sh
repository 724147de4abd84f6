#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# export.sh [DIR] - regenerate patches/ from the commits on top of base in
# DIR (default build/linux): for each topic of patches/topics, in order,
# the commits after the previous topic's branch up to branch topics/NAME
# (the last topic: up to HEAD), as patches/NAME/ with its cover letter and
# series.  A cover letter's subject and text come from the description of
# its topic branch, which tree.sh took from the previous cover letter; git
# format-patch redoes its shortlog and diffstat, and records the base
# commit and, for every topic after the first, the patch ids of the topics
# it applies on (prerequisite-patch-id).
#
# A new topic: create its branch topics/NAME in DIR, with a description
# (git branch --edit-description), and add NAME to patches/topics.

. "$(dirname "$0")/../lib/lib.sh"

dir=${1:-$BUILD/linux}
# A worktree of it (git worktree add) has a .git file.
[ -e "$dir/.git" ] || die "$dir is not a tree: run 'make tree'"
[ -z "$(git -C "$dir" status --porcelain --untracked-files=no)" ] ||
	die "$dir has uncommitted changes"
mapfile -t topics < <(topic_list)
[ ${#topics[@]} -gt 0 ] || die "no topics in $PDIR/topics"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

prev=base
last=${topics[${#topics[@]} - 1]}
for t in "${topics[@]}"; do
	# format-patch finds the cover letter's branch by the name of the
	# range's end: a topic branch, or HEAD (sframe) for the last topic.
	if [ "$t" = "$last" ]; then
		tip=HEAD
	else
		tip=topics/$t
		git -C "$dir" rev-parse -q --verify "refs/heads/$tip" >/dev/null ||
			die "no branch $tip in $dir"
	fi
	git -C "$dir" merge-base --is-ancestor "$prev" "$tip" ||
		die "topics/$t does not follow $prev: rebase with rebase.updateRefs"
	[ -n "$(git -C "$dir" rev-list "$prev..$tip")" ] || die "topic $t is empty"
	desc=$(git -C "$dir" config "branch.topics/$t.description" || true)
	[ -n "$desc" ] || die "topics/$t has no description (its cover letter)"

	mkdir -p "$tmp/$t"
	# The last topic's cover letter is the description of sframe, the
	# current branch: lend it the topic's.
	git -C "$dir" -c core.abbrev=12 -c "branch.sframe.description=$desc" \
		format-patch -q --zero-commit --no-signature \
		--cover-letter --cover-from-description=subject \
		--base=base -o "$tmp/$t" "$prev..$tip"
	# git dates the cover letter now; date it as the topic's newest patch
	# so that exporting an unchanged series changes nothing.
	date=$(git -C "$dir" log -1 --format=%aD "$tip")
	sed -i "0,/^Date: .*/s//Date: $date/" "$tmp/$t/0000-cover-letter.patch"
	(cd "$tmp/$t" && for p in [0-9]*.patch; do
		[[ $p == 0000-* ]] || echo "$p"
	done) > "$tmp/$t/series"
	prev=$tip
done

find "$PDIR" -mindepth 1 -maxdepth 2 \( -name '*.patch' -o -name series \) -delete
find "$PDIR" -mindepth 1 -type d -empty -delete
for t in "${topics[@]}"; do
	mkdir -p "$PDIR/$t"
	cp "$tmp/$t"/* "$PDIR/$t/"
done
log "exported $(series_list | wc -l) patches in ${#topics[@]} topics to patches/"
