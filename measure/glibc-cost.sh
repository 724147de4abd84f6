#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# glibc-cost.sh ARCH REV... - what the glibc step of a cold make check
# costs at each REV of this project: pipeline/glibc.sh of that revision
# builds glibc for ARCH in a cache of its own, with an empty ccache, and
# the wall, user and system seconds are printed, one line per REV.  The
# toolchain root and the glibc tarball are the cache's, shared read-only.
# A measurement, not a check (issue 35's headroom): run it on an
# otherwise idle machine for wall times; CPU times hold under load.

. "$(dirname "$0")/../lib/lib.sh"

arch=${1:?usage: glibc-cost.sh ARCH REV...}
shift
[ $# -gt 0 ] || die "usage: glibc-cost.sh ARCH REV..."
[ -e "$ROOT/.complete" ] || die "no toolchain root: run make toolchain first"

scratch=$(mktemp -d "$CACHE/glibc-cost.XXXXXX")
# inroot binds the scratch copy and its cache at their paths, which bwrap
# makes as mount points in the shared toolchain root: remove those too.
trap 'rm -rf "$scratch"; rmdir "$ROOT$scratch/cache" "$ROOT$scratch" 2>/dev/null' EXIT
cd "$scratch" || exit 1

for rev in "$@"; do
	git -C "$TOP" rev-parse -q --verify "$rev^{commit}" > /dev/null ||
		die "$rev: not a revision of $TOP"
	rm -rf "${scratch:?}"/*
	# The revision's own scripts and their inputs.
	git -C "$TOP" archive "$rev" pipeline lib config userspace/glibc |
		tar -C "$scratch" -x
	# The cache of the measured run: the roots and the tarballs by link,
	# nothing else, so every compilation misses ccache as on a new machine.
	mkdir -p "$scratch/cache/src"
	ln -s "$CACHE"/root-* "$scratch/cache/"
	ln -s "$CACHE"/src/glibc_* "$scratch/cache/src/" 2>/dev/null || true
	SFRAME_CACHE=$scratch/cache /usr/bin/time -o "$scratch/time" \
		-f '%e %U %S' bash "$scratch/pipeline/glibc.sh" "$arch" \
		> "$scratch/log" 2>&1 ||
		{ tail -n 20 "$scratch/log" >&2; die "$rev: glibc.sh failed"; }
	read -r wall user sys < "$scratch/time"
	printf '%s %s: wall %.0f s, cpu %.0f s (user %.0f, sys %.0f)\n' \
		"$arch" "$(git -C "$TOP" rev-parse --short "$rev")" \
		"$wall" "$(echo "$user + $sys" | bc)" "$user" "$sys"
done
