#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# corpus.sh [OUTDIR] - the corpus of real .sframe sections that
# check/host/sframe-check.sh gives the series' sframe-check: open source
# C from Debian's sources (lua, zlib, bzip2, zstd, mbedtls, pcre2), built
# with -O2 -Wa,--gsframe in the toolchain root for each architecture
# (ARCHES), as relocatable objects and as the programs and shared objects
# linked from them, some a second time with each architecture's own
# variants (CORPUS_*_CFLAGS of config/arch/ARCH.sh).
#
# OUTDIR (default $CACHE/corpus/out) gets a directory per CPU (x86_64/,
# aarch64/: the first word of the arch's TRIPLET), and in each files.txt, the files to check, for sframe-check's -f.  The orig
# tarballs, pinned by sha256 and verified through the signed Sources
# index on their first download (lib/fetch.sh), are kept in
# $CACHE/corpus/dl, their sources in $CACHE/corpus/src.
#
# The corpus is built again only when its key changes: this script, the
# arches' files, the pins and the exact toolchain (root_stamp).  A first build takes about
# three minutes on two cores, later ones seconds with ccache.
#
# The archive's kernel tools take the corpus as files (FILES=), so that
# fetching from a distribution stays here.

. "$(dirname "$0")/../lib/lib.sh"

DL=$CACHE/corpus/dl
SRC=$CACHE/corpus/src
OUTDIR=$(realpath -m "${1:-$CACHE/corpus/out}")
CORPUS_CFLAGS=(-O2 -g0 -fPIC '-Wa,--gsframe' -w)
# The suites whose signed Sources index vouches for the pins: trixie's
# point releases move packages between them.
SUITES=(trixie trixie-updates trixie-proposed-updates)

# The orig tarballs: name, then sha256.
PINS=(
	lua5.4_5.4.7.orig.tar.gz
	9fbf5e28ef86c69858f6d3d34eccc32e911c1a28b4120ff3e84aaa70cfbf1e30
	zlib_1.3.dfsg+really1.3.1.orig.tar.gz
	60dd315c07f616887caa029408308a018ace66e3d142726a97db164b3b8f69fb
	bzip2_1.0.8.orig.tar.gz
	ab5a03176ee106d3f0fa90e381da478ddae405918153cca248e682cd0c4a2269
	libzstd_1.5.7+dfsg.orig.tar.xz
	0c092ef267edce57ba7f3f2645c861f72eaf5e76273c6c3632869423464b90a5
	mbedtls_3.6.6.orig.tar.bz2
	8fb65fae8dcae5840f793c0a334860a411f884cc537ea290ce1c52bb64ca007a
	pcre2_10.46.orig.tar.gz
	8d28d7f2c3b970c3a4bf3776bcbb5adfc923183ce74bc8df1ebaad8c1985bd07
)

# src NAME: the directory of the sources of the orig tarball NAME.
src()
{
	echo "$SRC/${1%.orig.tar.*}"
}

# Fetching and unpacking happen on the host, which has the keyring.
fetch_sources()
{
	local i name dir

	# mbedtls comes as .tar.bz2; tar unpacks on the host.
	host_install bzip2
	mkdir -p "$DL" "$SRC"
	for ((i = 0; i < ${#PINS[@]}; i += 2)); do
		name=${PINS[i]}
		[ -e "$DL/$name" ] || log "fetching $name"
		deb_fetch_pinned "$name" "${PINS[i + 1]}" "$DL/$name" "${SUITES[@]}" ||
			die "no verified $name"
		dir=$(src "$name")
		[ -d "$dir" ] && continue
		rm -rf "$dir.tmp"
		mkdir -p "$dir.tmp"
		# tar picks the decompressor by the name's suffix.
		tar -xaf "$DL/$name" -C "$dir.tmp" --strip-components=1
		mv "$dir.tmp" "$dir"
	done
}

# objs DIR CC FLAGS... -- SOURCES...: compile each source into DIR.
objs()
{
	local dir=$1 cc=$2 flags=()

	shift 2
	while [ "$1" != -- ]; do
		flags+=("$1")
		shift
	done
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	printf '%s\n' "$@" | xargs -d '\n' -P "$JOBS" -I{} \
		sh -c 'o=$1/$(basename "$2" .c).o; shift 2; exec "$@" -o "$o"' \
		sh "$dir" {} "$cc" "${flags[@]}" -c {}
}

# build_corpus ARCH (x86_64 or arm64): its corpus, in OUTDIR/<its CPU>.
build_corpus()
{
	local cc out cpu w s linked f
	local lua zlib bz zstd tls pcre
	local lua_c=() zlib_c=() bz_c=() zstd_c=() tls_c=() pcre_c=()
	local zstd_flags tls_flags

	arch_vars "$1"
	cc=${CROSS}gcc cpu=${TRIPLET%%-*}
	out=$OUTDIR/$cpu

	lua=$(src "${PINS[0]}") zlib=$(src "${PINS[2]}") bz=$(src "${PINS[4]}")
	zstd=$(src "${PINS[6]}") tls=$(src "${PINS[8]}") pcre=$(src "${PINS[10]}")
	for f in "$lua"/src/*.c; do
		case ${f##*/} in lua.c|luac.c) ;; *) lua_c+=("$f") ;; esac
	done
	zlib_c=("$zlib"/*.c)
	for f in blocksort huffman crctable randtable compress decompress \
		 bzlib bzip2; do
		bz_c+=("$bz/$f.c")
	done
	zstd_c=("$zstd"/lib/{common,compress,decompress,dictBuilder,legacy}/*.c)
	tls_c=("$tls"/library/*.c)
	# pcre2's library: what its Makefile.am builds, with the generic
	# config.h, pcre2.h and character tables (no configure).
	mapfile -t pcre_c < <(sed -n '/^COMMON_SOURCES/,/^$/s|^ *src/\(.*\.c\).*|'"$pcre"'/src/\1|p' \
		"$pcre/Makefile.am")
	pcre_c+=("$pcre/src/pcre2_chartables.c")
	for f in config.h pcre2.h; do
		[ -f "$pcre/src/$f" ] || cp "$pcre/src/$f.generic" "$pcre/src/$f"
	done
	[ -f "$pcre/src/pcre2_chartables.c" ] ||
		cp "$pcre/src/pcre2_chartables.c.dist" "$pcre/src/pcre2_chartables.c"
	zstd_flags=(-DZSTD_DISABLE_ASM -DZSTD_LEGACY_SUPPORT=5 -I"$zstd/lib"
		    -I"$zstd/lib/common")
	tls_flags=(-I"$tls/include" -I"$tls/library")

	log "building the $cpu corpus"
	mkdir -p "$out"
	set -- "$cc" "${CORPUS_CFLAGS[@]}"
	objs "$out/obj/lua" "$@" -DLUA_USE_LINUX -- "${lua_c[@]}"
	objs "$out/obj/lua-main" "$@" -DLUA_USE_LINUX -- "$lua/src/lua.c"
	objs "$out/obj/zlib" "$@" -DHAVE_UNISTD_H -DHAVE_STDARG_H -- "${zlib_c[@]}"
	objs "$out/obj/bzip2" "$@" -D_FILE_OFFSET_BITS=64 -- "${bz_c[@]}"
	objs "$out/obj/zstd" "$@" "${zstd_flags[@]}" -- "${zstd_c[@]}"
	objs "$out/obj/mbedtls" "$@" "${tls_flags[@]}" -- "${tls_c[@]}"
	for w in 8 16 32; do
		objs "$out/obj/pcre2-$w" "$@" -DHAVE_CONFIG_H \
			-DPCRE2_CODE_UNIT_WIDTH=$w -I"$pcre/src" -- "${pcre_c[@]}"
	done
	objs "$out/obj/pcre2-main" "$@" -DHAVE_CONFIG_H -DHAVE_UNISTD_H \
		-DHAVE_STRERROR -DSUPPORT_PCRE2_16 -DSUPPORT_PCRE2_32 \
		-I"$pcre/src" -- "$pcre"/src/{pcre2grep,pcre2test}.c
	objs "$out/obj/pcre2-posix" "$@" -DHAVE_CONFIG_H \
		-DPCRE2_CODE_UNIT_WIDTH=8 -I"$pcre/src" -- "$pcre/src/pcre2posix.c"
	objs "$out/obj/lua-var" "$@" "$CORPUS_LUA_CFLAGS" -DLUA_USE_LINUX -- \
		"${lua_c[@]}" "$lua/src/lua.c"
	objs "$out/obj/zstd-var" "$@" "$CORPUS_ZSTD_CFLAGS" "${zstd_flags[@]}" -- "${zstd_c[@]}"
	objs "$out/obj/bzip2-var" "$@" "$CORPUS_BZ_CFLAGS" -D_FILE_OFFSET_BITS=64 -- "${bz_c[@]}"

	log "linking the $cpu corpus"
	cd "$out" || exit
	"$cc" -o lua obj/lua-main/*.o obj/lua/*.o -lm -ldl
	"$cc" -o lua-var obj/lua-var/*.o -lm -ldl
	"$cc" -o bzip2 obj/bzip2/*.o
	"$cc" -o bzip2-var obj/bzip2-var/*.o
	for w in 8 16 32; do
		"$cc" -shared -o "libpcre2-$w.so" obj/pcre2-$w/*.o
	done
	"$cc" -o pcre2grep obj/pcre2-main/pcre2grep.o obj/pcre2-8/*.o
	"$cc" -o pcre2test obj/pcre2-main/pcre2test.o \
		obj/pcre2-posix/pcre2posix.o -L. -lpcre2-8 -lpcre2-16 -lpcre2-32
	"$cc" -shared -o libz.so obj/zlib/*.o
	"$cc" -shared -o libzstd.so obj/zstd/*.o
	"$cc" -shared -o libzstd-var.so obj/zstd-var/*.o
	"$cc" -shared -o libmbedcrypto.so obj/mbedtls/*.o

	linked=(lua lua-var bzip2 bzip2-var pcre2grep pcre2test libz.so
		libzstd.so libzstd-var.so libmbedcrypto.so libpcre2-8.so
		libpcre2-16.so libpcre2-32.so)
	for s in "${linked[@]}"; do
		readelf -S "$s" | grep '\.sframe' >/dev/null ||
			die "$cpu: $s has no .sframe section"
	done
	{ printf "$PWD/%s\n" "${linked[@]}"; ls -d "$PWD"/obj/*/*.o; } > files.txt
}

# In the toolchain root (see below): build both corpora.
if [ "${CORPUS_STAGE:-}" = build ]; then
	for a in "${ARCHES[@]}"; do
		build_corpus "$a"
	done
	exit 0
fi

# corpus_ready: whether each arch's corpus is there.
corpus_ready()
{
	local a

	for a in "${ARCHES[@]}"; do
		arch_vars "$a"
		[ -s "$OUTDIR/${TRIPLET%%-*}/files.txt" ] || return 1
	done
}

key=$( (cat "$0"; printf '%s\n' "${ARCHES[@]}"
	for a in "${ARCHES[@]}"; do cat "$TOP/config/arch/$a.sh"; done
	printf '%s\n' "${PINS[@]}" "${CORPUS_CFLAGS[@]}"; root_stamp) |
	sha256sum | cut -c1-16)
if [ "$(cat "$OUTDIR/.key" 2>/dev/null)" = "$key" ] && corpus_ready; then
	log "corpus in $OUTDIR is up to date"
	exit 0
fi
fetch_sources
rm -f "$OUTDIR/.key"
inroot env CORPUS_STAGE=build SFRAME_CACHE="$CACHE" JOBS="$JOBS" \
	"$(readlink -f "$0")" "$OUTDIR"
echo "$key" > "$OUTDIR/.key"
log "corpus in $OUTDIR: $(cat "$OUTDIR"/*/files.txt | wc -l) files"
