# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The libFuzzer check of make check, for any target: sourced after
# lib/lib.sh by check/host/sframe-fuzz.sh and eh2sframe-fuzz.sh.

# libfuzzer_check NAME BIN SECONDS MAX_LEN INPUTS: replay every input in
# the directory INPUTS with the libFuzzer target BIN (run in the toolchain
# root), then fuzz from them for SECONDS; inputs up to MAX_LEN bytes.  A
# crash, a sanitizer report, a leak or an input slower than 5 seconds
# fails (die), and the input and the fuzzer's log are kept in
# $CACHE/fuzz-failures, named after NAME.  The inputs the fuzzing finds
# are thrown away: make fuzz grows the committed corpus.
libfuzzer_check()
{
	local name=$1 bin=$2 secs=$3 max_len=$4 inputs=$5
	local keep=$CACHE/fuzz-failures fwork n rc=0
	local opts=(-timeout=5 -max_len="$max_len"
		    -artifact_prefix="$keep/$name-")

	mkdir -p "$keep"
	fwork=$(mktemp -d -p "$CACHE" "libfuzzer-$name.XXXXXX")
	mkdir "$fwork/new"
	n=$(find "$inputs" -maxdepth 1 -type f | wc -l)
	if ! inroot "$bin" "${opts[@]}" -runs=0 "$inputs" \
		> "$fwork/replay.log" 2>&1; then
		tail -n 30 "$fwork/replay.log"
		cp "$fwork/replay.log" "$keep/$name-replay.log"
		rc=1
	else
		echo "$name: replayed $n inputs:" \
			"$(grep -o 'Done [0-9]* runs' "$fwork/replay.log")"
		inroot "$bin" "${opts[@]}" -max_total_time="$secs" \
			-print_final_stats=1 "$fwork/new" "$inputs" \
			> "$fwork/fuzz.log" 2>&1 || rc=2
	fi
	if [ "$rc" = 2 ]; then
		grep -E 'ERROR|SUMMARY|runtime error|WARNING' "$fwork/fuzz.log" |
			head -n 20 || true
		tail -n 30 "$fwork/fuzz.log"
		cp "$fwork/fuzz.log" "$keep/$name.log"
	elif [ "$rc" = 0 ]; then
		echo "$name: fuzzed:" \
			"$(grep -o 'Done [0-9]* runs in [0-9]* second(s)' \
				"$fwork/fuzz.log"), no crash"
	fi
	rm -rf "$fwork"
	case $rc in
	1) die "$name: replaying the $n inputs failed (see $keep)" ;;
	2) die "$name: the fuzzer found a bug (see $keep)" ;;
	esac
}
