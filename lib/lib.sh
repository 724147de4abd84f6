# SPDX-License-Identifier: GPL-2.0
# Common settings for the pipeline scripts.  Sourced, not run.
# shellcheck shell=bash
# The settings (BUILD, OUT, RESULTS, arch_vars' variables) are read by the
# scripts that source this file, which shellcheck does not see from here.
# shellcheck disable=SC2034

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${SFRAME_CACHE:-$HOME/.cache/sframe}
BUILD=$TOP/build
OUT=$TOP/out
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

# host_install PKG...: install on the host those of the Debian packages
# PKG that dpkg does not have installed (as root, or through sudo).
host_install()
{
	local p missing=() sudo=()

	for p in "$@"; do
		[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
			missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	[ "$(id -u)" = 0 ] || sudo=(sudo)
	log "installing host packages: ${missing[*]}"
	# An outdated package list is what usually fails the first try.
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q "${missing[@]}" >&2 ||
	{ "${sudo[@]}" apt-get update -q >&2 &&
	  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q "${missing[@]}" >&2; } ||
		die "cannot install ${missing[*]} on the host"
}

# shellcheck source=lib/fetch.sh
. "$TOP/lib/fetch.sh"

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

# The architectures the series supports, in the order the checks take
# them.
ARCHES=(x86_64 arm64)

# host_test_args "$@": the arguments of a host test (check/host/*.sh),
# TREE [ARCH...]: sets tree, and arches, each of ARCHES if none is named
# (make check-fast names x86_64 only).
host_test_args()
{
	tree=${1:?usage: $0 TREE [ARCH...] (the check tree, docs/check-tree.md)}
	shift
	arches=("$@")
	[ ${#arches[@]} -gt 0 ] || arches=("${ARCHES[@]}")
}

# The architectures: arch_vars ARCH sets the facts of ARCH, from its file
# config/arch/ARCH.sh (one per architecture, as kunit's qemu_configs):
#   KARCH, SRCARCH     the kernel's ARCH and SRCARCH (its directory under
#                      arch/)
#   CROSS              CROSS_COMPILE, empty for the toolchain root's own
#   IMAGE              the kernel image, in the build directory
#   GUEST_ROOT         the guest's root file system
#   QEMU_OPTS          vng --qemu-opts
#   LIBBPF_SYSROOT     the root whose libbpf the guest programs link
#                      with; empty: the toolchain root's own
#   TRIPLET            the GNU triplet of the C library (glibc's --host,
#                      /usr/lib/TRIPLET); its first word is the CPU's name
#                      (uname -m)
#   LDSO               the dynamic linker's name
#   ELF_MACHINE        e_machine of its ELF files, as pyelftools names it
#   BRANCH_PROTECTION  -mbranch-protection of the guest tests'
#                      signed-return variants; empty where there are none
#   FUZZ_ARCH          bit 0 of the fuzzers' options byte
#   CORPUS_*_CFLAGS    the corpus's own kinds of code (check/corpus.sh)
#   BENCH_CLOCKSOURCE  the guest clocksource make bench measures with,
#   BENCH_APPEND       and the kernel parameters that keep it
arch_vars()
{
	local f=$TOP/config/arch/$1.sh

	[ -r "$f" ] || die "unknown ARCH $1 (no config/arch/$1.sh)"
	# shellcheck source=config/arch/x86_64.sh
	. "$f"
}

# eh2sframe_build TARGET... - build userspace/eh2sframe (make's
# targets: all, fuzz, gas, oracle) in the toolchain root into $CACHE/eh2sframe,
# which make's timestamps keep current, and print that directory.  Runs
# that use the cache share it: EH2SFRAME_O=DIR builds into DIR instead (a
# change to the converter, in a worktree of its own, or one broken on
# purpose to see a test fail).
eh2sframe_build()
{
	local o

	# make -C runs in the source: a relative directory is made absolute
	o=$(realpath -m "${EH2SFRAME_O:-$CACHE/eh2sframe}")
	inroot make -s -C "$TOP/userspace/eh2sframe" O="$o" "$@" >&2
	echo "$o"
}

# Run a command inside the toolchain root.  The project and the cache are
# bound at the same paths as on the host so that paths printed by the
# tools are valid on both sides.  BWRAP_EXTRA: more bwrap options (an
# array, so only for the scripts that source this file; lib/inroot is the
# same as a program).
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
# not (pipeline/run.sh).  lock_check_tree TREE: the same if TREE is the
# check tree (make demo, bench, fuzz and test take any tree; DEMO_TREE,
# say), nothing for another.
lock_check_tree()
{
	local wait=${CHECK_LOCK_WAIT:-3600}

	[ $# -eq 0 ] ||
		[ "$(realpath -m "$1")" = "$(realpath -m "$CACHE/trees/check")" ] ||
		return 0
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

# kernel_make ARCH TREE KOUT ARG...: make in the kernel tree TREE for ARCH,
# into KOUT, as every kernel build of the project makes: the arch's
# compiler through ccache, with ccache's paths relative to TREE (the trees
# of make check, make demo and make kernel share their objects), and the
# build's time, user and host fixed, so that a tree gives one image.
# ARG: make's variables and targets.  Runs in a subshell: the caller's
# arch_vars stay as they were.
kernel_make()
{
	(
		arch_vars "$1"
		cd "$2" || exit 1
		inroot env CCACHE_BASEDIR="$2" make -s -j"$JOBS" O="$3" \
			ARCH="$KARCH" CROSS_COMPILE="$CROSS" \
			CC="ccache ${CROSS}gcc" KBUILD_BUILD_TIMESTAMP=0 \
			KBUILD_BUILD_USER=sframe KBUILD_BUILD_HOST=ci "${@:4}"
	)
}

# is_elf FILE: whether FILE is a regular file that starts with the ELF
# magic number.
is_elf()
{
	[ -f "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = 177ELF ]
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
