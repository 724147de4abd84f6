#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's SFrame decoder under libFuzzer, ASan and UBSan
# (tools/testing/sframe/fuzz.c): every input of the committed corpus
# (tests/fuzz/corpus.tar.xz, made by make fuzz FUZZ_UPDATE=1) once, then
# FUZZ_CHECK_TIME seconds (default 30) of fuzzing from it.  Any crash,
# sanitizer report, leak or input slower than 5 seconds fails.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/lib.sh"

tree=$CACHE/trees/check
inroot make -s -C "$tree/tools/testing/sframe" sframe-fuzz
fuzz=$tree/tools/testing/sframe/sframe-fuzz

work=$(mktemp -d -p "$CACHE" fuzztest.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus" "$work/new"
tar -C "$work/corpus" -xJf "$top/tests/fuzz/corpus.tar.xz"
n=$(ls "$work/corpus" | wc -l)
[ "$n" -ge 100 ] || die "the committed corpus has $n inputs"

opts=(-timeout=5 -max_len=65536 -artifact_prefix="$work/")
inroot "$fuzz" "${opts[@]}" -runs=0 "$work/corpus" > "$work/replay.log" 2>&1 ||
	{ tail -n 30 "$work/replay.log"; die "replaying the corpus failed"; }
echo "replayed $n inputs: $(grep -o 'Done [0-9]* runs' "$work/replay.log")"

inroot "$fuzz" "${opts[@]}" -max_total_time="${FUZZ_CHECK_TIME:-30}" \
	-print_final_stats=1 "$work/new" "$work/corpus" > "$work/fuzz.log" 2>&1 ||
	{ grep -E 'ERROR|SUMMARY|runtime error' "$work/fuzz.log" | head -n 20
	  tail -n 30 "$work/fuzz.log"; die "the fuzzer found a bug"; }
echo "fuzzed: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$work/fuzz.log"), no crash"
