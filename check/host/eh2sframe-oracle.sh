#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The oracle of userspace/eh2sframe: for objects that gas built with
# --gsframe, the table made from their .eh_frame must say what their own
# .sframe says at every PC that .sframe describes (eh2sframe-gas).  The
# objects: the executables and shared objects of the corpus of real code
# (check/corpus.sh), the selftest programs that check.sh built, and the
# project's glibc (pipeline/glibc.sh), for each architecture given.
#
# Differences that are not mismatches are counted apart, by class, and
# printed: PCs of functions the converter leaves out (by reason), and the
# four places where gas's or ld's table, not the CFI, is wrong (see
# gas_restore(), gas_stale_cfa(), gas_cut_word() and ld_plt_got() in
# gas.c).  The
# PCs of gas's flex and PC-mask FDEs are compared, and their bytes
# printed (flex_bytes, pcmask_bytes).  One case
# per architecture: it fails on any mismatch, on an object that cannot
# be compared, or when fewer than MIN_PCS PCs were compared.  On x86_64,
# a second: there must be flex and PC-mask FDEs, and none of their PCs
# may be missing from the converted tables (but for the functions the
# converter leaves out for their SP rule).

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/lib/lib.sh"
. "$top/lib/tap.sh"

host_test_args "$@"
MIN_PCS=1000000

bin=$(eh2sframe_build all gas)
corpus=$CACHE/corpus/out
"$top/check/corpus.sh" "$corpus"

# linked FILE...: those of the files that are ELF executables or shared
# objects (e_type 2 or 3); the corpus also has relocatable objects.
linked()
{
	local f

	for f in "$@"; do
		is_elf "$f" || continue
		case $(od -An -tu2 -j16 -N2 "$f" | tr -d ' ') in
		2 | 3) echo "$f" ;;
		esac
	done
}

tap_start "$tree"
for arch in "${arches[@]}"; do
	arch_vars "$arch"
	mapfile -t candidates < "$corpus/${TRIPLET%%-*}/files.txt"
	sel=$(kbuild_dir "$arch" "$tree")/kselftest/sframe
	[ -d "$sel" ] || die "no $arch selftests in $sel: run check.sh"
	# budget's deep_run() has 65535 FREs: libsframe's lookup of each of
	# its PCs scans them (see check/host/sframe-check.sh).  The hchain_*
	# programs have a .sframe corrupted on purpose (sframe_edit), which
	# libsframe, the oracle's reader, is not made to survive.
	for f in "$sel"/*; do
		case ${f##*/} in
		budget | hchain_*) ;;
		*) candidates+=("$f") ;;
		esac
	done
	mapfile -t files < <(linked "${candidates[@]}")
	if prefix=$("$top/pipeline/glibc.sh" "$arch" --installed 2>/dev/null); then
		files+=("$prefix/lib/libc.so.6" "$prefix/lib/libm.so.6"
			"$prefix/lib/$LDSO")
	else
		echo "# $arch: the project's glibc is not built: not compared"
	fi
	rc=0
	err=$OUT/eh2sframe-oracle-$arch.err
	mkdir -p "$OUT"
	out=$(inroot "$bin/eh2sframe-gas" "${files[@]}" 2> "$err") || rc=$?
	# The totals, by key, over all the objects
	totals=$(echo "$out" | tr ' ' '\n' | grep '=' | grep -v '^arch=' |
		awk -F= '{ t[$1] += $2 } END { for (k in t) print k "=" t[k] }' | sort)
	echo "# $arch: ${#files[@]} objects"
	echo "$totals" | sed 's/^/#   /'
	pcs=$(echo "$totals" | sed -n 's/^pcs=//p')
	bad=$(echo "$totals" | sed -n 's/^mismatch=//p')
	if [ $rc -eq 0 ] && [ "${bad:-1}" = 0 ] && [ "${pcs:-0}" -ge $MIN_PCS ]; then
		ktap_test_pass "$arch: converted tables equal gas's at ${pcs} PCs"
	else
		head -n 20 "$err" | sed 's/^/#   /'
		ktap_test_fail "$arch: converted tables equal gas's (status $rc, ${bad:-?} mismatches, ${pcs:-0} PCs)"
	fi
	# The shapes gas writes as flex and PC-mask FDEs are converted: the
	# corpus's DRAP functions (its -var builds), glibc's context
	# switches and every PLT are there, and none of the PCs of gas's
	# flex and PC-mask FDEs is missing from the converted tables, but
	# for those of functions whose caller's SP is not the CFA (glibc's
	# setcontext restores it from memory): gas ignores that rule, the
	# converter leaves them out (missing.sp-rule).
	if [ "$arch" = x86_64 ]; then
		flex=$(echo "$totals" | sed -n 's/^flex_bytes=//p')
		mask=$(echo "$totals" | sed -n 's/^pcmask_bytes=//p')
		gone=$(echo "$totals" | sed -n 's/^missing_\(flex\|pcmask\)=//p' |
			awk '{ t += $1 } END { print t + 0 }')
		if [ "${flex:-0}" -gt 0 ] && [ "${mask:-0}" -gt 0 ] && [ "$gone" = 0 ]; then
			ktap_test_pass "$arch: gas's flex (${flex} bytes) and PC-mask (${mask} bytes) functions converted"
		else
			ktap_test_fail "$arch: gas's flex (${flex:-0} bytes) and PC-mask (${mask:-0} bytes) functions converted ($gone of their PCs missing)"
		fi
	fi
done
tap_done
