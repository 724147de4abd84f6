#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch and verify the pinned Linux base, and keep it as a one-commit git
# repository in the cache ($CACHE/linux-base.git), from which trees are
# cloned.
#
# The pin is Debian's linux-source-7.3 7.3.4-1~bpo13+1 (trixie-backports):
# upstream v7.3.4 with Debian's patch series applied.  (The 7.3.4 orig
# tarball is listed in the Sources index but not served.)  It is verified
# as apt would: the InRelease file's signature with gpgv and Debian's
# archive keyring, the checksum of the binary-amd64 Packages index that
# the signed file lists, the package's checksum in that index, which must
# also be the pinned one, and the file.
#
# When the archive no longer lists or serves the pinned package, fall back
# loudly to the newest linux-source-7.3 that trixie-backports, sid or
# experimental list, verified the same way.  Whatever is used is recorded
# in $CACHE/linux-base.git/BASE and in the message of the base commit.
#
# The base commit has a fixed author, committer, date and message, so the
# same source gives the same commit id on every machine: that id is the
# base-commit: of the exported series.

. "$(dirname "$0")/../lib/lib.sh"

PIN_PKG=linux-source-7.3
PIN_VER=7.3.4-1~bpo13+1
PIN_SUITE=trixie-backports
PIN_SHA=703e369ddd4cce971452f5a593ee55df3a5c10c83caf0fa0df039633ed181ee3
SRC=$CACHE/src
REPO=$CACHE/linux-base.git

mkdir -p "$SRC"

# candidates SUITE...: "path version sha256" of every linux-source-7.3 in
# the verified indexes of the suites, newest first.
candidates()
{
	local s

	for s in "$@"; do
		deb_files "$s" binary 'linux-source-7\.3' || true
	done | sort -u | sort -k2,2Vr
}

# Extract the source of the linux-source .deb $1 into $2 (contents at its
# top).
extract()
{
	local file=$1 dir=$2

	mkdir -p "$dir"
	dpkg-deb --fsys-tarfile "$file" |
		tar -xO --wildcards './usr/src/linux-source-*.tar.xz' |
		tar -C "$dir" --strip-components=1 -xJ
	# Debian's packaging adds "ignore everything at the top level" to
	# .gitignore, which would hide new files from git.
	python3 - "$dir/.gitignore" <<-'PY'
	import re, sys
	f = sys.argv[1]
	s = open(f).read()
	s = re.sub(r"\n*#\n# Debian packaging:.*?\n!/debian/\n", "\n", s, flags=re.S)
	open(f, "w").write(s)
	PY
}

# deb_file PATH: the local name of a pool path (%7e is a tilde).
deb_file()
{
	local f=${1##*/}

	echo "${f//%7e/\~}"
}

# A cached base is reused unless the pin changed, or it is a fallback and
# the pinned package has become available.
if [ -e "$REPO/BASE" ]; then
	if ! grep -qx "pin: $PIN_SHA" "$REPO/BASE"; then
		log "the pin changed: rebuilding the base"
	elif grep -q '^FALLBACK' "$REPO/BASE" &&
	     pin=$(candidates "$PIN_SUITE" 2>/dev/null |
		   awk -v s="$PIN_SHA" '$3 == s { print $1; exit }') &&
	     [ -n "$pin" ] && deb_served "$pin"; then
		log "$PIN_PKG $PIN_VER is available now: rebuilding the base"
	else
		log "base: $(head -1 "$REPO/BASE")"
		exit 0
	fi
	rm -rf "$REPO"
fi

# Only now is the archive needed: a cached base must not depend on the
# machine's apt sources.
need_mirror
log "verifying $PIN_PKG $PIN_VER through the signed $PIN_SUITE index"
file='' desc=''
line=$(candidates "$PIN_SUITE" | awk -v v="$PIN_VER" '$2 == v')
if [ -n "$line" ]; then
	read -r path ver sha <<< "$line"
	if [ "$sha" != "$PIN_SHA" ]; then
		echo "!!! the index lists $PIN_PKG $PIN_VER with sha256 $sha, not the pinned $PIN_SHA" >&2
	elif deb_fetch "$path" "$sha" "$SRC/$(deb_file "$path")"; then
		file=$SRC/$(deb_file "$path")
		desc="Linux 7.3.4 as Debian's $PIN_PKG $PIN_VER (${file##*/}, sha256 $sha, verified: InRelease signature, Packages index, file)"
	fi
fi
if [ -z "$file" ]; then
	echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2
	echo "!!! $PIN_PKG $PIN_VER is not listed or not served by $MIRROR" >&2
	echo "!!! falling back to the newest $PIN_PKG a signed index lists" >&2
	echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2
	while read -r path ver sha; do
		if deb_fetch "$path" "$sha" "$SRC/$(deb_file "$path")"; then
			file=$SRC/$(deb_file "$path")
			desc="FALLBACK: $PIN_PKG $ver (${file##*/}, sha256 $sha, verified: InRelease signature, Packages index, file) instead of $PIN_VER"
			break
		fi
	done < <(candidates trixie-backports sid experimental)
	[ -n "$file" ] || die "no verifiable $PIN_PKG in the archive"
	echo "!!! using $desc" >&2
fi

log "unpacking ${file##*/}"
rm -rf "$REPO.tmp"
extract "$file" "$REPO.tmp"
(
	cd "$REPO.tmp" || exit
	git init -q -b linux
	git config user.name "SFrame pipeline"
	git config user.email "sframe-pipeline@localhost"
	git add -A -f .
	# Fixed identity, dates and message: the same source gives the same
	# base commit on every machine, so exported patches do not change.
	GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" \
	GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
		git commit -q -m "Linux base" -m "$desc"
	printf '%s\npin: %s\n' "$desc" "$PIN_SHA" > BASE
	git tag base
)
mv "$REPO.tmp" "$REPO"
log "base: $desc ($(git -C "$REPO" rev-parse base))"
