#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tables attached to files, for programs that are already running: the
# guest root's own python3, bash and perl, not rebuilt and started with
# nothing that registers tables (no audit module, the root's own ld.so),
# each in a loop of chdir() calls.  Then one `perf record -a` of the
# whole guest, system-wide, as a profiler of a machine would take it:
# - before anything is attached (the control): the stock x86_64
#   programs keep no frame pointers, so not all of their chains can be
#   whole; the arm64 ones keep frame records, and are only reported;
# - after tools/sframe/sframe-attach attached the tables that
#   userspace/eh2sframe made from their .eh_frame
#   (pipeline/selftests.sh: $KOUT/guest-tests/sframe-tables) to the
#   files that the running processes map (sframe-attach -p): every
#   fp,defer chain must be whole, from the syscall to the program's
#   _start, and equal frame for frame to perf's own DWARF unwinding of
#   the same processes (stock-tables/compare.py), for the programs
#   started before the attach and for a python3 started after it;
# - then the other two consumers, on python3s started before the attach:
#   trace-cmd record -O userstacktrace_delay of the loop's chdir() calls
#   (reported by stock trace-cmd, named by ustack-symbolize), and
#   bpf-profile -p sampling a busy python3 for 3 s: their stacks reach
#   _start (stock-tables/reach.py: every trace-cmd stack, 90% of the
#   samples, as in stock-consumers.sh).
# The tables are detached at the end (sframe-attach -u -p), whatever
# happens: the tests after this one need processes without tables.
# Prints KTAP (lib/tap.sh), one case per check: that the loops started,
# each recording, on x86_64 each program's control, each program's
# chains with the attached tables, and each consumer's recording and
# stacks.

set -u
# shellcheck source=lib/tap.sh
. "$(dirname "$0")/../../lib/tap.sh"
src=$(cd "$(dirname "$0")/stock-tables" && pwd)
tables=$KOUT/guest-tests/sframe-tables
attach=$KOUT/kselftest/sframe/sframe-attach
symbolize=$(cd "$(dirname "$0")/../.." && pwd)/userspace/trace-cmd/ustack-symbolize
profile=$KOUT/guest-tests/bpf-profile/bpf-profile
command -v perf > /dev/null || { echo "no perf in the guest"; exit 1; }
command -v trace-cmd > /dev/null || { echo "no trace-cmd in the guest"; exit 1; }
[ -x "$profile" ] || { echo "$profile missing: pipeline/selftests.sh did not build it"; exit 1; }
mountpoint -q /sys/kernel/tracing ||
	mount -t tracefs nodev /sys/kernel/tracing ||
	{ echo "cannot mount tracefs"; exit 1; }
[ -x "$attach" ] || { echo "$attach missing: selftests not built"; exit 1; }
[ -d "$tables/.build-id" ] ||
	{ echo "$tables missing: pipeline/selftests.sh made no tables"; exit 1; }
dir=$(mktemp -d)
pids=()
# shellcheck disable=SC2317 # called by the trap
cleanup()
{
	# Detach while the loops still map their files, then stop them.
	"$attach" -u -p > /dev/null
	touch "$dir/go" "$dir/stop"
	[ ${#pids[@]} -eq 0 ] || sleep 1
	[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null
	[ ${#pids[@]} -eq 0 ] || wait "${pids[@]}" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
# perf without servers for debuginfod, as in the perf tests (lib/perf.sh)
export LD_LIBRARY_PATH=$KOUT/guest-tests/nodebuginfod
export PYTHONHASHSEED=0
tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.  The loops, the
# recordings before the attach, the control of three programs (x86_64
# only: arm64 reports it), the python3 started after the attach, the
# recordings after it, the chains of four programs, and two cases for
# each of the two other consumers.
if [ "$(uname -m)" = aarch64 ]; then
	ktap_set_plan 12
else
	ktap_set_plan 15
fi

# The loops: a chdir() every 20 ms until $dir/stop exists.  Each says
# when it loops (ready-NAME, NAME its first argument): a process that
# starts slowly must not leave a recording without its samples.
py='import os, sys, time
open("'$dir'/ready-" + sys.argv[1], "w").close()
while not os.path.exists("'$dir/stop'"):
    os.chdir("/")
    time.sleep(0.02)'
sh=': > "'$dir'/ready-$0"
while [ ! -e '$dir/stop' ]; do cd /; read -r -t 0.02 <> "'$dir/fifo'"; done'
# For bpf-profile, which samples CPU time: idle until $dir/go, then busy.
busy='import os, sys, time
open("'$dir'/ready-" + sys.argv[1], "w").close()
def square(n):
    return n * n
def work(n):
    return sum(square(i) for i in range(n))
while not os.path.exists("'$dir/go'") and not os.path.exists("'$dir/stop'"):
    time.sleep(0.05)
while not os.path.exists("'$dir/stop'"):
    work(1000)'
pl='open(my $f, ">", "'$dir'/ready-$ARGV[0]") and close($f);
until (-e "'$dir/stop'") { chdir "/"; select(undef, undef, undef, 0.02) }'
mkfifo "$dir/fifo"

# wait_ready NAME...: until each loop NAME runs, 300 s at the most
wait_ready()
{
	local name end=$((SECONDS + 300))

	for name in "$@"; do
		while [ ! -e "$dir/ready-$name" ]; do
			[ $SECONDS -lt $end ] ||
				{ echo "# $name did not start in 300 s"; return 1; }
			sleep 0.1
		done
	done
}

# The perf tools themselves must not be unwound with tables: they run
# without LD_AUDIT, from the root's ld.so, as the loops do.
env -u LD_LIBRARY_PATH python3 -c "$py" py & pids+=($!)
env -u LD_LIBRARY_PATH bash -c "$sh" sh & pids+=($!)
env -u LD_LIBRARY_PATH perl -e "$pl" pl & pids+=($!)
env -u LD_LIBRARY_PATH python3 -c "$busy" busy & pids+=($!)
py_pid=${pids[0]} busy_pid=${pids[3]}
# Nothing to record without them
if wait_ready py sh pl busy; then
	tap_pass "the python3, bash and perl loops start"
else
	tap_fail "the python3, bash and perl loops start"
	ktap_finished
fi

# record NAME CALL-GRAPH: one system-wide perf record of the chdir()
# calls, then perf script of each program's samples in NAME-COMM.txt.
record()
{
	local name=$1 cg=$2 comm

	# The processes exist before perf: it reads their maps at its start,
	# for 500 ms each by default, which a loaded debug kernel can exceed.
	perf record -q -a -e syscalls:sys_enter_chdir -m 2048 \
		--proc-map-timeout 30000 \
		--call-graph "$cg" -o "$dir/$name.data" -- sleep 3 \
		> "$dir/$name.out" 2>&1 ||
		{
			echo "# perf record of $name failed:"
			tail -n 5 "$dir/$name.out" | sed 's/^/#   /'
			return 1
		}
	for comm in python3 bash perl py-after; do
		perf script --no-inline -i "$dir/$name.data" --comms "$comm" \
			-F ip,sym,symoff,dso > "$dir/$name-$comm.txt" \
			2> "$dir/$name.err" ||
			{
				echo "# perf script of $name failed:"
				tail -n 5 "$dir/$name.err" | sed 's/^/#   /'
				return 1
			}
	done
	# A program without samples: say what the recording holds instead.
	for comm in python3 bash perl; do
		[ ! -s "$dir/$name-$comm.txt" ] || continue
		echo "# $name: no sample of $comm; samples per command, and perf's messages:"
		perf script -i "$dir/$name.data" -F comm,pid 2> /dev/null |
			sort | uniq -c | sed 's/^/#     /'
		sed 's/^/#     perf record: /' "$dir/$name.out"
		sed 's/^/#     perf script: /' "$dir/$name.err"
		break
	done
}

pac=()
# What compare.py asserts of the chains with the tables: with --pac,
# only that they are whole (agreement with DWARF is reported).
with="fp,defer chains whole, equal to DWARF's"
[ "$(uname -m)" != aarch64 ] ||
	{ pac=(--pac); with="fp,defer chains whole"; }
python_path=$(readlink -f "$(command -v python3)")
python=$(basename "$python_path")

# compare COMM PROGRAM TRACE: the chains of COMM with tables (fp-COMM)
# against DWARF (TRACE-COMM)
compare()
{
	echo "# $1 with attached tables, fp,defer against dwarf:"
	python3 "$src/compare.py" "${pac[@]}" "$2" 20 \
		"$dir/fp-$1.txt" "$dir/$3-$1.txt" 2>&1 | sed 's/^/# /'
	tap_status "$1 with attached tables: $with" "${PIPESTATUS[0]}"
}

# DWARF unwinding is perf's own: the same with tables or without.
# Nothing to compare without them.
if record control fp,defer && record dwarf dwarf; then
	tap_pass "perf record -a before the attach, fp,defer and DWARF"
else
	tap_fail "perf record -a before the attach, fp,defer and DWARF"
	ktap_finished
fi
echo "# without tables (the control):"
for comm in python3 bash perl; do
	prog=$comm
	[ "$comm" != python3 ] || prog=$python
	python3 "$src/compare.py" --control "$prog" 20 \
		"$dir/control-$comm.txt" "$dir/dwarf-$comm.txt" 2>&1 |
		sed 's/^/# /'
	st=${PIPESTATUS[0]}
	if [ "$(uname -m)" != aarch64 ]; then
		tap_status "$comm without tables (control): not every chain whole" "$st"
	elif [ "$st" != 0 ]; then
		echo "#   (arm64: not asserted, frame records reach _start)"
	fi
done

echo "# sframe-attach -p:"
"$attach" -d "$tables" -p 2>&1 | sed 's/^/#   /'
# The processes that exist now are unwound with the tables; so is a
# python3 started after the attach (py-after, its own name for perf).
ln -s "$(readlink -f "$(command -v python3)")" "$dir/py-after"
env -u LD_LIBRARY_PATH "$dir/py-after" -c "$py" after & pids+=($!)
# Nothing to record with it missing
if wait_ready after; then
	tap_pass "a python3 started after the attach starts"
else
	tap_fail "a python3 started after the attach starts"
	ktap_finished
fi
grep -h "$python\|libc.so" /sys/kernel/debug/sframe/attached 2>/dev/null |
	sed 's/^/#   attached: /'

# py-after did not run for the first DWARF record.  Nothing to compare
# without these.
if record fp fp,defer && record dwarf2 dwarf; then
	tap_pass "perf record -a after the attach, fp,defer and DWARF"
else
	tap_fail "perf record -a after the attach, fp,defer and DWARF"
	ktap_finished
fi
compare python3 "$python" dwarf
compare bash bash dwarf
compare perl perl dwarf
compare py-after "$python" dwarf2

# shellcheck source=check/guest/lib/trace-cmd.sh
. "$(dirname "$0")/lib/trace-cmd.sh"
echo "# trace-cmd, the python3 loop started before the attach:"
cat "/proc/$py_pid/maps" > "$dir/tc.maps"
tc=1
if tc_start "$dir/tc.dat" "$dir/tc.rec" syscalls:sys_enter_chdir > "$dir/tc.start"; then
	sed 's/^/#   /' "$dir/tc.start"
	sleep 3
	# shellcheck disable=SC2154 # set by tc_start
	kill -INT "$tc_pid"
	if wait "$tc_pid" &&
	   trace-cmd report -i "$dir/tc.dat" > "$dir/tc.txt" 2> "$dir/tc.err"; then
		tc=0
	else
		echo "#   trace-cmd failed:"
		tail -n 5 "$dir/tc.rec" "$dir/tc.err" | sed 's/^/#   /'
	fi
else
	sed 's/^/#   /' "$dir/tc.start"
fi
tap_status "trace-cmd records and reports the python3 loop's chdir() calls" $tc
# Nothing to count without the report
st=1
if [ $tc = 0 ]; then
	python3 "$symbolize" "$dir/tc.txt" > "$dir/tc.sym"
	python3 "$src/reach.py" "$python_path" 20 trace-cmd "$dir/tc.sym" \
		"$dir/tc.maps" "$py_pid" 2>&1 | sed 's/^/# /'
	st=${PIPESTATUS[0]}
fi
tap_status "trace-cmd: every stack of the python3 loop reaches _start" $st
echo "# bpf-profile -p, a busy python3 started before the attach:"
touch "$dir/go"
bp=1
if "$profile" -F 199 -p "$busy_pid" -d 3 -o "$dir/bp.txt" > "$dir/bp.out" 2>&1; then
	bp=0
	head -n 1 "$dir/bp.txt" | sed 's/^/#   /'
else
	echo "#   bpf-profile failed:"
	tail -n 5 "$dir/bp.out" | sed 's/^/#   /'
fi
tap_status "bpf-profile -p samples the busy python3" $bp
# Nothing to count without the samples
st=1
if [ $bp = 0 ]; then
	python3 "$src/reach.py" --share 90 "$python_path" 50 bpf-profile \
		"$dir/bp.txt" 2>&1 | sed 's/^/# /'
	st=${PIPESTATUS[0]}
fi
tap_status "bpf-profile: 90% of the busy python3's samples reach _start" $st
ktap_finished
