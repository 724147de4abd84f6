#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Which archive the pipeline fetches from (lib/fetch.sh: apt_archive,
# need_mirror), on small apt configurations written here instead of the
# machine's /etc/apt: the project names no host, so a wrong pick (a
# vendor's archive, -security, a disabled or commented entry, a mirror+
# address curl cannot fetch) would only show as a failed or wrong
# download much later, on one machine.  Each test asserts the exact
# archive, or the exact failure.  Prints TAP; exits non-zero if a test
# failed.  Of the check
# tree (the argument check.sh passes), only its KTAP helpers are used.

set -euo pipefail
export LC_ALL=C
top=$(cd "$(dirname "$0")/../.." && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# lib.sh makes its cache directory; apt_archive reads SFRAME_APT_ETC,
# which each test fills anew.
unset MIRROR SFRAME_MIRROR
export SFRAME_CACHE=$work/cache SFRAME_APT_ETC=$work/apt
# shellcheck source=lib/lib.sh
. "$top/lib/lib.sh"

# shellcheck source=lib/tap.sh
. "$top/lib/tap.sh"
tap_start "${1:?usage: $0 TREE (the check tree, for its KTAP helpers)}"

# The fixtures name no real host: apt_archive reads URIs as text, and
# only their scheme and path matter.  .test is reserved for tests (RFC
# 2606) and never resolves.
h=mirror.test

# fresh: an empty apt configuration (sources.list.d/ and nothing else).
fresh()
{
	rm -rf "$SFRAME_APT_ETC"
	mkdir -p "$SFRAME_APT_ETC/sources.list.d"
}

# put FILE: FILE of the apt configuration, from standard input.
put()
{
	cat > "$SFRAME_APT_ETC/$1"
}

# archive: what apt_archive prints (stderr too: it should say nothing
# there), then its exit status unless 0.
archive()
{
	local rc=0

	apt_archive 2>&1 || rc=$?
	[ "$rc" = 0 ] || echo "status $rc"
}

# mirror: need_mirror in a subshell: MIRROR as a child process sees it,
# or the error and the exit status.
mirror()
{
	local rc=0

	(need_mirror && printenv MIRROR) 2>&1 || rc=$?
	[ "$rc" = 0 ] || echo "status $rc"
}

fresh
put sources.list <<EOF
deb http://$h/debian/debian bookworm main
EOF
is "a one-line sources.list" "http://$h/debian/debian" "$(archive)"

fresh
put sources.list.d/debian.sources <<EOF
Types: deb deb-src
URIs: http://$h/ftp-de/debian https://$h/debian/debian
Suites: bookworm bookworm-updates bookworm-backports
Components: main non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb deb-src
URIs: http://$h/debian-security/debian-security
Suites: bookworm-security
Components: main non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
is "bookworm's debian.sources, several URIs and suites: the first URI" \
	"http://$h/ftp-de/debian" "$(archive)"

fresh
put sources.list <<EOF
deb http://$h/debian-security/debian-security bookworm-security main
deb-src http://$h/debian-security/debian-security bookworm-security main
deb http://$h/debian/debian bookworm main
EOF
is "a -security entry first: the archive after it" \
	"http://$h/debian/debian" "$(archive)"

# Debian's cloud images: the archive through apt's mirror method, and
# their security stanza first.
fresh
put sources.list.d/debian.sources <<EOF
Types: deb
URIs: mirror+file:///etc/apt/mirrors/debian-security.list
Suites: bookworm-security
Components: main

Types: deb
URIs: mirror+file:///etc/apt/mirrors/debian.list https://$h/cdn/debian
Suites: bookworm bookworm-updates bookworm-backports
Components: main
EOF
is "mirror+ URIs and a deb822 -security stanza skipped" \
	"https://$h/cdn/debian" "$(archive)"

fresh
put sources.list <<EOF
# deb http://$h/commented/debian sid main
#deb http://$h/commented/debian sid main
	 # deb http://$h/indented/debian sid main

deb http://$h/debian/debian trixie main # deb http://$h/after/debian sid main
EOF
is "commented lines, and a comment after an entry" \
	"http://$h/debian/debian" "$(archive)"

fresh
put sources.list <<EOF
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] https://$h/mirror/debian trixie main contrib
EOF
is "[arch=amd64 signed-by=...] options" \
	"https://$h/mirror/debian" "$(archive)"

fresh
put sources.list <<EOF
deb [ arch=amd64,arm64 trusted=yes ] http://$h/spaced/debian sid main
EOF
is "[ options ] with spaces inside the brackets" \
	"http://$h/spaced/debian" "$(archive)"

fresh
put sources.list.d/debian.sources <<EOF
Types: deb
URIs: http://$h/disabled/debian
Suites: sid
Components: main
Enabled: no

Types: deb
URIs: http://$h/disabled-too/debian
Suites: sid
Components: main
enabled: No

Types: deb
URIs: http://$h/false/debian
Suites: sid
Components: main
Enabled: False

Types: deb
URIs: http://$h/enabled/debian
Suites: sid
Components: main
EOF
is "disabled stanzas (Enabled: no, false, any case), then one without the field" \
	"http://$h/enabled/debian" "$(archive)"

fresh
put sources.list.d/debian.sources <<EOF
Types: deb
URIs: http://$h/enabled/debian
Suites: sid
Components: main
Enabled: yes
EOF
is "Enabled: yes" "http://$h/enabled/debian" "$(archive)"

# The first stanza ends at the end of its file, without a blank line;
# the second ends the last file.
fresh
put sources.list.d/a.sources <<EOF
Types: deb
URIs: mirror+file:/etc/apt/mirrors/debian.list
Suites: noble
Components: main
EOF
put sources.list.d/b.sources <<EOF
# A field continued on the lines after it.
Types: deb
URIs: mirror+file:/etc/apt/mirrors/debian.list
 http://$h/continued/debian
Suites: noble
 trixie
Components: main
EOF
is "a deb822 stanza with continuation lines" \
	"http://$h/continued/debian" "$(archive)"

fresh
put sources.list <<EOF
deb http://$h/ubuntu/ubuntu noble main restricted
deb http://$h/ubuntu/ubuntu noble-updates main restricted
deb http://$h/ubuntu-security/ubuntu noble-security main restricted
EOF
put sources.list.d/00-vendor.sources <<EOF
Types: deb
URIs: http://$h/ubuntu/ubuntu
Suites: jammy jammy-updates
Components: main
EOF
put sources.list.d/debian.sources <<EOF
Types: deb
URIs: http://$h/debian/debian
Suites: sid
Components: main
EOF
is "a vendor's suites (Ubuntu's) skipped, in both formats" \
	"http://$h/debian/debian" "$(archive)"

fresh
put sources.list <<EOF
deb http://$h/ubuntu/ubuntu noble main
EOF
is "only a vendor's archive: apt_archive fails" "status 1" "$(archive)"

fresh
put sources.list <<EOF
deb cdrom:[Debian GNU/Linux 12.0.0 _Bookworm_ - Official amd64 DVD Binary-1 20230610-10:23]/ bookworm contrib main
deb tor+http://$h/tor/debian bookworm main
deb mirror+http://$h/mirrors/debian.list bookworm main
rpm http://$h/rpm/debian bookworm main
deb-src http://$h/src/debian bookworm main
EOF
is "cdrom:, tor+ and mirror+ entries and other types skipped; deb-src counts" \
	"http://$h/src/debian" "$(archive)"

fresh
put sources.list.d/debian.sources <<EOF
Types: rpm
URIs: http://$h/rpm/debian
Suites: sid
Components: main

Types: deb-src
URIs: ftp://$h/ftp-de/debian
Suites: sid
Components: main
EOF
is "deb822: another type skipped, Types: deb-src counts" \
	"ftp://$h/ftp-de/debian" "$(archive)"

fresh
put sources.list.d/10-first.sources <<EOF
Types: deb
URIs: http://$h/first/debian
Suites: trixie
Components: main
EOF
put sources.list.d/20-second.list <<EOF
deb http://$h/second/debian trixie main
EOF
is "sources.list.d/ by name: a .sources before a .list" \
	"http://$h/first/debian" "$(archive)"

fresh
put sources.list.d/10-first.list <<EOF
deb http://$h/first/debian trixie main
EOF
put sources.list.d/20-second.sources <<EOF
Types: deb
URIs: http://$h/second/debian
Suites: trixie
Components: main
EOF
is "sources.list.d/ by name: a .list before a .sources" \
	"http://$h/first/debian" "$(archive)"

fresh
put sources.list <<EOF
deb http://$h/main/debian sid main
EOF
put sources.list.d/00-parts.list <<EOF
deb http://$h/parts/debian sid main
EOF
is "sources.list before sources.list.d/" \
	"http://$h/main/debian" "$(archive)"

fresh
for f in 00-a.list.save 00-b.list.distUpgrade 00-c.sources.bak 00-d.conf; do
	echo "deb http://$h/$f/debian sid main" | put "sources.list.d/$f"
done
mkdir "$SFRAME_APT_ETC/sources.list.d/00-e.list"
put sources.list.d/10-debian.list <<EOF
deb http://$h/debian/debian sid main
EOF
is "sources.list.d/: only files named .list or .sources" \
	"http://$h/debian/debian" "$(archive)"

fresh
put sources.list <<EOF
deb http://$h/debian/debian/ stable main
EOF
is "a trailing slash stripped" "http://$h/debian/debian" "$(archive)"

rm -rf "$SFRAME_APT_ETC"
is "no apt configuration at all: apt_archive fails" "status 1" "$(archive)"

fresh
put sources.list <<EOF
# Nothing here but a comment.
EOF
is "only comments: apt_archive fails" "status 1" "$(archive)"

is "nothing found: need_mirror dies saying what to add" \
	"error: no Debian archive in $SFRAME_APT_ETC/sources.list or $SFRAME_APT_ETC/sources.list.d/ (a deb or deb-src entry of a Debian suite such as sid or trixie): add one, or set SFRAME_MIRROR to the archive's address
status 1" \
	"$(mirror)"

fresh
put sources.list <<EOF
deb http://$h/debian/debian/ sid main
EOF
is "need_mirror: the archive of the sources, exported" \
	"http://$h/debian/debian" "$(mirror)"

# An apt_archive that says it ran: SFRAME_MIRROR must spare it.
is "need_mirror: SFRAME_MIRROR first, without reading the sources" \
	"https://$h/mirror/debian" \
	"$(apt_archive() { echo "apt_archive called" >&2; }
	   SFRAME_MIRROR=https://$h/mirror/debian mirror)"

tap_done
