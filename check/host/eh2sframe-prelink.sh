#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A table of userspace/eh2sframe is named by its object's build-id, and
# must stay right when the object moves and keeps it: prelink rewrites a
# library to another link-time address and keeps its build-id, and so
# does a link with -Ttext-segment and a fixed --build-id.  The table's
# function starts are therefore relative to the object's lowest load
# address (the smallest p_vaddr of its PT_LOAD segments), not to its
# address 0.
#
# Per arch, a shared library and a non-PIE executable are each linked
# twice with the same --build-id and --gsframe, at their usual address
# (0; the executable at the linker's default) and at 0x10000000.  The
# two tables of each must be the same bytes, and each must agree with
# libdw's reading of the object it was made from (eh2sframe-oracle) and
# with gas's own .sframe of that object (eh2sframe-gas; a check of the
# conversion only: it places the table where the object's .sframe is,
# so it says nothing of the lowest load address).  The library's
# table at address 0 is checked against the library moved too: what a
# loader registers for the moved library is the table made before.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/lib/lib.sh"
. "$top/lib/tap.sh"

host_test_args "$@"
AWAY=0x10000000
BUILD_ID=0x5f7e1a6b0c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f

bin=$(eh2sframe_build all gas oracle)
work=$(mktemp -d -p "$CACHE" eh2sframe-prelink.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Functions with frames of different shapes; nothing from a C library,
# which the arm64 cross toolchain may not have.
cat > "$work/obj.c" <<'EOF'
extern void sink(void *);

__attribute__((noinline)) static int leaf(int n)
{
	return n * 3;
}

__attribute__((noinline)) int framed(int n)
{
	char buf[128];

	sink(buf);
	return leaf(n) + buf[n & 127];
}

__attribute__((noinline)) int dynamic(int n)
{
	char *p = __builtin_alloca(n);

	sink(p);
	return framed(n) + p[0];
}

void sink(void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

void _start(void)
{
	dynamic(16);
	for (;;)
		;
}
EOF

# link ARCH NAME KIND [LDFLAGS...]: the object NAME, a shared library
# (KIND so) or a non-PIE executable (KIND exec)
link()
{
	local arch=$1 name=$2 kind=$3 flags=()

	shift 3
	arch_vars "$arch"
	if [ "$kind" = so ]; then
		flags=(-shared -fPIC)
	else
		flags=(-no-pie -fno-pie -static)
	fi
	inroot "${CROSS}gcc" -O2 -fomit-frame-pointer -fasynchronous-unwind-tables \
		-Wa,--gsframe -nostdlib "${flags[@]}" \
		-Wl,--build-id="$BUILD_ID" "$@" -o "$work/$name" "$work/obj.c"
}

# lowest OBJECT: the lowest p_vaddr of its PT_LOAD segments
lowest()
{
	inroot readelf -lW "$1" | awk '$1 == "LOAD" { print $3 }' | sort | head -n 1
}

# table OBJECT: its table in OBJECT.sframe, its left-out list beside
table()
{
	inroot "$bin/eh2sframe" -v -o "$1.sframe" "$1" > /dev/null 2> "$1.left"
}

# oracle OBJECT TABLE: libdw's reading of OBJECT against TABLE
oracle()
{
	local line

	line=$(inroot "$bin/eh2sframe-oracle" "$1" "$2" "$1.left" 2>&1) || {
		echo "# ${1##*/} with ${2##*/}:"
		sed 's/^/#   /' <<< "$line" | head -n 8
		return 1
	}
	echo "# ${1##*/} with ${2##*/}: $(cut -d' ' -f2- <<< "$line")"
}

# gas OBJECT: eh2sframe-gas finds no mismatch with gas's .sframe
gas()
{
	local line

	line=$(inroot "$bin/eh2sframe-gas" "$1" 2>&1) || {
		echo "# ${1##*/}:"
		sed 's/^/#   /' <<< "$line" | head -n 8
		return 1
	}
	grep -q ' mismatch=0 ' <<< "$line" && grep -q ' pcs=[1-9]' <<< "$line"
}

tap_start "$tree"
for arch in "${arches[@]}"; do
	for kind in so exec; do
		near=$arch-$kind-near away=$arch-$kind-far
		if [ "$kind" = so ]; then
			link "$arch" "$near" so -Wl,-Ttext-segment=0
		else
			link "$arch" "$near" exec
		fi
		link "$arch" "$away" "$kind" -Wl,-Ttext-segment=$AWAY
		lo=$(lowest "$work/$near") la=$(lowest "$work/$away")
		echo "# $arch $kind: lowest load addresses $lo and $la"
		if [ "$((lo))" = "$((la))" ] || [ "$((la))" != "$((AWAY))" ]; then
			ktap_test_fail "$arch $kind: linked at two addresses ($lo, $la)"
			continue
		fi
		table "$work/$near"
		table "$work/$away"
		if [ -s "$work/$near.sframe" ] &&
		   cmp -s "$work/$near.sframe" "$work/$away.sframe"; then
			ktap_test_pass "$arch $kind: the table is the same bytes at $lo and at $la"
		else
			ktap_test_fail "$arch $kind: the table is the same bytes at $lo and at $la"
			cmp "$work/$near.sframe" "$work/$away.sframe" 2>&1 | sed 's/^/#   /' || true
		fi
		ok=1
		oracle "$work/$near" "$work/$near.sframe" || ok=0
		oracle "$work/$away" "$work/$away.sframe" || ok=0
		# What a loader finds by the build-id of the moved object
		oracle "$work/$away" "$work/$near.sframe" || ok=0
		if [ $ok = 1 ]; then
			ktap_test_pass "$arch $kind: the tables agree with libdw at both addresses"
		else
			ktap_test_fail "$arch $kind: the tables agree with libdw at both addresses"
		fi
		if gas "$work/$near" && gas "$work/$away"; then
			ktap_test_pass "$arch $kind: the tables agree with gas's .sframe at both addresses"
		else
			ktap_test_fail "$arch $kind: the tables agree with gas's .sframe at both addresses"
		fi
	done
done
tap_done
