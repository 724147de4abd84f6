#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: what SFrame unwinding costs, measured; results in
# out/bench/results.md (bench/results.md is the committed copy).
#
#  1. per-frame cost of a deferred unwind, SFrame against frame pointers,
#     on the same stacks of one binary: a recursion of depths 8, 32 and
#     128, and a stack of distinct functions spread over four libraries,
#     with the per-task lookup cache warm and cold (bench/unwind-cost.c,
#     in the x86_64 and arm64 guests)
#  2. the decoder natively on the host: ns and instructions (callgrind)
#     per lookup for sections of 10 to 10^6 FDEs (bench/lookup-cost.c
#     linked with tools/testing/sframe's build of kernel/unwind/sframe_decode.c)
#  3. perf's overhead and data: the demo's Lua workload unprofiled and
#     under perf record in three modes (guest)
#  4. kernel memory per registered section (bench/sframe-mem.c, guest)
#
# Guest times are QEMU TCG times: only ratios taken in one run mean
# anything, and those are what is reported.

. "$(dirname "$0")/../lib/lib.sh"

# BENCH_TREE: a kernel tree of your own (e.g. build/linux) instead of
# base + patches/.
tree=${BENCH_TREE:-$CACHE/trees/check}
[ "$(realpath -m "$tree")" != "$(realpath -m "$CACHE/trees/check")" ] ||
	lock_check_tree
tree=$(cd "$tree" && pwd)
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
for a in x86_64 arm64; do
	log "$a kernel"
	"$TOP/pipeline/kernel.sh" $a "$tree"
done
log "workload: Lua from Debian's lua5.4 sources"
"$TOP/demo/workload.sh" "$OUT/demo/lua"

log "bench programs"
sel=$tree/tools/testing/selftests/sframe
python3 "$TOP/bench/spread-gen.py" "$bench"
# unwind-cost for ARCH into DIR: the program and the spread libraries,
# all with frame pointers and SFrame.
build_unwind_cost()
{
	local arch=$1 dir=$2 ko cc i
	local cflags=(-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
		      -Wa,--gsframe -I"$TOP/bench")

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
# its libraries with frame pointers and no SFrame, and with SFrame and no
# frame pointers, the libraries registered by the series' audit module.
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
inroot gcc -O2 -Wall -isystem "$kout/usr/include" -fPIC -shared \
	-o "$bench/sys/sframe-audit.so" "$tree/tools/sframe/sframe-audit.c"
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
lua=$OUT/demo/lua
w=$TOP/demo/workload.lua
rounds=${BENCH_ROUNDS:-300}
# The system-wide run: BENCH_PROCS processes for BENCH_SYS_SECONDS.
procs=${BENCH_PROCS:-50}
sys_secs=${BENCH_SYS_SECONDS:-20}
# tsc=reliable: a loaded host makes the guest's clocksource watchdog
# give up the TSC for jiffies, whose 4 ms would be all the resolution;
# the guest refuses to measure on anything but the TSC.
# The guest runs a script: a command line this long does not fit on the
# kernel command line, where virtme-ng passes it.
cat > "$bench/guest.sh" <<EOF
set -e
cd $bench
cs=\$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
[ "\$cs" = tsc ] || { echo "guest clock: \$cs, not tsc: times would be jiffies"; exit 1; }
sysctl -qw kernel.perf_event_max_stack=512
echo '== unwind-cost'
./unwind-cost 8 32 128 > unwind.txt
cat unwind.txt
./unwind-cost -s > spread.txt
cat spread.txt
echo '== sframe-mem'
for r in 1 2 3 4 5; do ./sframe-mem 2000; done > mem.txt
cat mem.txt
echo '== system-wide'
bash $TOP/bench/system-wide.sh $bench/sys $procs $sys_secs 32 > sys.txt
cat sys.txt
echo '== perf overhead'
cp $lua/lua-sframe $lua/lua-fp /tmp/
t()
{
	local s=\$(date +%s%N)
	"\$@" > /dev/null 2>&1
	echo \$(( (\$(date +%s%N) - s) / 1000000 ))
}
for r in 1 2 3; do
	echo "none-sframe \$(t /tmp/lua-sframe $w $rounds)"
	echo "none-fp \$(t /tmp/lua-fp $w $rounds)"
	for m in fp sframe; do
		echo "fpdefer-\$m \$(t perf record -q -F 999 -e cpu-clock:u --call-graph fp,defer -o /tmp/\$m.data /tmp/lua-\$m $w $rounds)"
	done
	echo "dwarf-sframe \$(t perf record -q -F 999 -e cpu-clock:u --call-graph dwarf -o /tmp/dwarf.data /tmp/lua-sframe $w $rounds)"
done > overhead.txt
for m in fp sframe dwarf; do
	n=\$(perf script -i /tmp/\$m.data -F ip 2>/dev/null | grep -c '^\$' || true)
	lost=\$(perf report -i /tmp/\$m.data --stats 2>/dev/null | awk '\$1 ~ /^LOST/ { s += \$3 } END { print s + 0 }')
	echo "data-\$m \$(stat -c %s /tmp/\$m.data) \$n \$lost"
done >> overhead.txt
cat overhead.txt
EOF
# Under a loaded host the guest's PIT calibration of the TSC can fail
# ("could not calculate TSC khz"), which leaves it on jiffies: give it
# the host's frequency, which is what TCG's TSC counts.
# "cpu MHz" is the host's current clock, close to its TSC rate: ns
# figures may be off by that much, ratios of one run are not.
khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
VM_APPEND="tsc=reliable${khz:+ tsc_early_khz=$khz}" "$TOP/pipeline/run.sh" x86_64 "$tree" 1800 \
	"bash $bench/guest.sh" > "$bench/guest.log" 2>&1 ||
	{ tail -n 30 "$bench/guest.log"; die "guest run failed"; }

log "unwind-cost in the arm64 guest"
cat > "$bench/arm64/guest.sh" <<EOF
set -e
cd $bench/arm64
sysctl -qw kernel.perf_event_max_stack=512
./unwind-cost 8 32 128 > unwind.txt
./unwind-cost -s > spread.txt
cat unwind.txt spread.txt
EOF
"$TOP/pipeline/run.sh" arm64 "$tree" 3600 "bash $bench/arm64/guest.sh" \
	> "$bench/arm64/guest.log" 2>&1 ||
	{ tail -n 30 "$bench/arm64/guest.log"; die "arm64 guest run failed"; }

"$TOP/bench/report.sh" "$bench" > "$bench/results.md"
cat "$bench/results.md"
echo
echo "Results: $bench/results.md (raw: $bench/*.txt, guest.log)"
