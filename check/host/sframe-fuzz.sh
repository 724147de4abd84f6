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
. "$top/lib/libfuzzer.sh"

tree=${1:?usage: $0 TREE (the check tree, docs/check-tree.md)}
inroot make -s -C "$tree/tools/testing/sframe" sframe-fuzz sframe-fuzz-msan

work=$(mktemp -d -p "$CACHE" fuzztest.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus"
tar -C "$work/corpus" -xJf "$top/fuzz/corpus.tar.xz"
n=$(ls "$work/corpus" | wc -l)
[ "$n" -ge 100 ] || die "the committed corpus has $n inputs"

bin=$tree/tools/testing/sframe
libfuzzer_check sframe-fuzz "$bin/sframe-fuzz" "${FUZZ_CHECK_TIME:-30}" \
	65536 "$work/corpus"
libfuzzer_check sframe-fuzz-msan "$bin/sframe-fuzz-msan" \
	"${FUZZ_MSAN_TIME:-15}" 65536 "$work/corpus"
