#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's SFrame decoder under libFuzzer (tools/testing/sframe/fuzz.c),
# built twice: with ASan and UBSan, and with MSan, which reports the use
# of memory that nothing wrote (the decoder leaves its buffers out of
# CONFIG_INIT_STACK_ALL_ZERO).  Each replays every input of the committed
# corpus (fuzz/corpus.tar.xz, made by make fuzz FUZZ_UPDATE=1), then
# fuzzes from it: FUZZ_CHECK_TIME seconds (default 30) under ASan,
# FUZZ_MSAN_TIME (default 15) under MSan.  Any crash, sanitizer report,
# leak (ASan) or input slower than 5 seconds fails; the input and the log
# are kept in $CACHE/fuzz-failures.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/lib/lib.sh"

tree=${1:?usage: $0 TREE (the check tree, docs/check-tree.md)}
inroot make -s -C "$tree/tools/testing/sframe" sframe-fuzz sframe-fuzz-msan

work=$(mktemp -d -p "$CACHE" fuzztest.XXXXXX)
trap 'rm -rf "$work"' EXIT
# What fails is kept: the input, and the fuzzer's log.
keep=$CACHE/fuzz-failures
mkdir "$work/corpus"
tar -C "$work/corpus" -xJf "$top/fuzz/corpus.tar.xz"
n=$(ls "$work/corpus" | wc -l)
[ "$n" -ge 100 ] || die "the committed corpus has $n inputs"

# fuzz NAME SECONDS: replay the corpus with tools/testing/sframe/NAME, then
# fuzz from it for SECONDS.
fuzz()
{
	local bin=$tree/tools/testing/sframe/$1 log=$work/$1
	local opts=(-timeout=5 -max_len=65536 -artifact_prefix="$keep/$1-")

	mkdir -p "$log.new" "$keep"
	inroot "$bin" "${opts[@]}" -runs=0 "$work/corpus" > "$log.replay" 2>&1 ||
		{ tail -n 30 "$log.replay"; cp "$log.replay" "$keep/$1.log"
		  die "$1: replaying the corpus failed (see $keep)"; }
	echo "$1: replayed $n inputs: $(grep -o 'Done [0-9]* runs' "$log.replay")"

	inroot "$bin" "${opts[@]}" -max_total_time="$2" -print_final_stats=1 \
		"$log.new" "$work/corpus" > "$log.fuzz" 2>&1 ||
		{ grep -E 'ERROR|SUMMARY|runtime error|WARNING' "$log.fuzz" |
			head -n 20 || true
		  tail -n 30 "$log.fuzz"; cp "$log.fuzz" "$keep/$1.log"
		  die "$1: the fuzzer found a bug (see $keep)"; }
	echo "$1: fuzzed: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$log.fuzz"), no crash"
}

fuzz sframe-fuzz "${FUZZ_CHECK_TIME:-30}"
fuzz sframe-fuzz-msan "${FUZZ_MSAN_TIME:-15}"
