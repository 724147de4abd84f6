#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tree.sh [DIR] - make DIR (default build/linux) a git tree of the base
# with the topics of patches/ applied on top by git am, in order.
#
# Branch sframe holds the whole stack; branch topics/NAME points at the
# last patch of topic NAME and carries its cover letter as description.
# rebase.updateRefs is set, so "git rebase -i" on sframe moves the topic
# branches along.
# An existing tree is reset to the base and the series re-applied, which
# only rewrites the files that differ, so out-of-tree builds of it stay
# incremental.  A tree with commits or changes that are not in patches/
# is left alone unless FORCE=1.

. "$(dirname "$0")/../lib/lib.sh"

dir=${1:-$BUILD/linux}
REPO=$CACHE/linux-base.git

"$TOP/pipeline/base.sh"

# Patch-ids of the exported series.
series_ids()
{
	local p

	while read -r p; do
		git patch-id --stable < "$PDIR/$p" | cut -d' ' -f1
	done < <(series_list)
}

# Point topics/NAME at the last patch of each topic, with the topic's
# cover letter as its description.
mark_topics()
{
	local t n=0 tip

	git for-each-ref --format='%(refname:short)' refs/heads/topics/ |
		xargs -r git branch -q -D
	git config branch.sframe.description "$(cover_description "$(first_cover)")"
	for t in $(topic_list); do
		n=$((n + $(topic_series "$t" | wc -l)))
		tip=$(git rev-list --reverse base..HEAD | sed -n "${n}p")
		[ -n "$tip" ] || die "topic $t: fewer commits than patches"
		git branch -q -f "topics/$t" "$tip"
		git config "branch.topics/$t.description" \
			"$(cover_description "$PDIR/$t/0000-cover-letter.patch")"
	done
}

unexported()
{
	local ids c id

	ids=$(cd "$dir" && series_ids)
	for c in $(git -C "$dir" rev-list base..HEAD); do
		id=$(git -C "$dir" show "$c" | git patch-id --stable | cut -d' ' -f1)
		grep -qx "$id" <<< "$ids" || git -C "$dir" log -1 --format='  %h %s' "$c"
	done
	git -C "$dir" status --porcelain | sed 's/^/  /'
}

if [ -d "$dir/.git" ] && [ "${FORCE:-0}" != 1 ]; then
	left=$(unexported)
	if [ -n "$left" ]; then
		echo "$dir has work that is not in patches/:" >&2
		echo "$left" >&2
		die "run 'make export' first, or FORCE=1 to discard it"
	fi
fi

if [ ! -d "$dir/.git" ]; then
	log "cloning the base into $dir"
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	git clone -q --no-checkout "$REPO" "$dir"
fi

cd "$dir" || exit 1
# Follow the cached base if it was rebuilt (e.g. from another tarball).
git fetch -q -f "$REPO" refs/tags/base:refs/tags/base

# Already base + this series, unchanged: leave the files (and their
# timestamps, which incremental kernel builds depend on) alone.
tree_ids=$(for c in $(git rev-list --reverse base..HEAD 2>/dev/null); do
	git show "$c" | git patch-id --stable | cut -d' ' -f1
done)
if git merge-base --is-ancestor base HEAD 2>/dev/null &&
   [ "$tree_ids" = "$(series_ids)" ] &&
   [ -z "$(git status --porcelain --untracked-files=no)" ] &&
   [ "$(git symbolic-ref -q --short HEAD)" = sframe ]; then
	mark_topics
	log "$dir: up to date, base + $(git rev-list --count base..HEAD) patches"
	exit 0
fi
git am --abort >/dev/null 2>&1 || true
git checkout -q -f -B sframe base
git clean -q -fdx
git config user.name "$(identity name)"
git config user.email "$(identity email)"
git config rebase.updateRefs true

n=0
while read -r p; do
	if ! git am -q --committer-date-is-author-date "$PDIR/$p"; then
		git am --abort || true
		die "$p does not apply"
	fi
	n=$((n + 1))
done < <(series_list)
mark_topics
log "$dir: base + $n patches ($(git log -1 --format=%h)), topics: $(topic_list | paste -sd' ' -)"
