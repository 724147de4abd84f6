#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest after the selftests and the other guest tests
# (check/guest-tests.sh runs it last): the kernel log must show no
# warning, bug, oops or sanitizer report, and no user process may have
# been killed by a fault, except for the known issues listed, each with
# its reason, in config/known-issues.  Bad user input may make the
# unwinder fall back; it must never make the kernel complain.  Prints
# KTAP (lib/tap.sh), one case per check: the reports, the user faults,
# and, on a kernel with kmemleak (make check-debug), the leaks.

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=lib/tap.sh
. "$top/lib/tap.sh"

# A kernel with kmemleak (make check-debug): scan now, report what leaked.
leaks=
kml=/sys/kernel/debug/kmemleak
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
if [ -e $kml ]; then
	echo scan > $kml && echo scan > $kml && leaks=$(cat $kml)
fi

log=$(dmesg 2>&1) || { echo "cannot read the kernel log"; exit 1; }
tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.  The reports and
# the user faults, and the leaks where there is kmemleak.
if [ -e $kml ]; then ktap_set_plan 3; else ktap_set_plan 2; fi
echo "# the kernel log: $(echo "$log" | wc -l) lines"

splats=$(echo "$log" | grep -E 'WARNING:|BUG:|Oops|Call Trace:|UBSAN:|KASAN:|kernel BUG|refcount_t:|RCU.*stall|INFO: task .* blocked|kmemleak: [0-9]+ new suspected|general protection fault,')
if [ -z "$splats" ]; then
	tap_pass "no warning, bug, oops or sanitizer report"
else
	echo "$splats" | sed 's/^/# /'
	# The whole of each report, so that a failure can be explained.
	echo "$log" | grep -A 60 -E 'WARNING:|BUG:|Oops|UBSAN:|KASAN:|kernel BUG|general protection fault,' |
		head -n 300 | sed 's/^/#   /'
	tap_fail "no warning, bug, oops or sanitizer report"
fi

# x86_64 reports a killed process as "traps: ..." or "segfault at",
# arm64 as "comm[pid]: unhandled ...".
faults=$(echo "$log" | grep -E 'traps: .*(general protection|trap|fault)|segfault at|\]: unhandled ')
known=$(grep -v '^#' "$top/config/known-issues" 2>/dev/null | grep -v '^$' | cut -f1)
unknown=$faults
if [ -n "$known" ] && [ -n "$faults" ]; then
	unknown=$(echo "$faults" | grep -v -E -f <(echo "$known") || true)
	echo "$faults" | grep -E -f <(echo "$known") | sed 's/^/# known issue: /'
fi
if [ -z "$unknown" ]; then
	tap_pass "no user process killed by a fault but the known issues"
else
	echo "$unknown" | sed 's/^/# /'
	tap_fail "no user process killed by a fault but the known issues"
fi

if [ -e $kml ]; then
	echo "# kmemleak: $(echo "$leaks" | grep -c 'unreferenced object') leaks"
	if [ -z "$leaks" ]; then
		tap_pass "kmemleak found no leak"
	else
		echo "$leaks" | head -n 60 | sed 's/^/# /'
		tap_fail "kmemleak found no leak"
	fi
fi
ktap_finished
