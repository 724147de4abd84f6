#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh DIR RATE ROUNDS MODES TCMODES PYROUNDS - the guest's part of
# make demo (demo/demo.sh runs it in the patched x86_64 kernel): the
# interpreters of DIR/lua running demo/workload.lua ROUNDS, or for the
# modes py-*, the guest's own python3 running demo/workload.py PYROUNDS,
# under perf record (for each of MODES), bpf-profile and trace-cmd record
# (for each of TCMODES), at RATE samples a second.  The recordings go to
# DIR, where the host makes the reports.

set -e
demo=${1:?usage: guest.sh DIR RATE ROUNDS MODES TCMODES PYROUNDS}
rate=${2:?}
rounds=${3:?}
modes=${4:?}
tcmodes=${5:?}
pyrounds=${6:?}
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
