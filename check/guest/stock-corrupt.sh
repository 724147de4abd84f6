#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A table is untrusted input: the stock python3 of stock-tables.sh, with
# corrupt copies of its tables (stock-tables/corrupt.py), registered by
# the rtld-audit module and unwound by perf's fp,defer callchains at its
# chdir() calls.  The program must run on, to its end and its exit status
# 0, with its 8 samples, and the kernel must have noticed each
# corruption: with its dynamic debug messages on, it says "rejecting
# section" for each registration of a table whose header does not fit
# (kind "header": as many as the valid tables had registrations) and
# "dropping section" for the tables whose rules are garbage (kind
# "fres", found at the first lookup in each, or refused at registration
# by a kernel with CONFIG_SFRAME_VALIDATION).  That the kernel logged no
# warning, BUG or oops meanwhile is kernel-log-clean's part.  Prints
# KTAP (lib/tap.sh), one case per check: for each kind of table, that
# its copies were made, that python3 ran to its end with its samples,
# and what the kernel said of the tables.

set -u
# shellcheck source=lib/tap.sh
. "$(dirname "$0")/../../lib/tap.sh"
src=$(cd "$(dirname "$0")/stock-tables" && pwd)
tables=$KOUT/guest-tests/sframe-tables
so=$KOUT/kselftest/sframe/sframe-audit.so
control=/proc/dynamic_debug/control
command -v perf > /dev/null || { echo "no perf in the guest"; exit 1; }
[ -r "$so" ] || { echo "$so missing: selftests not built"; exit 1; }
[ -d "$tables/.build-id" ] ||
	{ echo "$tables missing: pipeline/selftests.sh made no tables"; exit 1; }
[ -w "$control" ] || { echo "no $control: the kernel has no CONFIG_DYNAMIC_DEBUG"; exit 1; }
dir=$(mktemp -d)
trap 'echo "file kernel/unwind/sframe* -p" > "$control"; rm -rf "$dir"' EXIT
cp "$so" "$dir/"
export LD_LIBRARY_PATH=$KOUT/guest-tests/nodebuginfod
echo "file kernel/unwind/sframe* +p" > "$control"
tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.
ktap_set_plan 8

py='import os
for i in range(8):
    os.chdir("/")
print("ran to its end")'

# snap NAME: the kernel log, as NAME.kmsg.  Every process that starts
# adds its vDSO's section, and grep its own: the log is therefore read
# once before a run and once after it, and searched only afterwards, so
# that no process of the counting lands between the two reads but the
# second dmesg, whose vDSO adds one to every run's "added".
snap()
{
	dmesg > "$dir/$1.kmsg"
}

# count NAME PATTERN: how many of the kernel messages logged after
# NAME.before.kmsg was taken and up to NAME.after.kmsg match PATTERN (an
# extended regular expression).  Its records start where the first read
# ended; lines carry their time, so the last line of the first read
# marks that place even once the 128 KiB log has dropped older lines.
count()
{
	last=$(tail -n 1 "$dir/$1.before.kmsg") awk -v re="$2" '
		$0 == ENVIRON["last"] { n = 0; next }
		$0 ~ re { n++ }
		END { print n + 0 }' "$dir/$1.after.kmsg"
}

# run NAME TABLES: python3 with the tables in TABLES, unwound by perf (which
# is not audited itself: only python3 registers tables).  Sets added,
# rejected and dropped: the kernel's messages about sections during the
# run.
run()
{
	local name=$1 t=$2 status out samples

	snap "$name.before"
	perf record -q -e syscalls:sys_enter_chdir --call-graph fp,defer \
		-o "$dir/$name.data" env SFRAME_TABLE_DIR="$t" \
		LD_AUDIT="$dir/sframe-audit.so" python3 -c "$py" \
		> "$dir/$name.out" 2>&1
	status=$?
	snap "$name.after"
	out=$(grep -c '^ran to its end$' "$dir/$name.out")
	added=$(count "$name" "added section")
	rejected=$(count "$name" "rejecting section")
	dropped=$(count "$name" "dropping section")
	samples=$(perf script -i "$dir/$name.data" -F ip 2>/dev/null |
		  awk 'BEGIN { RS = "" } END { print NR }')
	echo "#   $name: exit status $status, $samples samples; sections added" \
		"$added, rejected $rejected, dropped $dropped"
	if [ "$status" = 0 ] && [ "$out" = 1 ] && [ "$samples" = 8 ]; then
		tap_pass "$name: python3 runs to its end, with its 8 samples"
		return
	fi
	tail -n 5 "$dir/$name.out" | sed 's/^/#   /'
	tap_fail "$name: python3 runs to its end, with its 8 samples"
}

# corrupt KIND: corrupt copies of the tables, of KIND, in the directory KIND
corrupt()
{
	local out st

	out=$(python3 "$src/corrupt.py" "$1" "$tables" "$dir/$1" 2>&1)
	st=$?
	echo "$out" | sed 's/^/#   /'
	if [ $st = 0 ]; then
		tap_pass "$1: corrupt copies of the tables made"
	else
		tap_fail "$1: corrupt copies of the tables made"
	fi
}

echo "# python3 with its tables, then with corrupt copies:"
run valid "$tables"
valid=$added
if [ "$rejected" = 0 ] && [ "$dropped" = 0 ]; then
	tap_pass "valid: no table refused or dropped"
else
	tap_fail "valid: no table refused or dropped"
fi
# Each registration of a table must be refused: as many as were added.
corrupt header
run header "$dir/header"
if [ "$rejected" -lt 1 ] || [ "$rejected" != $((valid - added)) ]; then
	echo "#   $rejected rejected, expected the $((valid - added)) tables' registrations"
	tap_fail "header: each registration of a table rejected"
else
	tap_pass "header: each registration of a table rejected"
fi
# The tables are taken, and each one the walk looks into is dropped
# (refused at registration instead with CONFIG_SFRAME_VALIDATION).
corrupt fres
run fres "$dir/fres"
if [ $((dropped + rejected)) -lt 1 ]; then
	echo "#   no table dropped or rejected"
	tap_fail "fres: a table dropped or rejected"
else
	tap_pass "fres: a table dropped or rejected"
fi
[ "$KTAP_CNT_FAIL" = 0 ] || dmesg | grep "section" | tail -n 5 | sed 's/^/# /'
ktap_finished
