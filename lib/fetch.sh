# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Downloads, all of them verified.  Sourced by lib.sh, not run.
#
# From Debian's archive, a file is trusted as apt trusts it: the suite's
# InRelease verifies with gpgv against Debian's archive keyring, the
# index (Sources or Packages) has the checksum that the signed text
# lists, and the file has the checksum that the index lists.  A file the
# project pins by checksum is also looked up in a signed index before its
# first download, so that a wrong pin fails there and not as a mismatch
# of a file nobody vouched for.
#
# The archive is the machine's own (apt_archive): the project names no
# host.
#
# The text of the indexes (the Release, Sources, Packages) is read in one
# place, lib/debian-index.py, through release_sha256, index_files and
# sources_file: filters from standard input to standard output, which
# check/pipeline/debian-index.sh tests on fixtures without the network.
# What does not parse there is said on stderr and skipped, never taken
# in part.

# Debian's archive keyring, which signs the indexes.
KEYRING=${SFRAME_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
# apt's configuration directory, for the tests of apt_archive.
APT_ETC=${SFRAME_APT_ETC:-/etc/apt}

# Debian's suites, by codename or by alias, and their -updates and
# -backports.  Other archives in the sources (vendors', -security, whose
# suites are of another archive layout) do not match.
DEBIAN_SUITE_RE='^(sid|experimental|unstable|testing|stable|oldstable|oldoldstable|buster|bullseye|bookworm|trixie|forky|duke)(-updates|-backports|-backports-sloppy|-proposed-updates)?$'

# apt_archive: print the first Debian archive of the machine's apt
# sources, in apt's order (sources.list, then sources.list.d/ by name;
# one-line .list entries and deb822 .sources stanzas).  An entry counts
# if it is enabled, of type deb or deb-src, and one of its suites is
# Debian's; only addresses curl can fetch (http, https, ftp, file).
apt_archive()
{
	local f files=()

	[ -e "$APT_ETC/sources.list" ] && files+=("$APT_ETC/sources.list")
	for f in "$APT_ETC"/sources.list.d/*; do
		case $f in
		*.list|*.sources) [ -f "$f" ] && files+=("$f") ;;
		esac
	done
	[ ${#files[@]} -gt 0 ] || return 1
	awk -v re="$DEBIAN_SUITE_RE" '
	function fetchable(u) { return u ~ /^(https?|ftp|file):/ }
	function debian(suites,   n, i, s) {
		n = split(suites, s, /[ \t]+/)
		for (i = 1; i <= n; i++)
			if (s[i] ~ re)
				return 1
		return 0
	}
	function found(u) { sub(/\/+$/, "", u); print u; done = 1; exit }
	function stanza(   n, i, u) {
		if (f["types"] ~ /(^|[ \t])deb(-src)?([ \t]|$)/ &&
		    tolower(f["enabled"]) !~ /^(no|false|without|off|disable|0)$/ &&
		    debian(f["suites"])) {
			n = split(f["uris"], u, /[ \t]+/)
			for (i = 1; i <= n; i++)
				if (fetchable(u[i]))
					found(u[i])
		}
		delete f
		key = ""
	}
	FNR == 1 { if (deb822) stanza(); deb822 = FILENAME ~ /\.sources$/ }
	/^[ \t]*#/ { next }
	!deb822 {
		sub(/#.*/, "")
		gsub(/\[[^]]*\]/, "")
		if ($1 != "deb" && $1 != "deb-src" || NF < 3)
			next
		if (fetchable($2) && debian($3))
			found($2)
		next
	}
	/^[ \t]*$/ { stanza(); next }
	/^[ \t]/ { if (key != "") f[key] = f[key] " " $0; next }
	{
		key = tolower(substr($0, 1, index($0, ":") - 1))
		f[key] = substr($0, index($0, ":") + 1)
		gsub(/^[ \t]+|[ \t]+$/, "", f[key])
	}
	END { if (!done && deb822) stanza() }
	' "${files[@]}" | head -n 1 | grep .
}

# need_mirror: set MIRROR, the archive the pipeline fetches from:
# SFRAME_MIRROR, else the machine's (apt_archive).  Dies if neither.
need_mirror()
{
	[ -z "${MIRROR:-}" ] || return 0
	MIRROR=${SFRAME_MIRROR:-$(apt_archive || true)}
	[ -n "$MIRROR" ] ||
		die "no Debian archive in $APT_ETC/sources.list or $APT_ETC/sources.list.d/ (a deb or deb-src entry of a Debian suite such as sid or trixie): add one, or set SFRAME_MIRROR to the archive's address"
	export MIRROR
}

need_gpgv()
{
	host_install gpgv curl xz-utils
	[ -e "$KEYRING" ] || host_install debian-archive-keyring
	[ -e "$KEYRING" ] || die "no keyring $KEYRING to verify the archive with"
}

# fetch_file URL SHA256 FILE: FILE, with content of sha256 SHA256, from
# URL unless FILE already is that.  Returns 1, leaving no FILE, when URL
# cannot be fetched or is not that content.  The caller vouches for
# SHA256: a pin of the project, or the checksum in a verified index.
fetch_file()
{
	local url=$1 sha=$2 file=$3

	if [ -e "$file" ] && echo "$sha  $file" | sha256sum -c --quiet - >/dev/null 2>&1; then
		return 0
	fi
	mkdir -p "$(dirname "$file")"
	rm -f "$file"
	# Under 1 KB/s for two minutes is a dead transfer, not a slow one.
	if ! curl -fsSL --speed-limit 1024 --speed-time 120 -o "$file.part.$$" "$url"; then
		rm -f "$file.part.$$"
		echo "cannot fetch $url" >&2
		return 1
	fi
	if ! echo "$sha  $file.part.$$" | sha256sum -c --quiet - >/dev/null 2>&1; then
		rm -f "$file.part.$$"
		echo "$url: not the expected content (sha256 $sha)" >&2
		return 1
	fi
	mv "$file.part.$$" "$file"
}

# release_sha256 PATH: the sha256 of the index PATH that the SHA256 field
# of the Release on standard input lists.  Fails, saying nothing, if it
# lists no PATH; says why on stderr if it lists PATH with two sums, or
# its SHA256 field does not parse.
release_sha256()
{
	python3 "$TOP/lib/debian-index.py" release-sha256 "$1"
}

# index_files source|binary PACKAGE: "path version sha256", newest first
# and each once, of the files of the packages named PACKAGE (a Python
# regular expression matched against the whole name) that the index on
# standard input lists: for source (a Sources index), every file of the
# source packages; for binary (a Packages index), the .deb.  Paragraphs
# that do not parse are said on stderr and skipped.
index_files()
{
	python3 "$TOP/lib/debian-index.py" index-files "$1" "$2" |
		sort -u | sort -k2,2Vr
}

# sources_file NAME: "path sha256", each once, of the file NAME (a file
# name, not a pattern) in each paragraph of the Sources index on standard
# input that lists it.  More than one line is two paragraphs that do not
# agree on it.
sources_file()
{
	python3 "$TOP/lib/debian-index.py" sources-file "$1" | sort -u
}

# signed_index SUITE PATH: print the index PATH of SUITE (an .xz file
# under dists/SUITE/, e.g. main/source/Sources.xz) uncompressed, after
# checking it as apt does.  Fails if any step does not verify.  Indexes
# are kept in $CACHE/index by checksum: the InRelease is fetched and
# verified every time, the index only when it changed.
signed_index()
(
	suite=$1 path=$2

	need_mirror
	need_gpgv
	mkdir -p "$CACHE/index"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	curl -fsS -m 120 -o "$tmp/InRelease" "$MIRROR/dists/$suite/InRelease" ||
		{ echo "$suite: cannot fetch $MIRROR/dists/$suite/InRelease" >&2; exit 1; }
	# Only what gpgv verified is read: --output keeps the signed text.
	if ! gpgv --quiet --keyring "$KEYRING" --output "$tmp/Release" \
		"$tmp/InRelease" 2>"$tmp/gpgv.log"; then
		sed 's/^/    gpgv: /' "$tmp/gpgv.log" >&2
		echo "$suite: InRelease signature does not verify" >&2
		exit 1
	fi
	sha=$(release_sha256 "$path" < "$tmp/Release") ||
		{ echo "$suite: no sha256 of $path in InRelease" >&2; exit 1; }
	index=$CACHE/index/$sha.xz
	fetch_file "$MIRROR/dists/$suite/$path" "$sha" "$index" ||
		{ echo "$suite: $path does not match InRelease" >&2; exit 1; }
	touch "$index"
	# Indexes of earlier days are superseded.
	find "$CACHE/index" -name '*.xz' -mtime +1 -delete 2>/dev/null || true
	echo "    $suite: InRelease signature good, $path sha256 $sha" >&2
	xz -dc "$index"
)

# deb_files SUITE source|binary PACKAGE: index_files of the verified index
# of SUITE: "path version sha256", newest first, of the files of the
# packages named PACKAGE (a regular expression matched against the whole
# name): for source, every file of the source packages (from
# main/source/Sources); for binary, the .deb (from the binary-amd64
# Packages, which lists the arch: all packages too).
deb_files()
{
	local suite=$1 kind=$2 pkg=$3 path

	case $kind in
	source)	path=main/source/Sources.xz ;;
	binary)	path=main/binary-amd64/Packages.xz ;;
	*)	die "deb_files: unknown kind $kind" ;;
	esac
	signed_index "$suite" "$path" | index_files "$kind" "$pkg"
}

# deb_served PATH: whether the archive serves PATH (a HEAD request): the
# indexes list some orig tarballs that it does not.
deb_served()
{
	need_mirror
	curl -fsSI -m 60 -o /dev/null "$MIRROR/$1"
}

# deb_fetch PATH SHA256 FILE: the archive's PATH (pool/...) as FILE, as
# fetch_file does; SHA256 from a verified index (deb_files), or a pin
# that an index lists (deb_fetch_pinned).
deb_fetch()
{
	local path=$1 sha=$2 file=$3

	need_mirror
	if [ -e "$file" ] && echo "$sha  $file" | sha256sum -c --quiet - >/dev/null 2>&1; then
		return 0
	fi
	deb_served "$path" || { echo "$MIRROR does not serve $path" >&2; return 1; }
	fetch_file "$MIRROR/$path" "$sha" "$file"
}

# deb_fetch_pinned NAME SHA256 FILE SUITE...: the source file NAME (an
# orig tarball, say) pinned by SHA256, as FILE.  A FILE that has SHA256
# is kept without a look at the network; otherwise the first SUITE whose
# verified Sources index lists NAME must list it with SHA256, and it is
# fetched from there.  Returns 1 when no suite lists or the archive does
# not serve it, or it is listed with another checksum (said on stderr).
deb_fetch_pinned()
{
	local name=$1 sha=$2 file=$3 suite line path listed

	shift 3
	if [ -e "$file" ] && echo "$sha  $file" | sha256sum -c --quiet - >/dev/null 2>&1; then
		return 0
	fi
	for suite in "$@"; do
		line=$(signed_index "$suite" main/source/Sources.xz |
			sources_file "$name") ||
			{ echo "$name: cannot read the signed Sources index of $suite" >&2; continue; }
		[ -n "$line" ] || continue
		if [ "$(wc -l <<< "$line")" -ne 1 ]; then
			echo "$name: $suite lists it more than once: $line" >&2
			return 1
		fi
		read -r path listed <<< "$line"
		if [ "$listed" != "$sha" ]; then
			echo "$name: $suite lists sha256 $listed, not the pin $sha" >&2
			return 1
		fi
		echo "    $name: pin listed in $suite" >&2
		deb_fetch "$path" "$sha" "$file"
		return
	done
	echo "$name: no signed Sources index of $* lists it" >&2
	return 1
}
