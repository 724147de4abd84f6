#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: what SFrame unwinding costs, measured as bench/README.md
# describes.  Builds the bench programs and the Lua workload into
# out/bench/, runs the decoder on the host and the rest in a guest of each
# arch (bench/guest.sh: all of it on x86_64, unwind-cost on arm64),
# and makes out/bench/results.md of their raw results (bench/report.sh).
# A run on base + patches/ also writes it to bench/results.md, which is
# committed as the last run's results.

. "$(dirname "$0")/../lib/lib.sh"

# BENCH_TREE: a kernel tree of your own (e.g. build/linux) instead of
# base + patches/.
# Not cd: base + patches/ may not exist yet (pipeline/tree.sh makes it).
tree=$(realpath -m "${BENCH_TREE:-$CACHE/trees/check}")
lock_check_tree "$tree"
bench=$OUT/bench
kout=$(kbuild_dir x86_64 "$tree")
mkdir -p "$bench"
rm -f "$bench"/*.txt "$bench"/arm64/*.txt

log "toolchain"
"$TOP/pipeline/toolchain.sh"
if [ -z "${BENCH_TREE:-}" ]; then
	log "kernel tree: base + patches/"
	FORCE=1 "$TOP/pipeline/tree.sh" "$tree"
fi
for a in "${ARCHES[@]}"; do
	log "$a kernel"
	"$TOP/pipeline/kernel.sh" $a "$tree"
done
log "workload: Lua from Debian's lua5.4 sources"
lua=$bench/lua
"$TOP/demo/workload.sh" "$lua"

log "bench programs"
sel=$tree/tools/testing/selftests/sframe
python3 "$TOP/bench/spread-gen.py" "$bench"
# unwind-cost for ARCH into DIR: the program and the spread libraries,
# all with frame pointers and SFrame.
build_unwind_cost()
{
	local arch=$1 dir=$2 ko cc i
	local cflags=(-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
		      "-Wa,--gsframe" -I"$TOP/bench")

	ko=$(kbuild_dir "$arch" "$tree")
	arch_vars "$arch"
	cc=${CROSS}gcc
	[ -e "$ko/usr/include/linux/sframe.h" ] ||
		inroot make -s -C "$tree" O="$ko" ARCH=$KARCH headers_install
	mkdir -p "$dir"
	for i in 0 1 2 3; do
		inroot $cc "${cflags[@]}" -fPIC -shared -o "$dir/libspread$i.so" \
			"$bench/spread-lib$i.c"
	done
	inroot $cc "${cflags[@]}" -I"$sel" -I"$tree/tools/include" \
		-isystem "$ko/usr/include" -o "$dir/unwind-cost" \
		"$TOP/bench/unwind-cost.c" "$sel/callchain.c" \
		"$bench/spread-table.c" -L"$dir" -lspread0 -lspread1 \
		-lspread2 -lspread3 -Wl,-rpath,"$dir"
}
build_unwind_cost x86_64 "$bench"
build_unwind_cost arm64 "$bench/arm64"
# The processes of the system-wide run (bench/system-wide.sh): busy and
# its libraries with frame pointers and no SFrame, and twice with SFrame
# and no frame pointers: the libraries registered by the series' audit
# module, and (other files) their tables attached by sframe-attach.
build_busy()
{
	local dir=$1 i

	shift
	mkdir -p "$dir"
	for i in 0 1 2 3; do
		inroot gcc -O2 -g "$@" -I"$TOP/bench" -fPIC -shared \
			-o "$dir/libspread$i.so" "$bench/spread-lib$i.c"
	done
	inroot gcc -O2 -g "$@" -I"$TOP/bench" -o "$dir/busy" \
		"$TOP/bench/busy.c" "$bench/spread-table.c" -L"$dir" \
		-lspread0 -lspread1 -lspread2 -lspread3 -Wl,-rpath,"$dir"
}
build_busy "$bench/sys/fp" -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
build_busy "$bench/sys/sframe" -fomit-frame-pointer -Wa,--gsframe
# The same build again, other files: their tables are attached instead.
build_busy "$bench/sys/attached" -fomit-frame-pointer -Wa,--gsframe
# -B: the rules do not know the uapi headers.
inroot make -s -B -C "$tree/tools/sframe" OUTPUT="$bench/sys/" \
	KHDR_INCLUDES="-isystem $kout/usr/include"
hdr=(-I"$sel" -I"$tree/tools/include" -isystem "$kout/usr/include")
inroot gcc -O2 -Wa,--gsframe "${hdr[@]}" -o "$bench/sframe-mem" \
	"$TOP/bench/sframe-mem.c"

# 2. The decoder on the host, first: it needs no guest.
log "decoder lookups on the host (sections of 10 to 10^6 FDEs)"
st=$tree/tools/testing/sframe
inroot make -s -C "$st" decoder-x86.o
inroot gcc -O2 -g -I"$st" -o "$bench/lookup-cost" "$TOP/bench/lookup-cost.c" \
	"$st/decoder-x86.o" -lelf
for n in 10 1000 100000 1000000; do
	so=$bench/funcs-$n.so
	[ -e "$so" ] || {
		python3 - "$n" > "$bench/funcs.s" <<'PY'
import sys
# Functions of 12 bytes with a frame: four FREs each.
out = ["\t.text\n"]
for i in range(int(sys.argv[1])):
    out.append(".Lf%d:\n\t.cfi_startproc\n\tpush %%rbp\n"
               "\t.cfi_def_cfa_offset 16\n\t.cfi_offset 6, -16\n"
               "\tmov %%rsp, %%rbp\n\t.cfi_def_cfa_register 6\n"
               "\tsub $32, %%rsp\n\tnop\n\tnop\n\tleave\n"
               "\t.cfi_def_cfa 7, 8\n\tret\n\t.cfi_endproc\n" % i)
sys.stdout.write("".join(out))
PY
		inroot gcc -shared -nostdlib -Wa,--gsframe -o "$so" "$bench/funcs.s"
		rm -f "$bench/funcs.s"
	}
	inroot "$bench/lookup-cost" "$so" 2000000 | tee -a "$bench/lookup.txt"
	inroot valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		--toggle-collect=lookups "$bench/lookup-cost" "$so" 100000 \
		2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p' |
		awk -v n="$n" '{ printf "%s FDEs: %.0f instructions per lookup\n", n, $1 / 100000 }' |
		tee -a "$bench/callgrind.txt"
done

log "in the guest (QEMU TCG; several minutes)"
rounds=${BENCH_ROUNDS:-300}
# The system-wide run: BENCH_PROCS processes for BENCH_SYS_SECONDS.
procs=${BENCH_PROCS:-50}
sys_secs=${BENCH_SYS_SECONDS:-20}
# The guests measure on their arch's BENCH_CLOCKSOURCE only, which its
# BENCH_APPEND and BENCH_KHZ_PARAM keep (config/arch/x86_64.sh says
# why).  "cpu MHz" is the host's current clock, close to its TSC rate:
# ns figures may be off by that much, ratios of one run are not.
khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
# bench_append: the kernel parameters of the guest of the arch set last.
bench_append()
{
	echo "$BENCH_APPEND${BENCH_KHZ_PARAM:+${khz:+ $BENCH_KHZ_PARAM=$khz}}"
}
arch_vars x86_64
guestcmd=$(printf '%q ' bash "$TOP/bench/guest.sh" "$bench" "$BENCH_CLOCKSOURCE" \
	"$lua" "$rounds" "$procs" "$sys_secs")
VM_APPEND=$(bench_append) \
	"$TOP/pipeline/run.sh" x86_64 "$tree" 1800 "$guestcmd" > "$bench/guest.log" 2>&1 ||
	{ tail -n 30 "$bench/guest.log"; die "guest run failed"; }

log "unwind-cost in the arm64 guest"
arch_vars arm64
guestcmd=$(printf '%q ' bash "$TOP/bench/guest.sh" "$bench/arm64" "$BENCH_CLOCKSOURCE")
VM_APPEND=$(bench_append) "$TOP/pipeline/run.sh" arm64 "$tree" 3600 "$guestcmd" \
	> "$bench/arm64/guest.log" 2>&1 ||
	{ tail -n 30 "$bench/arm64/guest.log"; die "arm64 guest run failed"; }

# The kernel, for the results' provenance line.
if [ -z "${BENCH_TREE:-}" ]; then
	what="base + patches/"
else
	what="$BENCH_TREE at $(git -C "$tree" describe --always --dirty 2>/dev/null || echo '?')"
fi
echo "$(cat "$kout/include/config/kernel.release") ($what)" > "$bench/kernel.txt"
"$TOP/bench/report.sh" "$bench" > "$bench/results.md"
[ -n "${BENCH_TREE:-}" ] || cp "$bench/results.md" "$TOP/bench/results.md"
cat "$bench/results.md"
echo
echo "Results: $bench/results.md (raw: $bench/*.txt, guest.log)"
