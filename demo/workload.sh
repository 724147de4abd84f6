#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# workload.sh DIR - the demo's and the benchmark's real program: the Lua
# 5.4 interpreter from Debian's lua5.4 source package, built three ways
# into DIR:
#
#   lua-sframe    -O2 -fomit-frame-pointer -Wa,--gsframe (what the series
#                 is for: no frame pointers, SFrame instead)
#   lua-nosframe  the same binary with .sframe removed: what frame-pointer
#                 unwinding gives for it on Linux today
#   lua-fp        -O2 -fno-omit-frame-pointer: the frame-pointer build a
#                 distribution would have to ship instead
#
# The orig tarball is pinned by checksum (sid's lua5.4 5.4.9-2), and
# checked against sid's signed Sources index before its first download.
# When the archive no longer lists or serves it, the newest lua5.4 orig
# tarball that index lists is used, loudly.

. "$(dirname "$0")/../lib/lib.sh"

dir=${1:?usage: workload.sh DIR}
PIN_NAME=lua5.4_5.4.9.orig.tar.gz
PIN_SHA=2335b6c582a52654f94612bf10d2f4672805d05329aa6568b1d8cd9e5c6fb8e6
SRC=$CACHE/src

mkdir -p "$SRC" "$dir"

name=$PIN_NAME
if ! deb_fetch_pinned "$PIN_NAME" "$PIN_SHA" "$SRC/$PIN_NAME" sid; then
	name=
	while read -r path _ sha; do
		case ${path##*/} in
		*.orig.tar.gz) ;;
		*) continue ;;
		esac
		echo "WARNING: $PIN_NAME is gone from the archive; trying ${path##*/}" >&2
		if deb_fetch "$path" "$sha" "$SRC/${path##*/}"; then
			name=${path##*/}
			break
		fi
	done < <(deb_files sid source 'lua5\.4')
	[ -n "$name" ] || die "no verifiable lua5.4 orig tarball in the archive"
fi
tarball=$SRC/$name
echo "$name" > "$dir/SOURCE"

stamp=$dir/.built-$(cat "$tarball" "$0" | sha256sum | cut -c1-16)
[ -e "$stamp" ] && exit 0

src=$dir/src
rm -rf "$src" "$dir"/.built-*
mkdir -p "$src"
tar -xzf "$tarball" -C "$src" --strip-components=1

# lua.c is the interpreter's main(); luac.c is the compiler, not needed.
files=()
for f in "$src"/src/*.c; do
	[ "${f##*/}" = luac.c ] || files+=("${f##*/}")
done
build()
{
	local out=$1

	shift
	(cd "$src/src" && inroot gcc -O2 -g -std=gnu99 -DLUA_COMPAT_5_3 \
		-DLUA_USE_LINUX "$@" -o "$out" "${files[@]}" -lm -ldl)
}

build "$dir/lua-sframe" -fomit-frame-pointer -Wa,--gsframe
build "$dir/lua-fp" -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
inroot objcopy --remove-section=.sframe "$dir/lua-sframe" "$dir/lua-nosframe"

inroot readelf -lW "$dir/lua-sframe" | grep -q GNU_SFRAME ||
	die "lua-sframe has no PT_GNU_SFRAME"
if inroot readelf -SW "$dir/lua-nosframe" | grep -q '\.sframe'; then
	die "lua-nosframe still has .sframe"
fi
touch "$stamp"
