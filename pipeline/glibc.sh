#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# glibc.sh ARCH [--installed] - build Debian sid's glibc with SFrame (--enable-sframe)
# and with userspace/glibc/*.patch, the dynamic linker change that
# registers each object's .sframe with the kernel, and install it in a
# prefix of its own.  Prints the prefix.
#
# The prefix is $CACHE/glibc/<key>-ARCH: the guests see the cache at the
# same path, so programs linked with
#   -Wl,--dynamic-linker=<prefix>/lib/<ld.so> -Wl,-rpath,<prefix>/lib
# run against it on the host root (x86_64) and in the arm64 guest alike,
# without touching the roots' own glibc.  The key is a hash of what the
# build is made of: the source, the patches, the configure options and
# the source edit below (build_options, makeconfig_edit), and the
# toolchain root, so a prefix is built once, and edits to the rest of
# this script do not rebuild it; ccache covers a rebuild after a change
# of the patch.
# arm64 is cross-built in the toolchain root, which has no aarch64 C++
# compiler: only glibc's tests use one.
#
# Only what the tests use is built: the libraries, ld.so and the
# programs glibc builds with them; no test suite, no locales, no nscd, no
# libmvec and no gconv modules.
# With --installed, only print the prefix if it is built (else fail).

. "$(dirname "$0")/../lib/lib.sh"

arch=${1:?usage: glibc.sh ARCH}

# Debian sid's glibc, the version of the toolchain root's libc6 (2.43-7),
# so that the test programs, compiled against the root's headers, run on
# it.  The orig tarball is pinned by its checksum, and verified as the
# kernel base is (pipeline/base.sh): the signed InRelease of sid, the
# Sources index it lists, the tarball's checksum there, which must be the
# pinned one, and the file.
GLIBC_VER=2.43
GLIBC_SHA=b8f0d50a7d4255658efe1f608cacdc4be82bb3c009875626df5968cc64c58880
tarball=$CACHE/src/glibc_$GLIBC_VER.orig.tar.xz

arch_vars "$arch"
host=$TRIPLET

# -O2 without debug info: perf resolves libc's symbols from .symtab, and
# its DWARF unwinding (the tests' reference) uses .eh_frame.
# No libmvec (--disable-mathvec): no test loads it, and its vector
# variants are an eighth of glibc's compilations.
build_options=(--enable-sframe --disable-werror --disable-nscd
	--disable-timezone-tools --without-selinux --disable-mathvec CFLAGS=-O2)
cross=()
# The build machine is the toolchain root's, which mmdebstrap made for
# the host's architecture (no sandbox needed to say so: --installed asks
# for the key only).
[ -z "$CROSS" ] || cross=(--host="$host" --build="$(uname -m)-linux-gnu"
	CC="$host-gcc" CXX=false READELF="$host-readelf"
	--with-headers="/usr/$host/include")
# Debian's orig tarball has no manual/ (it is under the GFDL, which Debian
# keeps out of main): leave it out of the subdirectories, as Debian does.
# Nor are iconvdata/ (the gconv modules: the builtin UTF-8, ASCII and
# Latin-1 conversions stay in libc) and support/ (glibc's test library)
# built: no test uses them, and they are another twentieth.
makeconfig_edit='s/ iconv iconvdata wctype manual po / iconv wctype po /; s/ mathvec support\t/ mathvec\t/'

key=$( (echo "$GLIBC_SHA"; cat "$TOP"/userspace/glibc/*.patch
	printf '%s\n' "${build_options[@]}" "${cross[@]}" "$makeconfig_edit" \
		"$ROOT") | sha256sum | cut -c1-16)
prefix=$CACHE/glibc/$key-$arch
if [ -e "$prefix/.complete" ]; then
	touch "$prefix"
	echo "$prefix"
	exit 0
fi
[ "${2:-}" != --installed ] || exit 1
# Prefixes of other keys are dropped once unused for a day, as the roots.
for d in "$CACHE"/glibc/*-"$arch"; do
	[ -d "$d" ] && [ -n "$(find "$d" -maxdepth 0 -mmin +1440)" ] || continue
	log "removing stale glibc $(basename "$d")"
	rm -rf "$d"
done

mkdir -p "$CACHE/src" "$CACHE/glibc"
[ -e "$tarball" ] || log "fetching glibc $GLIBC_VER"
deb_fetch_pinned "glibc_$GLIBC_VER.orig.tar.xz" "$GLIBC_SHA" "$tarball" sid ||
	die "no verified glibc_$GLIBC_VER.orig.tar.xz"

# Per key: two builds of one architecture (two trees) do not meet.
work=$CACHE/glibc/build-$key-$arch
rm -rf "$work" "$prefix"
mkdir -p "$work/obj"
log "building glibc $GLIBC_VER with SFrame for $arch (5 to 8 minutes without ccache)"
start=$(now)
tar -C "$work" -xJf "$tarball"
src=$work/glibc-$GLIBC_VER
for p in "$TOP"/userspace/glibc/*.patch; do
	patch -d "$src" -p1 -s < "$p" || die "$(basename "$p") does not apply"
done
sed -i "$makeconfig_edit" "$src/Makeconfig"
# A new release that moved the list would build them again, unseen.
subdirs=$(sed -n '/^all-subdirs =/,/[^\\]$/p' "$src/Makeconfig")
if grep -qwE 'manual|iconvdata|support' <<< "$subdirs"; then
	die "glibc's Makeconfig: the edit of all-subdirs did not apply"
fi

inroot bash -c 'cd "$1" && shift && "$@"' _ "$work/obj" \
	"$src/configure" --prefix="$prefix" "${build_options[@]}" \
	"${cross[@]}" > "$work/configure.log" 2>&1 ||
	{ tail -20 "$work/configure.log" >&2; die "glibc configure failed ($work/configure.log)"; }
inroot make -C "$work/obj" -j"$JOBS" > "$work/build.log" 2>&1 ||
	{ tail -30 "$work/build.log" >&2; die "glibc build failed ($work/build.log)"; }
inroot make -C "$work/obj" -j"$JOBS" install > "$work/install.log" 2>&1 ||
	{ tail -30 "$work/install.log" >&2; die "glibc install failed ($work/install.log)"; }
touch "$prefix/.complete"
log "glibc for $arch built in $(( $(now) - start )) s"
rm -rf "$work"
echo "$prefix"
