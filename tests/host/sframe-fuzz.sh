#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's SFrame decoder under libFuzzer (tools/testing/sframe/fuzz.c),
# built twice: with ASan and UBSan, and with MSan, which reports the use
# of memory that nothing wrote (the decoder leaves its buffers out of
# CONFIG_INIT_STACK_ALL_ZERO).  Each replays every input of the committed
# corpus (tests/fuzz/corpus.tar.xz, made by make fuzz FUZZ_UPDATE=1), then
# fuzzes from it: FUZZ_CHECK_TIME seconds (default 30) under ASan,
# FUZZ_MSAN_TIME (default 15) under MSan.  Any crash, sanitizer report,
# leak or input slower than 5 seconds fails.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/lib.sh"

tree=$CACHE/trees/check
inroot make -s -C "$tree/tools/testing/sframe" sframe-fuzz sframe-fuzz-msan

work=$(mktemp -d -p "$CACHE" fuzztest.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus"
tar -C "$work/corpus" -xJf "$top/tests/fuzz/corpus.tar.xz"
n=$(ls "$work/corpus" | wc -l)
[ "$n" -ge 100 ] || die "the committed corpus has $n inputs"

# fuzz NAME SECONDS: replay the corpus with tools/testing/sframe/NAME, then
# fuzz from it for SECONDS.
fuzz()
{
	local bin=$tree/tools/testing/sframe/$1 log=$work/$1
	local opts=(-timeout=5 -max_len=65536 -artifact_prefix="$work/")

	mkdir "$log.new"
	inroot "$bin" "${opts[@]}" -runs=0 "$work/corpus" > "$log.replay" 2>&1 ||
		{ tail -n 30 "$log.replay"; die "$1: replaying the corpus failed"; }
	echo "$1: replayed $n inputs: $(grep -o 'Done [0-9]* runs' "$log.replay")"

	inroot "$bin" "${opts[@]}" -max_total_time="$2" -print_final_stats=1 \
		"$log.new" "$work/corpus" > "$log.fuzz" 2>&1 ||
		{ grep -E 'ERROR|SUMMARY|runtime error|WARNING' "$log.fuzz" | head -n 20
		  tail -n 30 "$log.fuzz"; die "$1: the fuzzer found a bug"; }
	echo "$1: fuzzed: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$log.fuzz"), no crash"
}

fuzz sframe-fuzz "${FUZZ_CHECK_TIME:-30}"
fuzz sframe-fuzz-msan "${FUZZ_MSAN_TIME:-15}"
