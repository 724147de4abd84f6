#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A table is untrusted input: the stock python3 of stock-tables.sh, with
# corrupt copies of its tables (stock-tables/corrupt.py), registered by
# the rtld-audit module and unwound by perf's fp,defer callchains at its
# chdir() calls.  The program must run on, to its end and its exit status
# 0, and the kernel must have noticed each corruption: with its dynamic
# debug messages on, it says "rejecting section" for each table whose
# header does not fit (kind "header", refused at registration) and
# "dropping section" for each one whose rules are garbage (kind "fres",
# found at the first lookup, or refused at registration by a kernel with
# CONFIG_SFRAME_VALIDATION).  That the kernel logged no warning, BUG or
# oops meanwhile is kernel-log-clean's part.

set -u
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
trap 'echo "file kernel/unwind/sframe* -p" > $control; rm -rf "$dir"' EXIT
cp "$so" "$dir/"
export LD_LIBRARY_PATH=$KOUT/guest-tests/nodebuginfod
echo "file kernel/unwind/sframe* +p" > "$control"

py='import os
for i in range(8):
    os.chdir("/")
print("ran to its end")'

# run KIND MESSAGE: python3 with tables corrupted as KIND; the kernel
# must say MESSAGE (an extended regular expression) at least once
run()
{
	local kind=$1 message=$2 before said out status

	python3 "$src/corrupt.py" "$kind" "$tables" "$dir/$kind" || return 1
	before=$(dmesg | grep -cE "$message")
	SFRAME_TABLE_DIR=$dir/$kind LD_AUDIT=$dir/sframe-audit.so \
		perf record -q -e syscalls:sys_enter_chdir --call-graph fp,defer \
		-o "$dir/$kind.data" python3 -c "$py" > "$dir/$kind.out" 2>&1
	status=$?
	out=$(grep -c '^ran to its end$' "$dir/$kind.out")
	said=$(( $(dmesg | grep -cE "$message") - before ))
	echo "  $kind: exit status $status, \"$message\" $said times; samples:" \
		"$(perf script -i "$dir/$kind.data" -F ip 2>/dev/null |
		   awk 'BEGIN { RS = "" } END { print NR }')"
	[ "$status" = 0 ] && [ "$out" = 1 ] && [ "$said" -ge 1 ] && return 0
	tail -n 5 "$dir/$kind.out"
	dmesg | grep "kernel/unwind\|section" | tail -n 5
	return 1
}

rc=0
echo "python3 with corrupt tables:"
run header "rejecting section" || rc=1
run fres "(dropping|rejecting) section" || rc=1
exit $rc
