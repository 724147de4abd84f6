#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch and verify the pinned Linux base, and keep it as a one-commit git
# repository in the cache ($CACHE/linux-base.git), from which trees are
# cloned.
#
# The pin is Debian's linux_7.3.4.orig.tar.xz (trixie-backports).  When the
# archive no longer serves it, fall back loudly: first to the newest 7.3.y
# orig tarball any suite lists, then to the newest linux-source-7.3 package,
# verified against the checksum of the (signed) archive index.  Whatever is
# used is recorded in $CACHE/linux-base.git/BASE and in the base commit.

. "$(dirname "$0")/lib.sh"

PIN_FILE=linux_7.3.4.orig.tar.xz
PIN_SHA=9894ebada187044287613061502d9131dfd600ea4cd03f7028541d7cf44000df
SRC=$CACHE/src
REPO=$CACHE/linux-base.git

mkdir -p "$SRC"

# fetch URL-PATH FILE SHA256: download into $SRC unless present, verify.
fetch()
{
	local path=$1 file=$2 sha=$3

	if [ ! -e "$SRC/$file" ]; then
		curl -fsS -m 1800 -o "$SRC/$file.part" "$MIRROR/$path" || {
			rm -f "$SRC/$file.part"
			return 1
		}
		mv "$SRC/$file.part" "$SRC/$file"
	fi
	if ! echo "$sha  $SRC/$file" | sha256sum -c --quiet -; then
		rm -f "$SRC/$file"
		die "$file: sha256 mismatch"
	fi
}

# List "kind version path sha256" candidates from the archive indexes,
# newest first: 7.3.y orig tarballs from Sources, then linux-source-7.3.
candidates()
{
	local s

	for s in trixie-backports sid experimental; do
		curl -fsS -m 120 "$MIRROR/dists/$s/main/source/Sources.xz" | xz -dc |
		python3 -c '
import re, sys
for para in sys.stdin.read().split("\n\n"):
    if not re.search(r"^Package: linux$", para, re.M):
        continue
    d = re.search(r"^Directory: (\S+)", para, re.M).group(1)
    for sha, size, name in re.findall(r"^ ([0-9a-f]{64}) (\d+) (linux_7\.3\.\d+\.orig\.tar\.xz)$", para, re.M):
        ver = name[len("linux_"):-len(".orig.tar.xz")]
        print("orig", ver, d + "/" + name, sha)
' || true
		curl -fsS -m 120 "$MIRROR/dists/$s/main/binary-all/Packages.xz" | xz -dc |
		python3 -c '
import re, sys
for para in sys.stdin.read().split("\n\n"):
    if not re.search(r"^Package: linux-source-7\.3$", para, re.M):
        continue
    ver = re.search(r"^Version: (\S+)", para, re.M).group(1)
    fn = re.search(r"^Filename: (\S+)", para, re.M).group(1)
    sha = re.search(r"^SHA256: (\S+)", para, re.M).group(1)
    print("deb", ver, fn, sha)
' || true
	done | sort -u | sort -k1,1r -k2,2Vr
}

# Extract the source into $1 (a fresh directory, contents at its top).
extract()
{
	local kind=$1 file=$2 dir=$3

	mkdir -p "$dir"
	case $kind in
	orig)
		tar -C "$dir" --strip-components=1 -xJf "$SRC/$file"
		;;
	deb)
		dpkg-deb --fsys-tarfile "$SRC/$file" |
			tar -xO --wildcards './usr/src/linux-source-*.tar.xz' |
			tar -C "$dir" --strip-components=1 -xJ
		# Debian's packaging adds "ignore everything at the top
		# level" to .gitignore, which would hide new files from git.
		python3 - "$dir/.gitignore" <<-'PY'
		import re, sys
		f = sys.argv[1]
		s = open(f).read()
		s = re.sub(r"\n*#\n# Debian packaging:.*?\n!/debian/\n", "\n", s, flags=re.S)
		open(f, "w").write(s)
		PY
		;;
	esac
}

# A cached base is reused unless the pin changed, or it is a fallback and
# the pinned tarball has become available.
if [ -e "$REPO/BASE" ]; then
	if ! grep -qx "pin: $PIN_SHA" "$REPO/BASE"; then
		log "the pin changed: rebuilding the base"
	elif grep -q '^FALLBACK' "$REPO/BASE" &&
	     curl -fsI -m 30 "$MIRROR/pool/main/l/linux/$PIN_FILE" >/dev/null 2>&1; then
		log "$PIN_FILE is available now: rebuilding the base"
	else
		log "base: $(head -1 "$REPO/BASE")"
		exit 0
	fi
	rm -rf "$REPO"
fi

kind=orig file=$PIN_FILE desc=
if fetch "pool/main/l/linux/$PIN_FILE" "$PIN_FILE" "$PIN_SHA"; then
	desc="Linux 7.3.4 ($PIN_FILE, sha256 $PIN_SHA)"
else
	echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2
	echo "!!! $PIN_FILE is not served by $MIRROR" >&2
	echo "!!! falling back to the newest 7.3 source the archive has" >&2
	echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2
	found=
	while read -r kind ver path sha; do
		file=${path##*/}
		file=${file//%7e/\~}
		if fetch "$(echo "$path" | sed 's/~/%7e/g')" "$file" "$sha"; then
			found=1
			desc="FALLBACK: $kind $file (version $ver, sha256 $sha) instead of $PIN_FILE"
			[ "$kind" = deb ] && desc="$desc; Debian's top-level .gitignore rule removed"
			break
		fi
	done < <(candidates)
	[ -n "$found" ] || die "no Linux 7.3 source in the archive"
	echo "!!! using $desc" >&2
fi

log "unpacking $file"
rm -rf "$REPO.tmp"
extract "$kind" "$file" "$REPO.tmp"
(
	cd "$REPO.tmp"
	git init -q -b linux
	git config user.name "SFrame pipeline"
	git config user.email "sframe-pipeline@localhost"
	git add -A -f .
	# Fixed identity and dates: the same source gives the same base
	# commit on every machine, so exported patches do not change.
	GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" \
	GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
		git commit -q -m "Linux base" -m "$desc"
	printf '%s\npin: %s\n' "$desc" "$PIN_SHA" > BASE
	git tag base
)
mv "$REPO.tmp" "$REPO"
log "base: $desc"
