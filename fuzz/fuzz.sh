#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fuzz [FUZZ_TIME=SECONDS]: fuzz the kernel's SFrame decoder in user
# space for FUZZ_TIME seconds (default 600): tools/testing/sframe/fuzz.c,
# kernel/unwind/sframe_decode.c under libFuzzer, ASan and UBSan (clang of the
# toolchain root).
#
# The corpus grows in $CACHE/fuzz/corpus from the committed one
# (fuzz/corpus.tar.xz) and from seeds made of the .sframe sections
# of the selftest programs of both architectures, once check.sh has built
# them (fuzz/seeds.py).  A crash, a sanitizer report, a leak or an
# input that takes more than 5 seconds ends the run with a failure; the
# input is kept in out/fuzz/.  FUZZ_UPDATE=1 then writes the merged,
# minimized corpus back to fuzz/corpus.tar.xz.

. "$(dirname "$0")/../lib/lib.sh"

# FUZZ_TREE: a kernel tree of your own instead of base + patches/.
tree=$(realpath -m "${FUZZ_TREE:-$CACHE/trees/check}")
lock_check_tree "$tree"
time=${FUZZ_TIME:-600}
fz=$CACHE/fuzz
out=$OUT/fuzz
mkdir -p "$fz/corpus" "$out"

"$TOP/pipeline/toolchain.sh"
if [ -z "${FUZZ_TREE:-}" ]; then
	log "kernel tree: base + patches/"
	FORCE=1 "$TOP/pipeline/tree.sh" "$tree"
fi
tree=$(cd "$tree" && pwd)
log "building sframe-fuzz"
inroot make -s -C "$tree/tools/testing/sframe" sframe-fuzz
fuzz=$tree/tools/testing/sframe/sframe-fuzz

rm -rf "$fz/seeds"
mkdir -p "$fz/seeds"
tar -C "$fz/seeds" -xJf "$TOP/fuzz/corpus.tar.xz"
# fuzz/seeds.py reads the ELF files with pyelftools, from Debian.
host_install python3-pyelftools
for arch in "${ARCHES[@]}"; do
	arch_vars "$arch"
	/usr/bin/python3 "$TOP/fuzz/seeds.py" "$fz/seeds" "$arch" \
		"$ELF_MACHINE" "$FUZZ_ARCH" \
		"$(kbuild_dir "$arch" "$tree")"/kselftest/sframe/*
done

log "fuzzing for ${time}s; log: ${out#$TOP/}/fuzz.log"
rc=0
inroot "$fuzz" -max_total_time="$time" -timeout=5 -max_len=65536 \
	-print_final_stats=1 -artifact_prefix="$out/" \
	"$fz/corpus" "$fz/seeds" > "$out/fuzz.log" 2>&1 || rc=$?
grep -E '^(Done|stat::(number_of_executed_units|new_units_added|peak_rss_mb))' \
	"$out/fuzz.log" || true
if [ $rc -ne 0 ]; then
	grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$out/fuzz.log" | head -n 20
	die "the fuzzer found a bug (exit status $rc): see $out/fuzz.log"
fi

if [ "${FUZZ_UPDATE:-0}" = 1 ]; then
	log "merging the corpus into fuzz/corpus.tar.xz"
	rm -rf "$fz/min"
	mkdir -p "$fz/min"
	inroot "$fuzz" -merge=1 -max_len=65536 "$fz/min" "$fz/corpus" "$fz/seeds" \
		> "$out/merge.log" 2>&1
	tar -C "$fz/min" --sort=name --owner=0 --group=0 --mtime=@0 \
		-cJf "$TOP/fuzz/corpus.tar.xz" .
	log "$(ls "$fz/min" | wc -l) inputs"
fi
echo "no crash, hang, leak or sanitizer report"
