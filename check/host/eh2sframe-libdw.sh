#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tables of userspace/eh2sframe against elfutils' reading of the same
# .eh_frame (eh2sframe-oracle, userspace/eh2sframe/oracle/), which owes
# nothing to gas or to the converter's CFI reader: at every row of every
# function converted, the CFA, RA and FP rules and the signal flag; and
# every FDE converted whole or left out with a reason.  The inputs are
# those gcc and gas did not all make:
#
# - C++ that throws and catches, and C with cleanups (-fexceptions), built
#   here from the sources below by g++/gcc and clang++/clang, at -O2 and
#   -O0, with a frame of more than 64 KiB, alloca (the CFA on the frame
#   pointer), a realigned stack (x86_64: DRAP, flex FDEs) and, on arm64,
#   signed return addresses;
# - the roots' libcrypto (OpenSSL's perlasm: hand-written assembly and
#   its CFI), C library (its string functions are hand-written assembly),
#   dynamic linker (x86_64: _dl_runtime_resolve's CFA on rbx, flex FDEs),
#   libstdc++ and libgcc_s: the toolchain root's for x86_64, the arm64
#   guest root's for arm64.
#
# Per arch, one case fails on any disagreement or FDE unaccounted for,
# and one on a coverage regression: more functions of an object left out,
# by reason, than eh2sframe-libdw.baseline has, or an object of it not
# built or found.  The objects built here
# are compared whatever their build-id; the roots' only where the
# build-id is the baseline's (a root made on another day from the same
# package list may hold another build: said, not compared).  Fewer left
# out prints a note: update the baseline with
# EH2SFRAME_BASELINE_UPDATE=1.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/lib/lib.sh"
. "$top/lib/tap.sh"

host_test_args "$@"
baseline=$top/check/host/eh2sframe-libdw.baseline

# EH2SFRAME_O=DIR: the converter built into DIR (lib/lib.sh)
bin=$(eh2sframe_build all oracle)
work=$(mktemp -d -p "$CACHE" eh2sframe-libdw.XXXXXX)
trap 'rm -rf "$work"' EXIT

# C++ exceptions, without headers: the arm64 cross toolchain has no
# libstdc++ to include.  The objects are shared and link nothing.
cat > "$work/eh.cc" <<'EOF'
struct failure { int code; };
extern "C" void sink(void *);

__attribute__((noinline)) static void thrower(int n)
{
	char buf[64];

	sink(buf);
	if (n > 3)
		throw failure{ n };
}

struct guard {
	int *p;
	~guard() { sink(p); }
};

__attribute__((noinline)) int with_cleanup(int n)
{
	int x = n;
	guard g{ &x };

	thrower(n);
	return x;
}

int catcher(int n)
{
	try {
		return with_cleanup(n);
	} catch (const failure &e) {
		return e.code;
	} catch (...) {
		return -1;
	}
}

__attribute__((noinline)) int dynamic(int n)
{
	char *p = static_cast<char *>(__builtin_alloca(n));

	sink(p);
	thrower(n);
	return p[0];
}

int big(int n)
{
	char b[70000];

	sink(b);
	try {
		thrower(n);
	} catch (int) {
		return 1;
	}
	return b[n];
}

int aligned(int n)
{
	alignas(64) char a[64];

	sink(a);
	thrower(n);
	return a[n & 63];
}
EOF
cat > "$work/cleanup.c" <<'EOF'
extern void sink(void *);
extern void may_throw(int);

static void release(int *p)
{
	sink(p);
}

int cleanup(int n)
{
	int __attribute__((cleanup(release))) x = n;

	may_throw(n);
	return x;
}

int dynamic(int n)
{
	char *p = __builtin_alloca(n);

	sink(p);
	may_throw(n);
	return p[0];
}

int big(int n)
{
	char b[70000];

	sink(b);
	may_throw(n);
	return b[n];
}

int aligned(int n)
{
	_Alignas(64) char a[64];

	sink(a);
	may_throw(n);
	return a[n & 63];
}

/* x86_64 gcc: realigned through DRAP (r10), the CFA read from the stack */
int dynamic_aligned(int n)
{
	_Alignas(64) char a[64];
	char *p = __builtin_alloca(n);

	sink(a);
	sink(p);
	may_throw(n);
	return a[n & 63] + p[0];
}
EOF

# build ARCH: the objects built here, one path a line
build()
{
	local arch=$1 gnu=() clang=() o opt

	arch_vars "$arch"
	if [ "$arch" = x86_64 ]; then
		clang=(--target=x86_64-linux-gnu)
	else
		clang=(--target=aarch64-linux-gnu "$BRANCH_PROTECTION")
		gnu=("$BRANCH_PROTECTION")
	fi
	for opt in O2 O0; do
		o=$work/$arch-cleanup-gcc-$opt.so
		inroot "${CROSS}gcc" "${gnu[@]}" -"$opt" -fexceptions -shared -fPIC \
			-nostdlib -o "$o" "$work/cleanup.c" >&2 && echo "$o"
		o=$work/$arch-cleanup-clang-$opt.so
		inroot clang "${clang[@]}" -"$opt" -fexceptions -shared -fPIC \
			-nostdlib -fuse-ld=bfd -o "$o" "$work/cleanup.c" >&2 && echo "$o"
		o=$work/$arch-eh-clang-$opt.so
		inroot clang++ "${clang[@]}" -"$opt" -shared -fPIC -nostdlib \
			-fuse-ld=bfd -o "$o" "$work/eh.cc" >&2 && echo "$o"
		# The arm64 cross compiler has no C++
		if [ "$arch" = x86_64 ]; then
			o=$work/$arch-eh-gcc-$opt.so
			inroot g++ -"$opt" -shared -fPIC -nostdlib -o "$o" \
				"$work/eh.cc" >&2 && echo "$o"
		fi
	done
	return 0
}

# The roots' objects of ARCH
from_root()
{
	local root lib f

	if [ "$1" = x86_64 ]; then
		root=$ROOT lib=usr/lib/x86_64-linux-gnu
	else
		root=$AROOT lib=usr/lib/aarch64-linux-gnu
	fi
	arch_vars "$1"
	for f in libc.so.6 "$LDSO" libcrypto.so.3 libstdc++.so.6 libgcc_s.so.1; do
		[ -e "$root/$lib/$f" ] && readlink -f "$root/$lib/$f"
	done
	return 0
}

build_id()
{
	inroot readelf -n "$1" 2>/dev/null | sed -n 's/.*Build ID: *//p' | head -n 1
}

# compare ARCH NAME BUILD-ID LINE: the oracle's counts of an object
# against the baseline's; prints "regression", "better", "other" or
# "missing", or nothing when equal.
compare()
{
	local arch=$1 name=$2 id=$3 line=$4 base bid

	base=$(awk -v a="$arch" -v n="$name" '$1 == a && $2 == n' "$baseline" 2>/dev/null)
	[ -n "$base" ] || { echo missing; return; }
	bid=$(awk '{ print $3 }' <<< "$base")
	if [ "$bid" != - ] && [ "$bid" != "$id" ]; then
		echo other
		return
	fi
	# Each reason's count, from both: "reason base got"
	join -a1 -a2 -e0 -o 0,1.2,2.2 \
		<(tr ' ' '\n' <<< "$base" | sed -n 's/^out\.\(.*\)=\(.*\)/\1 \2/p' | sort) \
		<(tr ' ' '\n' <<< "$line" | sed -n 's/^out\.\(.*\)=\(.*\)/\1 \2/p' | sort) |
		awk '$3 > $2 { r = 1 } $3 < $2 { b = 1 }
		     END { if (r) print "regression"; else if (b) print "better" }'
}

tap_start "$tree"
new=()
for arch in "${arches[@]}"; do
	mapfile -t objs < <(build "$arch"; from_root "$arch")
	bad=0 pcs=0 funcs=0 flex=0 pcmask=0 regress=0 unlisted=0 better=0 other=0
	for o in "${objs[@]}"; do
		name=${o##*/}
		name=${name#"$arch"-}
		id=$(build_id "$o")
		case $o in
		"$work"/*) bid=- ;;
		*) bid=${id:--} ;;
		esac
		rc=0
		inroot "$bin/eh2sframe" -v -o "$work/t.sframe" "$o" \
			> "$work/counts" 2> "$work/left-out" || rc=$?
		[ -e "$work/t.sframe" ] || : > "$work/t.sframe"
		line=$(inroot "$bin/eh2sframe-oracle" "$o" "$work/t.sframe" \
			"$work/left-out" 2> "$work/err") || rc=$?
		rm -f "$work/t.sframe"
		echo "# $arch $name: $(cut -d' ' -f2- <<< "$line")"
		if [ $rc -ne 0 ] || [ -z "$line" ]; then
			bad=$((bad + 1))
			sed 's/^/#   /' "$work/counts" "$work/err" | head -n 24
			continue
		fi
		pcs=$((pcs + $(sed -n 's/.* pcs=\([0-9]*\).*/\1/p' <<< "$line")))
		funcs=$((funcs + $(sed -n 's/.* functions=\([0-9]*\).*/\1/p' <<< "$line")))
		flex=$((flex + $(sed -n 's/.* flex=\([0-9]*\).*/\1/p' <<< "$line")))
		pcmask=$((pcmask + $(sed -n 's/.* pcmask=\([0-9]*\).*/\1/p' <<< "$line")))
		counts=$(tr ' ' '\n' <<< "$line" | grep -E '^(left_out|out\.)' | paste -sd' ')
		new+=("$arch $name $bid $counts")
		case $(compare "$arch" "$name" "$id" "$counts") in
		regression)
			regress=$((regress + 1))
			echo "#   more left out than the baseline's $(awk -v a="$arch" -v n="$name" \
				'$1 == a && $2 == n { $1 = $2 = $3 = ""; print }' "$baseline")" ;;
		missing)
			unlisted=$((unlisted + 1))
			echo "#   not in the baseline" ;;
		better)
			better=$((better + 1))
			echo "#   fewer left out than the baseline's: update it (EH2SFRAME_BASELINE_UPDATE=1)" ;;
		other)
			other=$((other + 1))
			echo "#   another build than the baseline's: not compared" ;;
		esac
	done
	# x86_64: gcc's DRAP functions (flex FDEs) and the PLTs (PC-mask
	# FDEs) were among them
	if [ $bad -eq 0 ] && [ "$funcs" -gt 0 ] &&
	   { [ "$arch" != x86_64 ] || [ $((flex * pcmask)) -gt 0 ]; }; then
		ktap_test_pass "$arch: tables agree with libdw at $pcs PCs of $funcs functions ($flex flex, $pcmask PC-mask) of ${#objs[@]} objects, every FDE accounted for"
	else
		ktap_test_fail "$arch: tables agree with libdw ($bad of ${#objs[@]} objects disagree or cannot be checked; $flex flex, $pcmask PC-mask functions)"
	fi
	# An object of the baseline that was not built or found
	absent=$(awk -v a="$arch" '$1 == a { print $2 }' "$baseline" |
		grep -v -x -F -f <(printf '%s\n' "${objs[@]##*/}" | sed "s/^$arch-//") |
		paste -sd' ' || true)
	[ -z "$absent" ] || echo "# $arch: in the baseline, not checked: $absent"
	if [ $regress -eq 0 ] && [ $unlisted -eq 0 ] && [ -z "$absent" ]; then
		ktap_test_pass "$arch: no more functions left out than the baseline ($better fewer, $other other builds)"
	else
		ktap_test_fail "$arch: no more functions left out than the baseline ($regress more, $unlisted not in it, $(wc -w <<< "$absent") of it not checked)"
	fi
done
if [ -n "${EH2SFRAME_BASELINE_UPDATE:-}" ]; then
	# The lines of the arches not run are kept
	{
		sed -n '/^#/p' "$baseline" 2>/dev/null
		grep -v '^#' "$baseline" 2>/dev/null |
			grep -v -w -F -f <(printf '%s\n' "${arches[@]}") || true
		printf '%s\n' "${new[@]}"
	} > "$baseline.tmp"
	mv "$baseline.tmp" "$baseline"
	echo "# wrote $baseline"
fi
tap_done
