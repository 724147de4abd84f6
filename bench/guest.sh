#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh DIR CLOCKSOURCE [LUA ROUNDS PROCS SECONDS] - a guest's part of
# make bench (bench/bench.sh runs it in each arch's guest): unwind-cost,
# built into DIR; with LUA (the x86_64 guest), also sframe-mem and the
# system-wide run (PROCS processes for SECONDS) from the programs built
# into DIR, then the interpreters of LUA running demo/workload.lua ROUNDS,
# unprofiled and under perf record.  The raw results go to DIR, for
# bench/report.sh.  CLOCKSOURCE is the arch's BENCH_CLOCKSOURCE
# (config/arch/ARCH.sh): the guest measures on nothing else.

set -e
bench=${1:?usage: guest.sh DIR CLOCKSOURCE [LUA ROUNDS PROCS SECONDS]}
clock=${2:?}
lua=${3:-}
top=$(cd "$(dirname "$0")/.." && pwd)
w=$top/demo/workload.lua

cd "$bench"
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
[ "$cs" = "$clock" ] ||
	{ echo "guest clock: $cs, not $clock: times would be jiffies"; exit 1; }
# unwind-cost asks for callchains of up to 500 frames, more than the
# default limit of 127.
sysctl -qw kernel.perf_event_max_stack=512
echo '== unwind-cost'
./unwind-cost 8 32 128 > unwind.txt
cat unwind.txt
./unwind-cost -s > spread.txt
cat spread.txt
[ -n "$lua" ] || exit 0

rounds=${4:?}
procs=${5:?}
sys_secs=${6:?}
echo '== sframe-mem'
for _ in 1 2 3 4 5; do ./sframe-mem 2000; done > mem.txt
cat mem.txt
echo '== system-wide'
bash "$top/bench/system-wide.sh" "$bench/sys" "$procs" "$sys_secs" 32 > sys.txt
cat sys.txt
echo '== perf overhead'
cp "$lua/lua-sframe" "$lua/lua-fp" /tmp/
# t COMMAND...: COMMAND's wall time in ms, its output dropped.
t()
{
	local s

	s=$(date +%s%N)
	"$@" > /dev/null 2>&1
	echo $(( ($(date +%s%N) - s) / 1000000 ))
}
for _ in 1 2 3; do
	echo "none-sframe $(t /tmp/lua-sframe "$w" "$rounds")"
	echo "none-fp $(t /tmp/lua-fp "$w" "$rounds")"
	for m in fp sframe; do
		echo "fpdefer-$m $(t perf record -q -F 999 -e cpu-clock:u --call-graph fp,defer -o "/tmp/$m.data" "/tmp/lua-$m" "$w" "$rounds")"
	done
	echo "dwarf-sframe $(t perf record -q -F 999 -e cpu-clock:u --call-graph dwarf -o /tmp/dwarf.data /tmp/lua-sframe "$w" "$rounds")"
done > overhead.txt
# The last run's recordings: their sizes, samples and lost samples.
for m in fp sframe dwarf; do
	n=$(perf script -i "/tmp/$m.data" -F ip 2>/dev/null | grep -c '^$' || true)
	lost=$(perf report -i "/tmp/$m.data" --stats 2>/dev/null | awk '$1 ~ /^LOST/ { s += $3 } END { print s + 0 }')
	echo "data-$m $(stat -c %s "/tmp/$m.data") $n $lost"
done >> overhead.txt
cat overhead.txt
