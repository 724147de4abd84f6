#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How the pipeline reads Debian's archive indexes (lib/debian-index.py
# through lib/fetch.sh: release_sha256, index_files, sources_file, and
# deb_files and deb_fetch_pinned over them), on small index texts
# written here: the sha256 of an index in a Release, the files of
# Sources and Packages paragraphs (a Directory after the checksums, a
# file listed twice, versions newest first), the pinned lookup of a
# file by name, and hostile texts (a field missing, a path leading out
# of the pool, a line that is no field, a name that would be a regular
# expression).  A wrong reading would only show as a failed download, or
# the wrong file, much later.  Each test asserts the exact output, what
# is said on stderr and the exit status.  No network: deb_files and
# deb_fetch_pinned get their indexes from a stand-in for signed_index.
# Prints TAP; exits non-zero if a test failed.  Of the check tree (the
# argument check.sh passes), only its KTAP helpers are used.

set -euo pipefail
export LC_ALL=C
top=$(cd "$(dirname "$0")/../.." && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# lib.sh makes its cache directory; nothing here writes to it.
unset MIRROR SFRAME_MIRROR
export SFRAME_CACHE=$work/cache
# shellcheck source=lib/lib.sh
. "$top/lib/lib.sh"

# shellcheck source=lib/tap.sh
. "$top/lib/tap.sh"
tap_start "${1:?usage: $0 TREE (the check tree, for its KTAP helpers)}"

# h C: a sha256 of 64 C's, one per file, to tell them apart.
h()
{
	printf '%064d' 0 | tr 0 "$1"
}

# run COMMAND...: what COMMAND prints with standard input the fixture,
# then what it says on stderr, then its exit status unless 0.
run()
{
	local rc=0

	"$@" > "$work/out" 2> "$work/err" || rc=$?
	cat "$work/out" "$work/err"
	[ "$rc" = 0 ] || echo "status $rc"
}

# A Release's first lines and its checksum fields, shortened: MD5Sum
# lists Sources.xz with another sum, and a longer path begins with it.
cat > "$work/Release" <<EOF
Origin: Debian
Label: Debian
Suite: unstable
Codename: sid
Date: Sat, 29 Nov 2025 20:17:42 UTC
Architectures: all amd64 arm64
Components: main contrib
MD5Sum:
 $(h 0 | cut -c1-32) 1189 main/source/Sources.xz
 $(h 1 | cut -c1-32) 1189 main/binary-amd64/Packages.xz
SHA256:
 $(h a)    44101 main/binary-amd64/Packages.xz
 $(h b) 12103252 main/source/Sources.xz
 $(h c)    63339 main/source/Sources.xz.diff/Index
Acquire-By-Hash: yes
EOF

is "Release: the SHA256 line of PATH, not MD5Sum's nor a longer path's" \
	"$(h b)" "$(run release_sha256 main/source/Sources.xz < "$work/Release")"

is "Release: a PATH of regular expression characters is a string" \
	"status 1" "$(run release_sha256 'main/source/Sources.x.' < "$work/Release")"

is "Release: a PATH it does not list: status 1, nothing said" \
	"status 1" "$(run release_sha256 main/source/Sources.gz < "$work/Release")"

is "Release: PATH listed twice with two sums" \
	"debian-index: Release lists main/source/Sources.xz with different sums: $(h b) $(h d)
status 1" \
	"$(sed "s|^SHA256:|&\n $(h d) 1 main/source/Sources.xz|" "$work/Release" |
	   run release_sha256 main/source/Sources.xz)"

is "Release: a sum that is not 64 hex digits is none" \
	"debian-index: paragraph of line 1: SHA256 line '$(h B) 12103252 main/source/Sources.xz' is not \"SHA256 SIZE NAME\"; skipped
status 1" \
	"$(sed "s/$(h b)/$(h B)/" "$work/Release" |
	   run release_sha256 main/source/Sources.xz)"

# Sources: two versions of glibc, the older naming its Directory after
# its checksums as the archive's paragraphs do; Files and
# Checksums-Sha1 list other sums; eglibc and glibc-doc-reference are
# other packages that a pattern "glibc" must not take.
cat > "$work/Sources" <<EOF
Package: eglibc
Binary: eglibc-source
Version: 2.19-18
Directory: pool/main/e/eglibc
Checksums-Sha256:
 $(h 9) 2110 eglibc_2.19-18.dsc

Package: glibc
Binary: libc6, libc6-dev
Version: 2.42-10
Maintainer: GNU Libc Maintainers <debian-glibc@lists.debian.org>
Format: 3.0 (quilt)
Files:
 $(h 0 | cut -c1-32) 7424 glibc_2.42-10.dsc
 $(h 0 | cut -c1-32) 19753396 glibc_2.42.orig.tar.xz
Checksums-Sha1:
 $(h 0 | cut -c1-40) 7424 glibc_2.42-10.dsc
Checksums-Sha256:
 $(h 1) 7424 glibc_2.42-10.dsc
 $(h 2) 19753396 glibc_2.42.orig.tar.xz
 $(h 3) 1090480 glibc_2.42-10.debian.tar.xz
Standards-Version: 4.7.2
Directory: pool/main/g/glibc
Priority: optional
Section: misc

Package: glibc
Binary: libc6, libc6-dev
Version: 2.43-1
Directory: pool/main/g/glibc
Checksums-Sha256:
 $(h 4) 7424 glibc_2.43-1.dsc
 $(h 5) 19870544 glibc_2.43.orig.tar.xz
 $(h 6) 1001344 glibc_2.43-1.debian.tar.xz

Package: glibc-doc-reference
Version: 2.43-1
Directory: pool/main/g/glibc-doc-reference
Checksums-Sha256:
 $(h 7) 1834 glibc-doc-reference_2.43-1.dsc
EOF

glibc="pool/main/g/glibc/glibc_2.43-1.debian.tar.xz 2.43-1 $(h 6)
pool/main/g/glibc/glibc_2.43-1.dsc 2.43-1 $(h 4)
pool/main/g/glibc/glibc_2.43.orig.tar.xz 2.43-1 $(h 5)
pool/main/g/glibc/glibc_2.42-10.debian.tar.xz 2.42-10 $(h 3)
pool/main/g/glibc/glibc_2.42-10.dsc 2.42-10 $(h 1)
pool/main/g/glibc/glibc_2.42.orig.tar.xz 2.42-10 $(h 2)"

is "Sources: the files of both versions, newest first, Directory before or after" \
	"$glibc" "$(run index_files source glibc < "$work/Sources")"

is "Sources: a pattern, matched against whole names" \
	"pool/main/g/glibc-doc-reference/glibc-doc-reference_2.43-1.dsc 2.43-1 $(h 7)
pool/main/e/eglibc/eglibc_2.19-18.dsc 2.19-18 $(h 9)" \
	"$(run index_files source 'glibc-doc.*|eglibc' < "$work/Sources")"

is "Sources: a file that two paragraphs list is printed once" \
	"$glibc" "$(cat "$work/Sources" - "$work/Sources" <<< "" |
		    run index_files source glibc)"

is "Sources: nothing matches: nothing printed, status 0" \
	"" "$(run index_files source libc < "$work/Sources")"

# Hostile paragraphs: each skipped and said, the good one still read.
cat > "$work/Sources.bad" <<EOF
Package: glibc
Version: 2.41-1
Checksums-Sha256:
 $(h 1) 7424 glibc_2.41-1.dsc

Package: glibc
Directory: pool/main/g/glibc
Checksums-Sha256:
 $(h 2) 7424 glibc_2.40-1.dsc

Package: glibc
Version: 2.39-1
Directory: pool/main/g/glibc

Package: glibc
Version: 2.38-1
Directory: /etc
Checksums-Sha256:
 $(h 3) 7424 glibc_2.38-1.dsc

Package: glibc
Version: 2.37-1
Directory: pool/main/g/../../../..
Checksums-Sha256:
 $(h 4) 7424 glibc_2.37-1.dsc

Package: glibc
Version: 2.36-1 2.35-1
Directory: pool/main/g/glibc
Checksums-Sha256:
 $(h 5) 7424 glibc_2.36-1.dsc

 Package: glibc
Version: 2.34-1
Directory: pool/main/g/glibc
Checksums-Sha256:
 $(h 6) 7424 glibc_2.34-1.dsc

Package: glibc
Version: 2.33-1
Directory pool/main/g/glibc
Checksums-Sha256:
 $(h 7) 7424 glibc_2.33-1.dsc

Package: glibc
Version: 2.32-1
Version: 2.31-1
Directory: pool/main/g/glibc
Checksums-Sha256:
 $(h 8) 7424 glibc_2.32-1.dsc

package: glibc
VERSION: 2.30-1
directory: pool/main/g/glibc
Checksums-SHA256:
 $(h 9) 7424 glibc_2.30-1.dsc
 $(h a) 7424 ../../../../etc/passwd
 $(h b) 7424 ..
 $(h C) 7424 glibc_2.30-1.debian.tar.xz
 $(h c) glibc_2.30.orig.tar.xz
 $(h d | cut -c1-63) 7424 glibc_2.30-1.diff.gz
 $(h e) 19870544 glibc_2.30.orig.tar.gz
EOF

is "Sources: hostile paragraphs and lines skipped and said, the rest read" \
	"pool/main/g/glibc/glibc_2.30-1.dsc 2.30-1 $(h 9)
pool/main/g/glibc/glibc_2.30.orig.tar.gz 2.30-1 $(h e)
debian-index: paragraph of line 1 (glibc): no Directory; skipped
debian-index: paragraph of line 6 (glibc): no Version; skipped
debian-index: paragraph of line 11 (glibc): no Checksums-Sha256; skipped
debian-index: paragraph of line 15 (glibc): Directory '/etc' is not a relative path; skipped
debian-index: paragraph of line 21 (glibc): Directory 'pool/main/g/../../../..' is not a relative path; skipped
debian-index: paragraph of line 27 (glibc): Version is not one word: '2.36-1 2.35-1'; skipped
debian-index: line 33: a continuation line without a field; paragraph of line 33 skipped
debian-index: line 41: not a field; paragraph of line 39 skipped
debian-index: line 47: Version given twice; paragraph of line 45 skipped
debian-index: paragraph of line 52: Checksums-Sha256 line '$(h a) 7424 ../../../../etc/passwd' is not \"SHA256 SIZE NAME\"; skipped
debian-index: paragraph of line 52: Checksums-Sha256 line '$(h b) 7424 ..' is not \"SHA256 SIZE NAME\"; skipped
debian-index: paragraph of line 52: Checksums-Sha256 line '$(h C) 7424 glibc_2.30-1.debian.tar.xz' is not \"SHA256 SIZE NAME\"; skipped
debian-index: paragraph of line 52: Checksums-Sha256 line '$(h c) glibc_2.30.orig.tar.xz' is not \"SHA256 SIZE NAME\"; skipped
debian-index: paragraph of line 52: Checksums-Sha256 line '$(h d | cut -c1-63) 7424 glibc_2.30-1.diff.gz' is not \"SHA256 SIZE NAME\"; skipped" \
	"$(run index_files source glibc < "$work/Sources.bad")"

is "Sources: paragraphs apart by several blank lines, one of spaces; no last newline" \
	"pool/main/g/glibc/glibc_2.43-1.dsc 2.43-1 $(h 4)
pool/main/e/eglibc/eglibc_2.19-18.dsc 2.19-18 $(h 9)" \
	"$(printf 'Package: eglibc\nVersion: 2.19-18\nDirectory: pool/main/e/eglibc\nChecksums-Sha256:\n %s 2110 eglibc_2.19-18.dsc\n\n \t\n\nPackage: glibc\nVersion: 2.43-1\nDirectory: pool/main/g/glibc\nChecksums-Sha256:\n %s 7424 glibc_2.43-1.dsc' "$(h 9)" "$(h 4)" |
	   run index_files source '.*glibc')"

is "Sources: a pattern that is no regular expression: said, status 2" \
	"debian-index: index-files: '(glibc' is no regular expression: missing ), unterminated subpattern at position 0
status 2" \
	"$(run index_files source '(glibc' < "$work/Sources")"

# Packages: two versions of autoconf (arch all), and autoconf-archive.
cat > "$work/Packages" <<EOF
Package: autoconf
Version: 2.71-3
Installed-Size: 2025
Architecture: all
Filename: pool/main/a/autoconf/autoconf_2.71-3_all.deb
Size: 753900
MD5sum: $(h 0 | cut -c1-32)
SHA256: $(h 1)

Package: autoconf-archive
Version: 20220903-3
Architecture: all
Filename: pool/main/a/autoconf-archive/autoconf-archive_20220903-3_all.deb
SHA256: $(h 2)

Package: autoconf
Version: 2.72-3.1
Architecture: all
Filename: pool/main/a/autoconf/autoconf_2.72-3.1_all.deb
Description: automatic configure script builder
SHA256: $(h 3)
Description-md5: $(h 0 | cut -c1-32)
EOF

is "Packages: the .deb of each version, newest first" \
	"pool/main/a/autoconf/autoconf_2.72-3.1_all.deb 2.72-3.1 $(h 3)
pool/main/a/autoconf/autoconf_2.71-3_all.deb 2.71-3 $(h 1)" \
	"$(run index_files binary autoconf < "$work/Packages")"

cat > "$work/Packages.bad" <<EOF
Package: autoconf
Version: 2.70-1
Filename: pool/main/a/autoconf/autoconf_2.70-1_all.deb

Package: autoconf
Version: 2.69-1
Filename: pool/main/a/autoconf/autoconf_2.69-1_all.deb
SHA256: $(h 5 | cut -c1-40)

Package: autoconf
Version: 2.68-1
Filename: /etc/passwd
SHA256: $(h 6)

Package: autoconf
Version: 2.67-1
Filename:
SHA256: $(h 7)

Package: autoconf
Version: 2.66-1
Filename: pool/main/a/autoconf/autoconf_2.66-1_all.deb
SHA256: $(h 8)
EOF

is "Packages: hostile paragraphs skipped and said, the rest read" \
	"pool/main/a/autoconf/autoconf_2.66-1_all.deb 2.66-1 $(h 8)
debian-index: paragraph of line 1 (autoconf): no SHA256; skipped
debian-index: paragraph of line 5 (autoconf): SHA256 '$(h 5 | cut -c1-40)' is not a sha256; skipped
debian-index: paragraph of line 10 (autoconf): Filename '/etc/passwd' is not a relative path; skipped
debian-index: paragraph of line 15 (autoconf): no Filename; skipped" \
	"$(run index_files binary autoconf < "$work/Packages.bad")"

# sources_file: a file by its name, a string.  lua5x4's is a name that
# "lua5.4..." as a regular expression would match; lua5.4's paragraphs
# name their Directory after their checksums, and both list its orig
# tarball.
cat > "$work/Sources.lua" <<EOF
Package: lua5x4
Version: 5.4.9-1
Directory: pool/main/l/lua5x4
Checksums-Sha256:
 $(h 1) 363331 lua5x4_5.4.9.orig.tar.gz

Package: lua5.4
Version: 5.4.9-2
Files:
 $(h 0 | cut -c1-32) 2255 lua5.4_5.4.9-2.dsc
 $(h 0 | cut -c1-32) 21 lua5.4_5.4.9-2.md5-only.tar.gz
Checksums-Sha256:
 $(h 2) 2255 lua5.4_5.4.9-2.dsc
 $(h 3) 363331 lua5.4_5.4.9.orig.tar.gz
Directory: pool/main/l/lua5.4

Package: lua5.4
Version: 5.4.9-1
Checksums-Sha256:
 $(h 4) 2255 lua5.4_5.4.9-1.dsc
 $(h 3) 363331 lua5.4_5.4.9.orig.tar.gz
Directory: pool/main/l/lua5.4

Package: zlib
Version: 1:1.3.dfsg+really1.3.1-1
Directory: pool/main/z/zlib
Checksums-Sha256:
 $(h 5) 2255 zlib_1.3.dfsg+really1.3.1-1.dsc
 $(h 6) 363331 zlib_1.3.dfsg+really1.3.1.orig.tar.gz
EOF

is "sources_file: Directory after the checksums, in two paragraphs: once" \
	"pool/main/l/lua5.4/lua5.4_5.4.9.orig.tar.gz $(h 3)" \
	"$(run sources_file lua5.4_5.4.9.orig.tar.gz < "$work/Sources.lua")"

is "sources_file: a NAME with '+' is a string" \
	"pool/main/z/zlib/zlib_1.3.dfsg+really1.3.1.orig.tar.gz $(h 6)" \
	"$(run sources_file zlib_1.3.dfsg+really1.3.1.orig.tar.gz < "$work/Sources.lua")"

is "sources_file: a NAME with '.' is a string: lua5x4's not taken" \
	"" "$(run sources_file lua5.4_5.4.9.orig.tar.g. < "$work/Sources.lua")"

is "sources_file: a file that only Files (MD5) lists is not listed" \
	"" "$(run sources_file lua5.4_5.4.9-2.md5-only.tar.gz < "$work/Sources.lua")"

# Sources.lua, then its copy with another sum of lua5.4's orig tarball.
{
	cat "$work/Sources.lua"
	echo
	sed "s/$(h 4)/$(h 8)/; /$(h 4)/!s/$(h 3)/$(h 7)/" "$work/Sources.lua"
} > "$work/Sources.two"

is "sources_file: two paragraphs that do not agree: both lines" \
	"pool/main/l/lua5.4/lua5.4_5.4.9.orig.tar.gz $(h 3)
pool/main/l/lua5.4/lua5.4_5.4.9.orig.tar.gz $(h 7)" \
	"$(run sources_file lua5.4_5.4.9.orig.tar.gz < "$work/Sources.two")"

is "sources_file: the paragraph of NAME without a Directory: said, skipped" \
	"debian-index: paragraph of line 6 (lua5.4): no Directory; skipped" \
	"$(grep -v '^Directory: pool/main/l/lua5.4$' "$work/Sources.lua" |
	   sed '/lua5.4_5.4.9-1.dsc/,$d' |
	   run sources_file lua5.4_5.4.9.orig.tar.gz)"

# deb_files and deb_fetch_pinned, with indexes from here instead of the
# network: signed_index SUITE PATH prints $work/SUITE/PATH, failing as
# the real one does without it; deb_fetch says what it would fetch.
signed_index()
{
	[ -e "$work/$1/$2" ] || { echo "$1: cannot fetch $2" >&2; return 1; }
	cat "$work/$1/$2"
}
deb_fetch()
{
	echo "deb_fetch $*"
}
suite()
{
	mkdir -p "$work/$1/main/source" "$work/$1/main/binary-amd64"
	cp "$2" "$work/$1/main/source/Sources.xz"
	cp "$3" "$work/$1/main/binary-amd64/Packages.xz"
}
suite sid "$work/Sources" "$work/Packages"
suite trixie "$work/Sources.lua" "$work/Packages.bad"

is "deb_files: source, index_files of the suite's Sources" \
	"$glibc" "$(run deb_files sid source glibc)"

is "deb_files: binary, index_files of the suite's Packages" \
	"pool/main/a/autoconf/autoconf_2.72-3.1_all.deb 2.72-3.1 $(h 3)
pool/main/a/autoconf/autoconf_2.71-3_all.deb 2.71-3 $(h 1)" \
	"$(run deb_files sid binary autoconf)"

is "deb_files: an index that cannot be read fails" \
	"forky: cannot fetch main/source/Sources.xz
status 1" \
	"$(run deb_files forky source glibc)"

pin=lua5.4_5.4.9.orig.tar.gz
is "deb_fetch_pinned: the pin as listed, from the first suite that lists it" \
	"deb_fetch pool/main/l/lua5.4/$pin $(h 3) $work/dl/$pin
forky: cannot fetch main/source/Sources.xz
$pin: cannot read the signed Sources index of forky
    $pin: pin listed in trixie" \
	"$(run deb_fetch_pinned "$pin" "$(h 3)" "$work/dl/$pin" forky sid trixie)"

is "deb_fetch_pinned: a suite that lists another sum: said, status 1" \
	"$pin: trixie lists sha256 $(h 3), not the pin $(h 4)
status 1" \
	"$(run deb_fetch_pinned "$pin" "$(h 4)" "$work/dl/$pin" trixie)"

is "deb_fetch_pinned: no suite lists it: said, status 1" \
	"forky: cannot fetch main/source/Sources.xz
$pin: cannot read the signed Sources index of forky
$pin: no signed Sources index of forky sid lists it
status 1" \
	"$(run deb_fetch_pinned "$pin" "$(h 3)" "$work/dl/$pin" forky sid)"

suite experimental "$work/Sources.two" "$work/Packages"
is "deb_fetch_pinned: a suite that lists it twice, differently: said, status 1" \
	"$pin: experimental lists it more than once: pool/main/l/lua5.4/$pin $(h 3)
pool/main/l/lua5.4/$pin $(h 7)
status 1" \
	"$(run deb_fetch_pinned "$pin" "$(h 3)" "$work/dl/$pin" experimental trixie)"

mkdir -p "$work/dl"
printf 'pinned\n' > "$work/dl/pinned"
is "deb_fetch_pinned: a FILE that has the pin is kept, no index read" \
	"" "$(run deb_fetch_pinned "$pin" "$(sha256sum < "$work/dl/pinned" | cut -d' ' -f1)" \
		"$work/dl/pinned" forky)"

tap_done
