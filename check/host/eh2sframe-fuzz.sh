#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# userspace/eh2sframe's conversion under libFuzzer (its fuzz.c), with
# ASan and UBSan: the seeds are the .eh_frame sections of the corpus's
# executables and libraries (check/corpus.sh) of each architecture given,
# each after the byte that names its architecture.  The seeds are
# replayed, then fuzzed from for FUZZ_CHECK_TIME seconds (default 30).
# Any crash, sanitizer report, leak, input slower than 5 seconds or table
# that libsframe cannot decode fails; the input and the log are kept in
# $CACHE/fuzz-failures.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/lib/lib.sh"
. "$top/lib/libfuzzer.sh"

host_test_args "$@"

bin=$(eh2sframe_build fuzz)
corpus=$CACHE/corpus/out
"$top/check/corpus.sh" "$corpus" > /dev/null

work=$(mktemp -d -p "$CACHE" eh2sframe-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/seeds"

n=0
for arch in "${arches[@]}"; do
	arch_vars "$arch"
	byte=$(printf '\\%03o' "$FUZZ_ARCH")
	for f in "$corpus/${TRIPLET%%-*}"/*; do
		is_elf "$f" || continue
		inroot "${CROSS}objcopy" --dump-section .eh_frame="$work/eh" \
			"$f" "$work/stripped" 2> /dev/null || continue
		{ printf "$byte"; cat "$work/eh"; } > "$work/seeds/${arch}-${f##*/}"
		n=$((n + 1))
	done
done
[ "$n" -ge 4 ] || die "only $n seeds from the corpus"

libfuzzer_check eh2sframe "$bin/eh2sframe-fuzz" "${FUZZ_CHECK_TIME:-30}" \
	262144 "$work/seeds"
