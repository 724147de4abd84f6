#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# glibc-startup.sh [RUNS] - what the registration of userspace/glibc, and
# the table lookup of its patch 0002, add to the start of a process that
# does nothing (main returns 0, as /bin/true) against the x86_64 glibc
# that pipeline/glibc.sh built, on the host's kernel (which has no SFrame
# registration: the probe fails, and a table found is not used).  Four
# settings, with GLIBC_TUNABLES strings of the same length:
#
#   off     glibc.rtld.sframe=0: no lookup, no prctl
#   nodir   a table directory without .build-id, as on a system without
#           tables: one failed open (the program's table) and one failed
#           stat (of DIR/.build-id), then no other lookup; the probe for
#           the C library's PT_GNU_SFRAME
#   empty   a table directory with .build-id but not these objects'
#           tables: one failed open per object (the program, ld.so,
#           libc.so.6), and the probe
#   tables  the directory holds the program's table (eh2sframe): it is
#           opened and checked, then the probe fails and nothing more is
#           looked up
#
# For each: the user-space instructions of one start (valgrind's lackey:
# the whole process, ld.so included), its system calls (strace -c), and
# the CPU time of one start, mean of RUNS (500 by default), by perf
# stat.  A measurement, not a check: the host runs other work, so time
# differences below a few percent are noise; instructions and system
# calls are exact.
# GLIBC_PREFIX=DIR measures another build of the glibc.

. "$(dirname "$0")/../lib/lib.sh"

runs=${1:-500}
[ "$runs" -ge 1 ] || die "usage: glibc-startup.sh [RUNS]"
prefix=${GLIBC_PREFIX:-$("$TOP/pipeline/glibc.sh" x86_64 --installed)} ||
	die "no glibc for x86_64: pipeline/glibc.sh x86_64"
command -v valgrind > /dev/null || host_install valgrind
command -v strace > /dev/null || host_install strace
command -v perf > /dev/null || host_install linux-perf

work=$(mktemp -d -p "$CACHE" glibc-startup.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo 'int main(void) { return 0; }' > "$work/true.c"
inroot gcc -O2 -Wl,--build-id \
	-Wl,--dynamic-linker="$prefix/lib/ld-linux-x86-64.so.2" \
	-Wl,-rpath,"$prefix/lib" -o "$work/true" "$work/true.c"
mkdir -p "$work/t0" "$work/t2/.build-id"
eh2sframe=$(eh2sframe_build all)/eh2sframe
inroot "$eh2sframe" -d "$work/t1" "$work/true" > /dev/null

declare -A tun=(
	[off]="glibc.rtld.sframe=0:glibc.rtld.sframe_table_dir=$work/t0"
	[nodir]="glibc.rtld.sframe=1:glibc.rtld.sframe_table_dir=$work/t0"
	[empty]="glibc.rtld.sframe=1:glibc.rtld.sframe_table_dir=$work/t2"
	[tables]="glibc.rtld.sframe=1:glibc.rtld.sframe_table_dir=$work/t1"
)

# cpu_us TUNABLES: the CPU time of one start (perf's task-clock of the
# process, ld.so and kernel included), mean of RUNS, in us.
cpu_us()
{
	GLIBC_TUNABLES=$1 perf stat -x, -r "$runs" -e task-clock "$work/true" \
		2>&1 | awk -F, '$3 ~ /^task-clock/ { printf "%.1f", $1 * 1000 }'
}

echo "start of a program that does nothing, glibc $(basename "$prefix"), kernel $(uname -r):"
printf '%-7s %12s %9s %8s %8s %9s\n' setting instructions syscalls opens prctl "cpu (us)"
for s in off nodir empty tables; do
	instr=$(GLIBC_TUNABLES=${tun[$s]} valgrind --tool=lackey "$work/true" 2>&1 |
		sed -n 's/.*guest instrs: *\([0-9,]*\)$/\1/p' | tr -d ,)
	# One line per system call: the exit is a line of "+++".
	GLIBC_TUNABLES=${tun[$s]} strace -o "$work/trace" "$work/true"
	calls=$(grep -vc '^+++ ' "$work/trace" || true)
	opens=$(grep -c '\.sframe"' "$work/trace" || true)
	# PR_ADD_SFRAME and PR_REMOVE_SFRAME (82, 83), by number or by name
	prctls=$(grep -Ec '^prctl\((0x5[23]|PR_(ADD|REMOVE)_SFRAME)' "$work/trace" || true)
	printf '%-7s %12s %9s %8s %8s %9s\n' "$s" "$instr" "$calls" "$opens" \
		"$prctls" "$(cpu_us "${tun[$s]}")"
done
