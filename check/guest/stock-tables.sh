#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stock programs, not rebuilt: the guest root's own python3, bash and perl
# and the libraries they load have .eh_frame and no .sframe; its cpio
# (x86_64) and make (arm64) have a .sframe section that describes their
# start-up code only, which the kernel registers at exec.  With the
# tables that userspace/eh2sframe made from their .eh_frame
# (pipeline/selftests.sh: $KOUT/guest-tests/sframe-tables), registered by
# the selftests' rtld-audit module (tools/sframe/sframe-audit.c), perf's
# fp,defer callchains at syscalls must equal perf's own DWARF unwinding of
# a second run, frame for frame, from the syscall to the program's
# _start (stock-tables/compare.py).  The events are syscalls the
# programs make only in their scripts: chdir(), and unlink() from the
# extension module.  The stock arm64 programs sign their
# return addresses (pointer authentication), which perf's DWARF unwinding
# prints signed, loses the symbols of, and may stop or lose its way
# after: there, every fp,defer chain must reach _start, and how many
# agree with DWARF once its PAC bits are cleared is reported.  They also
# keep frame records: their control chains reach _start too, short of
# the leaf's caller, and are only reported.  python3 makes its syscalls also from an
# extension module that it loads with dlopen() (_posixshmem's shm_open).
# The control: the same programs with an empty table directory, unwound
# with frame pointers, which the stock x86_64 programs do not keep: not
# all of their chains may be whole.  Last, what the tables cost python3's
# start-up, time and memory, is reported (stock-tables/startup.py).
# Prints KTAP (lib/tap.sh), one case per check: for each program, that
# its three runs were recorded, that its chains with the tables pass,
# and on x86_64 that its control's do not all; and that python3 started
# in each way the start-up report measures.

set -u
# shellcheck source=lib/tap.sh
. "$(dirname "$0")/../../lib/tap.sh"
src=$(cd "$(dirname "$0")/stock-tables" && pwd)
tables=$KOUT/guest-tests/sframe-tables
so=$KOUT/kselftest/sframe/sframe-audit.so
command -v perf > /dev/null || { echo "no perf in the guest"; exit 1; }
[ -r "$so" ] || { echo "$so missing: selftests not built"; exit 1; }
[ -d "$tables/.build-id" ] ||
	{ echo "$tables missing: pipeline/selftests.sh made no tables"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$so" "$dir/"
mkdir "$dir/none"
# perf without servers for debuginfod, as in the perf tests (lib/perf.sh)
export LD_LIBRARY_PATH=$KOUT/guest-tests/nodebuginfod
export PYTHONHASHSEED=0
mountpoint -q /dev/shm || mount -t tmpfs tmpfs /dev/shm
tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.  Four programs,
# with their recordings, their chains with the tables and (x86_64 only:
# arm64 reports it) their control; then python3's start-up.
if [ "$(uname -m)" = aarch64 ]; then
	ktap_set_plan 9
else
	ktap_set_plan 13
fi

# record NAME TABLES CALL-GRAPH EVENT PROGRAM...: perf script output in NAME.txt
record()
{
	local name=$1 dir_tables=$2 cg=$3 event=$4

	shift 4
	SFRAME_TABLE_DIR=$dir_tables LD_AUDIT=$dir/sframe-audit.so \
		setarch -R perf record -q -e "$event" -m 2048 --call-graph "$cg" \
		-o "$dir/$name.data" "$@" > "$dir/$name.out" 2>&1 ||
		{
			echo "# perf record of $name failed:"
			tail -n 5 "$dir/$name.out" | sed 's/^/#   /'
			return 1
		}
	perf script --no-inline -i "$dir/$name.data" -F ip,sym,symoff,dso \
		> "$dir/$name.txt" 2> "$dir/$name.err" ||
		{
			echo "# perf script of $name failed:"
			tail -n 5 "$dir/$name.err" | sed 's/^/#   /'
			return 1
		}
}

py='import os, _posixshmem
for i in range(8):
    os.close(_posixshmem.shm_open("/sframe-stock", os.O_CREAT | os.O_RDWR, 0o600))
    _posixshmem.shm_unlink("/sframe-stock")
    os.chdir("/")'
# glibc's unlink() is one of the two syscalls; arm64 has only unlinkat
unlink=syscalls:sys_enter_unlinkat
[ "$(uname -m)" = aarch64 ] || unlink+=,syscalls:sys_enter_unlink

# check [--through DSO N] NAME PROGRAM MIN EVENT COMMAND...: the tables,
# DWARF, the control; the cases are named after NAME (PROGRAM's file
# name may carry a version)
check()
{
	local through=()

	[ "$1" != --through ] || { through=("$1" "$2" "$3"); shift 3; }
	local name=$1 prog=$2 least=$3 event=$4 st

	shift 4
	if record "$prog-fp" "$tables" fp,defer "$event" "$@" &&
	   record "$prog-dwarf" "$tables" dwarf "$event" "$@" &&
	   record "$prog-control" "$dir/none" fp,defer "$event" "$@"; then
		tap_pass "$name: recorded with the tables, with DWARF, without tables"
	else
		tap_fail "$name: recorded with the tables, with DWARF, without tables"
		# Nothing to compare: its other cases fail with it.
		tap_fail "$name with tables: $with"
		[ "$(uname -m)" = aarch64 ] ||
			tap_fail "$name without tables (control): not every chain whole"
		return
	fi
	echo "# $prog with tables, fp,defer against dwarf:"
	# What each way costs in perf.data: the records beside the samples
	# (mmaps, comm, build-ids) are the same in both.
	echo "#   perf.data: fp,defer $(stat -c %s "$dir/$prog-fp.data") bytes," \
		"dwarf $(stat -c %s "$dir/$prog-dwarf.data") bytes," \
		"$(awk 'BEGIN { RS = "" } END { print NR }' "$dir/$prog-fp.txt") samples"
	python3 "$src/compare.py" "${through[@]}" "${pac[@]}" "$prog" "$least" \
		"$dir/$prog-fp.txt" "$dir/$prog-dwarf.txt" 2>&1 | sed 's/^/# /'
	tap_status "$name with tables: $with" "${PIPESTATUS[0]}"
	echo "# $prog without tables (the control):"
	python3 "$src/compare.py" --control "$prog" "$least" \
		"$dir/$prog-control.txt" "$dir/$prog-dwarf.txt" 2>&1 | sed 's/^/# /'
	st=${PIPESTATUS[0]}
	# Their own frame records take the arm64 programs to _start, but
	# miss the caller of a leaf function (the syscall's wrapper): with
	# the tables' mappings gone, the libraries also load elsewhere.
	if [ "$(uname -m)" = aarch64 ]; then
		[ "$st" = 0 ] ||
			echo "#   (arm64: not asserted, frame records reach _start)"
	else
		tap_status "$name without tables (control): not every chain whole" "$st"
	fi
}

pac=()
# What compare.py asserts of the chains with the tables: with --pac,
# only that they are whole (agreement with DWARF is reported).
with="fp,defer chains whole, equal to DWARF's"
[ "$(uname -m)" != aarch64 ] ||
	{ pac=(--pac); with="fp,defer chains whole"; }
mod=$(python3 -c 'import _posixshmem; print(_posixshmem.__file__)')
python=$(basename "$(readlink -f "$(command -v python3)")")
check --through "${mod##*/}" 8 python3 "$python" 16 \
	"syscalls:sys_enter_chdir,$unlink" python3 -c "$py"
check bash bash 8 'syscalls:sys_enter_chdir' \
	bash -c 'for i in 1 2 3 4 5 6 7 8; do cd /; done'
check perl perl 8 'syscalls:sys_enter_chdir' perl -e 'chdir "/" for 1 .. 8'
# A program whose own .sframe section describes only its start-up code,
# which the kernel registered at exec: the module must register the
# table instead.  Its control is that section alone.
if [ "$(uname -m)" = aarch64 ]; then
	check make make 8 'syscalls:sys_enter_chdir' sh -c \
		'for i in 1 2 3 4 5 6 7 8 9 10; do
			make -s -C / -f /dev/null --eval "all: ; @:" all || exit
		done'
else
	check cpio cpio 8 'syscalls:sys_enter_chdir' sh -c \
		'for i in 1 2 3 4 5 6 7 8 9 10; do
			cpio -o -D / < /dev/null > /dev/null 2>&1 || exit
		done'
fi
echo "# what registration costs python3 (reported):"
python3 "$src/startup.py" "$dir/sframe-audit.so" "$tables" "$dir/none" 5 2>&1 |
	sed 's/^/# /'
# The numbers are only reported; that each run worked is asserted.
tap_status "python3 starts without the module, with it, with the tables" \
	"${PIPESTATUS[0]}"
ktap_finished
