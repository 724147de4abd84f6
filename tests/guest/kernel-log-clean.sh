#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest after the selftests: the kernel log must show no
# warning, bug, oops or sanitizer report.  Bad user input may make the
# unwinder fall back; it must never make the kernel complain.

log=$(dmesg 2>&1) || { echo "cannot read the kernel log"; exit 1; }
bad=$(echo "$log" | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace:|UBSAN:|KASAN:|kernel BUG|refcount_t:|RCU.*stall|INFO: task .* blocked|leak' )
if [ -n "$bad" ]; then
	echo "$bad"
	echo "the kernel log has splats"
	exit 1
fi
echo "kernel log clean ($(echo "$log" | wc -l) lines)"
