#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The other two consumers of deferred user stacks on a stock program:
# the guest root's own python3, not rebuilt, with the tables that
# userspace/eh2sframe made from its .eh_frame and its libraries'
# (pipeline/selftests.sh), registered by the selftests' rtld-audit
# module, as in stock-tables.sh, which compares perf's chains with DWARF.
# Here every stack must reach python3's _start (stock-tables/reach.py):
# - trace-cmd record -O userstacktrace_delay of the script's chdir()
#   calls, reported by stock trace-cmd once python3 has exited, and
#   named by userspace/trace-cmd/ustack-symbolize;
# - bpf-profile (userspace/bpf-profile), sampling a loop of the script;
# - trace-cmd again, python3 run by the dynamic linker of userspace/glibc
#   as a command, without the module: that ld.so looks the tables up
#   itself (glibc.rtld.sframe_table_dir).
# The control: the same runs with an empty table directory, where the
# stock x86_64 python3, which keeps no frame pointers, cannot be whole.
# The stock arm64 one keeps frame records, which reach _start without
# tables too: its control is only reported.  Prints KTAP (lib/tap.sh),
# one case per check: each of the five runs, whose output (reach.py's
# figures) goes out as diagnostics labelled with the run's name.

set -u
# shellcheck source=lib/tap.sh
. "$(dirname "$0")/../../lib/tap.sh"
src=$(cd "$(dirname "$0")/stock-tables" && pwd)
tables=$KOUT/guest-tests/sframe-tables
so=$KOUT/kselftest/sframe/sframe-audit.so
symbolize=$(cd "$(dirname "$0")/../.." && pwd)/userspace/trace-cmd/ustack-symbolize
profile=$KOUT/guest-tests/bpf-profile/bpf-profile
command -v trace-cmd > /dev/null || { echo "no trace-cmd in the guest"; exit 1; }
[ -r "$so" ] || { echo "$so missing: selftests not built"; exit 1; }
[ -x "$profile" ] || { echo "$profile missing: pipeline/selftests.sh did not build it"; exit 1; }
command -v eu-addr2line > /dev/null || { echo "no elfutils in the guest"; exit 1; }
[ -d "$tables/.build-id" ] ||
	{ echo "$tables missing: pipeline/selftests.sh made no tables"; exit 1; }
mountpoint -q /sys/kernel/tracing ||
	mount -t tracefs nodev /sys/kernel/tracing ||
	{ echo "cannot mount tracefs"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$so" "$profile" "$dir/"
mkdir "$dir/none"
python=$(readlink -f "$(command -v python3)")

# The script says who it is and where its objects are, for the report
# that is made after it has exited, then calls chdir() 8 times.
chdirs='import os
print("pid", os.getpid())
with open("/proc/self/maps") as f:
    print(f.read(), end="")
for i in range(8):
    os.chdir("/")'
# A loop for bpf-profile to sample, for 1.5 s of the process's CPU time
# (the clock bpf-profile samples by): about 300 samples at 199 Hz on any
# machine, where a fixed amount of work gave 35 on a fast one.
loop='import time
def square(n):
    return n * n
def work(n):
    return sum(square(i) for i in range(n))
end = time.process_time() + 1.5
while time.process_time() < end:
    work(1000)'

# How python3 is started: with the audit module and the tables, with the
# module and no tables, and by the dynamic linker of userspace/glibc,
# which looks the tables up itself (its patch 0002), as a command.
# trace_python and profile_python take the arrays by name, which is
# beyond what shellcheck follows.
# shellcheck disable=SC2034
with_module=(env SFRAME_TABLE_DIR="$tables" LD_AUDIT="$dir/sframe-audit.so" python3)
# shellcheck disable=SC2034
no_tables=(env SFRAME_TABLE_DIR="$dir/none" LD_AUDIT="$dir/sframe-audit.so" python3)
prefix=$(cat "$KOUT/guest-tests/glibc/prefix" 2>/dev/null)
ldso=("$prefix"/lib/ld-linux-*.so.[12])
# shellcheck disable=SC2034
by_ldso=(env GLIBC_TUNABLES=glibc.rtld.sframe_table_dir="$tables"
	"${ldso[0]}" --library-path "$prefix/lib:/usr/lib/$(uname -m)-linux-gnu"
	"$python")

# shellcheck source=check/guest/lib/trace-cmd.sh
. "$(dirname "$0")/lib/trace-cmd.sh"
tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.
ktap_set_plan 5

# ran LABEL COMMAND...: run COMMAND, its output labelled LABEL; its status
ran()
{
	local label=$1 st

	shift
	"$@" > "$dir/$label.log" 2>&1
	st=$?
	tap_labelled "$label" < "$dir/$label.log"
	return $st
}

# trace_python NAME HOW [reach.py's options]: trace the chdir() calls of
# python3, started as the array named HOW says
trace_python()
{
	local name=$1 pid
	local -n how=$2

	shift 2
	tc_start "$dir/$name.dat" "$dir/$name.rec" syscalls:sys_enter_chdir ||
		{ echo "$name: not recorded"; return 1; }
	"${how[@]}" -c "$chdirs" > "$dir/$name.maps"
	kill -INT "$tc_pid"
	wait "$tc_pid" ||
		{ echo "$name: trace-cmd record failed"; tail -n 5 "$dir/$name.rec"; return 1; }
	pid=$(sed -n 's/^pid //p' "$dir/$name.maps")
	[ -n "$pid" ] || { echo "$name: python3 said nothing"; return 1; }
	# The report is made after python3 has exited: stock trace-cmd
	# prints file offsets and inodes, ustack-symbolize names the files,
	# reach.py places the offsets with the maps python3 printed.
	trace-cmd report -i "$dir/$name.dat" > "$dir/$name.txt" 2> "$dir/$name.err" ||
		{ echo "$name: trace-cmd report failed"; tail -n 5 "$dir/$name.err"; return 1; }
	python3 "$symbolize" "$dir/$name.txt" > "$dir/$name.sym"
	python3 "$src/reach.py" "$@" "$python" 8 trace-cmd "$dir/$name.sym" \
		"$dir/$name.maps" "$pid"
}

# profile_python NAME HOW [reach.py's options]: sample the loop with
# bpf-profile
profile_python()
{
	local name=$1
	local -n how=$2

	shift 2
	"$dir/bpf-profile" -F 199 -o "$dir/$name.txt" \
		"${how[@]}" -c "$loop" > "$dir/$name.out" 2>&1 ||
		{ echo "$name: bpf-profile failed"; tail -n 5 "$dir/$name.out"; return 1; }
	head -n 1 "$dir/$name.txt"
	python3 "$src/reach.py" "$@" "$python" 50 bpf-profile "$dir/$name.txt"
}

# control RC: the control's verdict (reach.py's status).  The stock arm64
# python3's frame records take its stacks to _start without tables
# (status 2): only there is that not a failure.
control()
{
	[ "$1" = 0 ] && return 0
	[ "$1" = 2 ] && [ "$ARCH" = arm64 ] || return 1
	echo "# arm64: not asserted, frame records reach _start"
}

ran tc-tables trace_python tc-tables with_module
tap_status "trace-cmd, python3 with tables: every stack reaches _start" $?
# Without tables, not one of the x86_64 stacks may be whole.
ran tc-control trace_python tc-control no_tables --control --share 1
control $?
tap_status "trace-cmd, python3 without tables: under 1% whole (the control, arm64: only reported)" $?
if [ -n "$prefix" ] && [ -x "${ldso[0]}" ]; then
	ran tc-ldso trace_python tc-ldso by_ldso
	tap_status "trace-cmd, python3 run by the ld.so of userspace/glibc: every stack reaches _start" $?
else
	echo "# no glibc of userspace/glibc (pipeline/glibc.sh): not run by its ld.so"
	tap_fail "trace-cmd, python3 run by the ld.so of userspace/glibc: every stack reaches _start"
fi
# Not whole: samples of env, which execs python3, of ld.so before it has
# loaded the module, and in PLT stubs, whose CFI (a DWARF expression)
# the converter leaves out, as gas would: 90% must be.
ran bp-tables profile_python bp-tables with_module --share 90
tap_status "bpf-profile, python3 with tables: 90% of the stacks reach _start" $?
ran bp-control profile_python bp-control no_tables --control --share 10
control $?
tap_status "bpf-profile, python3 without tables: under 10% whole (the control, arm64: only reported)" $?
ktap_finished
