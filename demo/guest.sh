#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh DIR RATE ROUNDS MODES TCMODES PYROUNDS SYSSECS - the guest's
# part of make demo (demo/demo.sh runs it in the patched x86_64 kernel):
# the interpreters of DIR/lua running demo/workload.lua ROUNDS, or for the
# modes py-*, the guest's own python3 running demo/workload.py PYROUNDS,
# under perf record (for each of MODES), bpf-profile and trace-cmd record
# (for each of TCMODES), at RATE samples a second; then the system-wide
# part: the guest's own programs running at once, recorded by perf record
# -a for SYSSECS seconds before and after sframe-attach attached their
# tables.  The recordings go to DIR, where the host makes the reports.

set -e
demo=${1:?usage: guest.sh DIR RATE ROUNDS MODES TCMODES PYROUNDS SYSSECS}
rate=${2:?}
rounds=${3:?}
modes=${4:?}
tcmodes=${5:?}
pyrounds=${6:?}
syssecs=${7:?}
workload=$(cd "$(dirname "$0")" && pwd)/workload.lua
pyworkload=$(cd "$(dirname "$0")" && pwd)/workload.py

cd "$demo"
# The real libdebuginfod's libcurl has crashed perf in the guests: this
# one has no servers (check/guest/nodebuginfod).
export LD_LIBRARY_PATH=$demo/guest/nodebuginfod
# perf writes to the guest's tmpfs: writing straight to the directory
# shared with the host fails with EFAULT.  -B: perf 7.2 crashes
# collecting build-ids of binaries on the shared directory; the host makes
# the reports, and the binaries are at the same paths there.
# Debian's python3 has no .sframe: its tables, and its libraries', are
# in DIR/guest/sframe-tables (made by the host with eh2sframe), which the
# rtld-audit module registers; an empty directory is the python3 of today.
mkdir -p /tmp/no-tables
for mode in $modes; do
	case $mode in
	sframe|dwarf)	cmd=("./lua/lua-sframe" "$workload" "$rounds") ;;
	py-tables)	cmd=(env SFRAME_TABLE_DIR="$demo/guest/sframe-tables"
			     LD_AUDIT="$demo/guest/sframe-audit.so"
			     python3 "$pyworkload" "$pyrounds") ;;
	py-none)	cmd=(env SFRAME_TABLE_DIR=/tmp/no-tables
			     LD_AUDIT="$demo/guest/sframe-audit.so"
			     python3 "$pyworkload" "$pyrounds") ;;
	py-dwarf)	cmd=(python3 "$pyworkload" "$pyrounds") ;;
	*)		cmd=("./lua/lua-$mode" "$workload" "$rounds") ;;
	esac
	cg=fp,defer
	[ "${mode#py-}" = dwarf ] && cg=dwarf
	echo "== $mode: ${cmd[*]}, --call-graph $cg"
	perf record -q -B -F "$rate" -e cpu-clock:u --call-graph "$cg" \
		-o "/tmp/perf-$mode.data" "${cmd[@]}"
	cat "/tmp/perf-$mode.data" > "perf-$mode.data"
done
for mode in $tcmodes; do
	echo "== bpf-profile: lua-$mode"
	guest/bpf-profile/bpf-profile -F "$rate" -o "/tmp/bpf-$mode.txt" \
		"./lua/lua-$mode" "$workload" "$rounds"
	cat "/tmp/bpf-$mode.txt" > "bpf-profile-$mode.txt"
done
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
# No -F: trace-cmd 3.4 with -F and --proc-map races with its own child,
# which asks to be traced (PTRACE_TRACEME) while trace-cmd attaches to it
# (PTRACE_ATTACH).  When the child wins, the attach fails ("Unable to
# trace process N children"), the child is never counted as the task
# whose exit ends the recording, and trace-cmd waits for its own recorders
# for ever.  Without -F the child does not ask, so trace-cmd's attach
# always succeeds; the event is filtered on the interpreter's name
# instead.  The timeout stays, in case trace-cmd stalls in another way:
# SIGINT after 15 minutes, which only a stall reaches, on a slow machine
# too; SIGKILL 10 seconds later, and the host reports the mode as stalled.
for mode in $tcmodes; do
	echo "== trace-cmd: lua-$mode"
	rm -f "/tmp/tc-$mode.dat"
	timeout -k 10 -s INT 900 trace-cmd record -q \
		-o "/tmp/tc-$mode.dat" -e sched:sched_stat_runtime \
		-f "comm == \"lua-$mode\"" -e inode_cache \
		-O userstacktrace_delay \
		"./lua/lua-$mode" "$workload" "$rounds" ||
		echo "trace-cmd exited with $?"
	cat "/tmp/tc-$mode.dat" > "trace-cmd-$mode.dat" || true
done

# The system-wide part.  The guest root's own programs, not rebuilt, all
# at once and started as a service manager would start them: no audit
# module, the root's own ld.so, nothing that registers a table.  Each
# runs until it is killed.  One perf record -a of the whole guest; then
# sframe-attach -p attaches, for every file that a running process maps,
# the table of its build ID that the host made with eh2sframe for the
# whole root (DIR/guest/root-tables), as a distribution would ship them;
# then the same recording again, of the same processes.
echo "== system-wide: python3, perl, bash, xz and mawk at once"
python=$(readlink -f "$(command -v python3)")
xz_input=()
for _ in $(seq 200); do
	xz_input+=("$python")
done
sys_pids=()
# stop_programs: kill the programs, whatever else happened.
# shellcheck disable=SC2317 # called by the trap
stop_programs()
{
	[ ${#sys_pids[@]} -eq 0 ] || kill "${sys_pids[@]}" 2> /dev/null || true
	wait 2> /dev/null || true
}
trap stop_programs EXIT
env -u LD_LIBRARY_PATH python3 "$pyworkload" 100000000 > /dev/null &
sys_pids+=($!)
env -u LD_LIBRARY_PATH perl -e 'while (1) { my @a = sort { $a <=> $b } map { rand } 1 .. 500; my %h = map { $_ => 1 } @a }' &
sys_pids+=($!)
# shellcheck disable=SC2016 # expanded by that bash
env -u LD_LIBRARY_PATH bash -c 'i=0; s=; while :; do i=$((i + 1)); s=${s:0:40}$i; done' &
sys_pids+=($!)
env -u LD_LIBRARY_PATH xz -6 -T1 -c "${xz_input[@]}" > /dev/null &
sys_pids+=($!)
env -u LD_LIBRARY_PATH mawk 'BEGIN { for (;;) { s = ""; for (i = 0; i < 200; i++) s = s sprintf("%x", i * 7); n += length(s) } }' &
sys_pids+=($!)
# Until each has had a second of CPU time: started, loaded and busy, on
# a slow machine too (300 s at the most).
end=$((SECONDS + 300))
for pid in "${sys_pids[@]}"; do
	until [ "$(awk '{ print $14 }' "/proc/$pid/stat" 2> /dev/null || echo 0)" -ge "$(getconf CLK_TCK)" ]; do
		kill -0 "$pid" 2> /dev/null || { echo "pid $pid exited at start"; exit 1; }
		[ $SECONDS -lt $end ] || { echo "pid $pid is not busy after 300 s"; exit 1; }
		sleep 0.2
	done
done
for mode in sys-none sys-tables; do
	if [ $mode = sys-tables ]; then
		echo "== sframe-attach -p: the tables of every running process's files"
		# 1: some tables refused (it says which), the others attached
		rc=0
		guest/sframe-attach -d "$demo/guest/root-tables" -p || rc=$?
		[ $rc -le 1 ] || { echo "sframe-attach failed ($rc)"; exit 1; }
	fi
	echo "== $mode: perf record -a for $syssecs s"
	perf record -q -B -a -F "$rate" -e cpu-clock:u --call-graph fp,defer \
		-o "/tmp/perf-$mode.data" -- sleep "$syssecs"
	cat "/tmp/perf-$mode.data" > "perf-$mode.data"
done
for pid in "${sys_pids[@]}"; do
	kill -0 "$pid" 2> /dev/null ||
		{ echo "a program of the system-wide part (pid $pid) exited early"; exit 1; }
done
guest/sframe-attach -u -p > /dev/null || true
