#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh DIR RATE ROUNDS MODES TCMODES - the guest's part of make demo
# (demo/demo.sh runs it in the patched x86_64 kernel): the interpreters
# of DIR/lua running demo/workload.lua ROUNDS under perf record (for each
# of MODES), bpf-profile and trace-cmd record (for each of TCMODES), at
# RATE samples a second.  The recordings go to DIR, where the host makes
# the reports.

set -e
demo=${1:?usage: guest.sh DIR RATE ROUNDS MODES TCMODES}
rate=${2:?}
rounds=${3:?}
modes=${4:?}
tcmodes=${5:?}
workload=$(cd "$(dirname "$0")" && pwd)/workload.lua

cd "$demo"
# The real libdebuginfod's libcurl has crashed perf in the guests: this
# one has no servers (check/guest/nodebuginfod).
export LD_LIBRARY_PATH=$demo/guest/nodebuginfod
# perf writes to the guest's tmpfs: writing straight to the directory
# shared with the host fails with EFAULT.  -B: perf 7.2 crashes
# collecting build-ids of binaries on the shared directory; the host makes
# the reports, and the binaries are at the same paths there.
for mode in $modes; do
	case $mode in
	sframe|dwarf)	bin=lua-sframe ;;
	*)		bin=lua-$mode ;;
	esac
	cg=fp,defer
	[ "$mode" = dwarf ] && cg=dwarf
	echo "== $mode: $bin, --call-graph $cg"
	perf record -q -B -F "$rate" -e cpu-clock:u --call-graph "$cg" \
		-o "/tmp/perf-$mode.data" "./lua/$bin" "$workload" "$rounds"
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
# SIGINT after 5 minutes, SIGKILL 10 seconds later, and the host reports
# the mode as stalled.
for mode in $tcmodes; do
	echo "== trace-cmd: lua-$mode"
	rm -f "/tmp/tc-$mode.dat"
	timeout -k 10 -s INT 300 trace-cmd record -q --proc-map \
		-o "/tmp/tc-$mode.dat" -e sched:sched_stat_runtime \
		-f "comm == \"lua-$mode\"" -O userstacktrace_deferred \
		"./lua/lua-$mode" "$workload" "$rounds" ||
		echo "trace-cmd exited with $?"
	cat "/tmp/tc-$mode.dat" > "trace-cmd-$mode.dat" || true
done
