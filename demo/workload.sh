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
# The orig tarball is pinned by checksum (sid's lua5.4 5.4.9-2).  When the
# archive no longer has it, the newest lua5.4 orig tarball in sid is
# used, loudly, verified against the archive's Sources index.

. "$(dirname "$0")/../lib/lib.sh"

dir=${1:?usage: workload.sh DIR}
PIN_PATH=pool/main/l/lua5.4/lua5.4_5.4.9.orig.tar.gz
PIN_SHA=2335b6c582a52654f94612bf10d2f4672805d05329aa6568b1d8cd9e5c6fb8e6
SRC=$CACHE/src

mkdir -p "$SRC" "$dir"

# fetch PATH SHA256: download $MIRROR/PATH into $SRC unless present; verify.
fetch()
{
	local file=$SRC/${1##*/}

	if [ ! -e "$file" ]; then
		curl -fsS -m 600 -o "$file.part" "$MIRROR/$1" || {
			rm -f "$file.part"
			return 1
		}
		mv "$file.part" "$file"
	fi
	echo "$2  $file" | sha256sum -c --quiet - && return 0
	rm -f "$file"
	die "${1##*/}: sha256 mismatch"
}

# The newest lua5.4 orig tarball of sid: "path sha256".
newest()
{
	curl -fsS -m 120 "$MIRROR/dists/sid/main/source/Sources.xz" | xz -dc |
	python3 -c '
import re, sys
for para in sys.stdin.read().split("\n\n"):
    if re.search(r"^Package: lua5\.4$", para, re.M):
        d = re.search(r"^Directory: (\S+)", para, re.M).group(1)
        for sha, name in re.findall(r"^ ([0-9a-f]{64}) \d+ (lua5\.4_\S+\.orig\.tar\.gz)$", para, re.M):
            print(d + "/" + name, sha)
' | sort -V | tail -n 1
}

path=$PIN_PATH
if ! fetch "$PIN_PATH" "$PIN_SHA"; then
	read -r path sha < <(newest) || true
	[ -n "${path:-}" ] || die "no lua5.4 orig tarball in the archive"
	echo "WARNING: $PIN_PATH is gone from the archive; using $path" >&2
	fetch "$path" "$sha"
fi
tarball=$SRC/${path##*/}
echo "${path##*/}" > "$dir/SOURCE"

stamp=$dir/.built-$(cat "$tarball" "$0" | sha256sum | cut -c1-16)
[ -e "$stamp" ] && exit 0

src=$dir/src
rm -rf "$src" "$dir"/.built-*
mkdir -p "$src"
tar -xzf "$tarball" -C "$src" --strip-components=1

# lua.c is the interpreter's main(); luac.c is the compiler, not needed.
files=$(cd "$src/src" && ls ./*.c | grep -v -e '^./luac\.c$')
build()
{
	local out=$1

	shift
	(cd "$src/src" && inroot gcc -O2 -g -std=gnu99 -DLUA_COMPAT_5_3 \
		-DLUA_USE_LINUX "$@" -o "$out" $files -lm -ldl)
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
