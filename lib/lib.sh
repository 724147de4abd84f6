# SPDX-License-Identifier: GPL-2.0
# Common settings for the pipeline scripts.  Sourced, not run.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${SFRAME_CACHE:-$HOME/.cache/sframe}
BUILD=$TOP/build
OUT=$TOP/out
MIRROR=${SFRAME_MIRROR:-http://deb.debian.org/debian}
JOBS=${JOBS:-$(nproc)}

mkdir -p "$CACHE"

log()
{
	printf '==> %s\n' "$*" >&2
}

die()
{
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# Debian's archive keyring, which signs the indexes that pin the sources.
KEYRING=${SFRAME_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}

need_gpgv()
{
	command -v gpgv >/dev/null && [ -e "$KEYRING" ] && return 0
	log "installing gpgv and debian-archive-keyring on the host"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q gpgv debian-archive-keyring >&2 ||
		die "gpgv and $KEYRING are needed to verify the sources"
}

# signed_index SUITE PATH: print the index PATH (an .xz file under
# dists/SUITE/, e.g. main/source/Sources.xz) uncompressed, after checking
# it as apt does: the InRelease signature with gpgv, then the index's
# checksum that the signed file lists.  Fails if either does not verify.
signed_index()
{
	local suite=$1 path=$2 tmp sha

	tmp=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" RETURN
	curl -fsS -m 120 -o "$tmp/InRelease" "$MIRROR/dists/$suite/InRelease" || return 1
	# Only what gpgv verified is read: --output keeps the signed text.
	if ! gpgv --quiet --keyring "$KEYRING" --output "$tmp/Release" \
		"$tmp/InRelease" 2>"$tmp/gpgv.log"; then
		sed 's/^/    gpgv: /' "$tmp/gpgv.log" >&2
		echo "$suite: InRelease signature does not verify" >&2
		return 1
	fi
	sha=$(awk -v path="$path" '/^SHA256:/ { s = 1; next } /^[^ ]/ { s = 0 }
		   s && $3 == path { print $1 }' "$tmp/Release")
	[ -n "$sha" ] || { echo "$suite: no $path in InRelease" >&2; return 1; }
	curl -fsS -m 300 -o "$tmp/index.xz" "$MIRROR/dists/$suite/$path" || return 1
	echo "$sha  $tmp/index.xz" | sha256sum -c --quiet - >&2 || {
		echo "$suite: $path does not match InRelease" >&2
		return 1
	}
	echo "    $suite: InRelease signature good, $path sha256 $sha" >&2
	xz -dc "$tmp/index.xz"
}

# Bump when the way the roots are made changes without their package lists.
ROOT_FORMAT=1
GUEST_FORMAT=3

root_key()
{
	(echo $ROOT_FORMAT; cat "$TOP/config/toolchain.pkgs") | sha256sum | cut -c1-16
}

guest_key()
{
	(echo $GUEST_FORMAT; cat "$TOP/config/guest-arm64.pkgs") | sha256sum | cut -c1-16
}

ROOT=$CACHE/root-$(root_key)
AROOT=$CACHE/root-arm64-$(guest_key)

# The architectures: arch_vars ARCH sets KARCH (the kernel's ARCH), CROSS
# (CROSS_COMPILE), IMAGE (the kernel image, in the build directory),
# GUEST_ROOT (the guest's root file system: the toolchain root for
# x86_64) and QEMU_OPTS (vng --qemu-opts).
arch_vars()
{
	case $1 in
	x86_64)
		KARCH=x86_64 CROSS= IMAGE=arch/x86/boot/bzImage
		GUEST_ROOT=$ROOT QEMU_OPTS=
		;;
	arm64)
		KARCH=arm64 CROSS=aarch64-linux-gnu- IMAGE=arch/arm64/boot/Image
		GUEST_ROOT=$AROOT QEMU_OPTS="-cpu max,sve=off,pauth-impdef=on"
		;;
	*)
		die "unknown ARCH $1"
		;;
	esac
}

# Run a command inside the toolchain root.  The project and the cache are
# bound at the same paths as on the host so that paths printed by the
# tools are valid on both sides.  BWRAP_EXTRA: more bwrap options.
# ccache leaves the build directory out of its hashes: the kernels have
# debug info (for BTF), which ccache would otherwise cache per directory,
# and the trees of make check, make demo and make kernel would share
# nothing.  Their debug info may then name another tree's directory.
inroot()
{
	[ -x "$ROOT/usr/bin/gcc" ] || die "toolchain root missing: run 'make toolchain'"
	bwrap --bind "$ROOT" / \
		--dev-bind /dev /dev \
		--proc /proc \
		--perms 1777 --tmpfs /tmp --perms 1777 --tmpfs /var/tmp \
		--ro-bind-try /etc/resolv.conf /etc/resolv.conf \
		--bind "$TOP" "$TOP" \
		--bind "$CACHE" "$CACHE" \
		${BWRAP_EXTRA[@]+"${BWRAP_EXTRA[@]}"} \
		--setenv HOME "$HOME" \
		--setenv PATH /usr/lib/ccache:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		--setenv CCACHE_DIR "$CACHE/ccache" \
		--setenv CCACHE_NOHASHDIR 1 \
		--setenv LC_ALL C.UTF-8 \
		--chdir "$PWD" \
		"$@"
}

# The exact toolchain: the package versions in the root, which a root
# made again from the same package list may not have.
root_stamp()
{
	sha256sum < "$ROOT/var/lib/dpkg/status" | cut -c1-16
}

# Passed checks whose inputs have not changed are not run again (as
# ccache does for compilations): bisect.sh and checkpatch.sh keep a pass
# in $RESULTS under a hash of everything the check reads, and print it
# again, saying so.  A failure is never kept.
RESULTS=$CACHE/results

# lock_check_tree: make check, check-debug, demo, bench and fuzz share
# $CACHE/trees/check and its kernel builds: two of them at once (a second
# clone's make check, say) would check out, build and boot the tree under
# each other.  The second waits for the first, for CHECK_LOCK_WAIT seconds
# at most (an hour): longer means a run that hangs, or a process that
# outlived its run with the lock.  Children inherit the lock; guests do
# not (pipeline/run.sh).
lock_check_tree()
{
	local wait=${CHECK_LOCK_WAIT:-3600}

	[ -z "${SFRAME_CHECK_LOCKED:-}" ] || return 0
	mkdir -p "$CACHE/trees"
	exec 9> "$CACHE/trees/check.lock"
	if ! flock -n 9; then
		log "another run uses $CACHE/trees/check: waiting for it to end"
		flock -w "$wait" 9 ||
			die "$CACHE/trees/check.lock still held after ${wait}s: a run hangs, or one of its processes outlived it"
	fi
	export SFRAME_CHECK_LOCKED=1
}

# Seconds since the epoch, for step timing.
now()
{
	date +%s
}

# Out-of-tree kernel build directory for ARCH and a tree; KVARIANT=debug
# selects the debug kernel of make check-debug (config/debug.config).
kbuild_dir()
{
	local arch=$1 tree=$2

	echo "$CACHE/kbuild/$(basename "$tree")-$arch${KVARIANT:+-$KVARIANT}"
}

# patches/ holds one directory per topic: a series of its own with its
# cover letter (0000-cover-letter.patch) and its list of patches
# (series), each applying on the topics before it.  patches/topics lists
# the directories in order.  A directory with a series file and no topics
# file is one flat series (the pipeline's own tests make such ones).
PDIR=${PATCHES:-$TOP/patches}

# The topics, in order; nothing for a flat series.
topic_list()
{
	grep -v '^#' "$PDIR/topics" 2>/dev/null | grep -v '^$' || true
}

# The patches of TOPIC (of the flat series without one), in order.
topic_series()
{
	local dir=$PDIR${1:+/$1}

	grep -v '^#' "$dir/series" 2>/dev/null | grep -v '^$' || true
}

# The patches of the whole stack, in order, as paths relative to $PDIR.
series_list()
{
	local t

	if [ ! -e "$PDIR/topics" ]; then
		topic_series
		return
	fi
	for t in $(topic_list); do
		topic_series "$t" | sed "s|^|$t/|"
	done
}

# cover_description FILE: the subject and text of a cover letter, as a
# git branch description (first paragraph: subject; the rest: text).
cover_description()
{
	local cover=$1

	[ -e "$cover" ] || return 0
	python3 - "$cover" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
head, body = text.split("\n\n", 1)
subj = re.search(r"^Subject: (.*(?:\n .*)*)", head, re.M).group(1)
subj = re.sub(r"\n ", " ", subj)
subj = re.sub(r"^\[PATCH[^\]]*\] ", "", subj)
# The text ends where git's shortlog of the series begins.
m = re.search(r"\n[^\n]+ \(\d+\):\n", body)
blurb = body[:m.start()] if m else body
print(subj + "\n\n" + blurb.rstrip("\n"))
PY
}

# The cover letter of the first topic (of the flat series).
first_cover()
{
	local t

	t=$(topic_list | head -n 1)
	echo "$PDIR${t:+/$t}/0000-cover-letter.patch"
}

# identity name|email: who commits in the kernel trees.  The project's git
# identity; on a clone without one, the author of the cover letter, so
# that make tree && make export stays exact.
identity()
{
	local v

	v=$(git -C "$TOP" config "user.$1" || true)
	if [ -z "$v" ] && [ -e "$(first_cover)" ]; then
		v=$(python3 - "$1" "$(first_cover)" <<'PY'
import email.utils, sys
from email.parser import HeaderParser
msg = HeaderParser().parse(open(sys.argv[2]))
name, addr = email.utils.parseaddr(" ".join(msg["From"].split()))
print(name if sys.argv[1] == "name" else addr)
PY
)
	fi
	[ -n "$v" ] || v=$([ "$1" = name ] && echo "SFrame pipeline" || echo "sframe-pipeline@localhost")
	echo "$v"
}
