#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-tests.sh ARCH TREE KOUT DEST PDEST - runs inside the test guest: the
# kernel's sframe selftests through kselftest's run_tests, whose KTAP goes to
# DEST, then the project's guest tests (check/guest/*.sh), whose KTAP goes
# to PDEST; check.sh counts the results (lib/ktap-results.py).  In
# PDEST, as in kselftest's, each test's output comes "# "-prefixed before
# its result line: its own KTAP, if it prints some, nests there.
# Runs with the guest's own tools only (no compiler in the arm64 guest):
# everything is built beforehand on the host.

set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
arch=$1
tree=$2
kout=$3
dest=$4
pdest=$5

# kselftest's runner writes each test's output to /dev/stdout, which
# virtme-ng links to its console port: point it at the real standard
# output.  Collect everything in the guest's tmpfs and copy it out at
# the end: the runner writes through a second, O_APPEND descriptor, and
# a file shared with the host lost lines that way when the shares were
# virtiofs (they are 9p now, check/guest/guest-rootfs.sh).
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
tmp=$(mktemp)
ptmp=$(mktemp)
exec 3>&1 > "$tmp" 2>&1
# The result lines also go to the console as they come, so that a guest
# that runs out of time shows how far it got.
tail --pid=$$ -q -n +1 -f "$tmp" "$ptmp" 2>/dev/null |
	grep --line-buffered -E '^(not )?ok |^# (guest|selftests runner)' >&3 &

echo "# guest: $(uname -r) $(uname -m)"
dmesg -n 1 2>/dev/null
# Log user processes killed by a signal, as x86_64 does by default:
# kernel-log-clean looks for them.
sysctl -qw debug.exception-trace=1 2>/dev/null ||
	echo "# guest: cannot set debug.exception-trace: signal deaths go unlogged"

# The time limits agree with the session's: GUEST_TIMEOUT is the limit
# after which the host kills the guest (check.sh's), counted from before
# the boot.  What is left of it is the budget of this script: that limit
# less the guest's uptime and a margin for starting QEMU and copying the
# results out.  The selftests get all of it but kernel-log-clean's
# reserve (each program is also bounded by its "settings" file, which
# make check-debug raises); each project test (below) at most
# PROJECT_TIMEOUT seconds
# (the stress test's time and a margin for the slowest guest), and
# never more than what is left once kernel-log-clean's LOG_RESERVE is
# set aside.  So a test that hangs fails alone: the tests after it and
# the kernel log are still counted.  A test that no time is left for
# fails as such, without running.  (Under QEMU's -icount the guest's
# clock is not the host's: measure/guest-speed.sh gives the host a
# margin of its own.)
PROJECT_TIMEOUT=$(( ${STRESS_TIME:-10} + 900 ))
LOG_RESERVE=60
budget=$(( ${GUEST_TIMEOUT:-$((PROJECT_TIMEOUT * 20))} - 60 -
	   $(cut -d. -f1 /proc/uptime) ))
[ "$budget" -gt 0 ] || budget=0
SECONDS=0

# "make run_tests", unlike kselftest's installed runner (run_kselftest.sh),
# prints no KTAP header and plan, only each program's result: print them
# as that runner does, the plan counting the tests that "make install"
# would list for it (emit_tests).
ntests=0
[ "${GUEST_KSELFTESTS:-1}" != 1 ] ||
ntests=$(make -s --no-print-directory -C "$tree/tools/testing/selftests/sframe" \
	OUTPUT="$kout/kselftest/sframe" COLLECTION=sframe emit_tests | grep -c '^sframe:')
echo "TAP version 13"
echo "1..$ntests"
if [ "${GUEST_KSELFTESTS:-1}" = 1 ]; then
	# Each program has the limit of its "settings" file as well.
	timeout -k 10 $((budget > LOG_RESERVE + 30 ? budget - LOG_RESERVE - 20 : 10)) \
	make -C "$tree/tools/testing/selftests" TARGETS=sframe O="$kout" \
		KHDR_INCLUDES="-isystem $kout/usr/include" run_tests 2>&1
	# run_tests reports failures in its TAP, not in its exit status.
	echo "# selftests runner exit status $?"
else
	echo "# selftests runner not run (GUEST_KSELFTESTS=0)"
fi
# Keep what the selftests said even if a project test then hangs.
cp "$tmp" "$dest"

# The project tests are a KTAP document of their own: kselftest's ends
# with its plan.  The kernel log is checked last: it covers the other
# tests too.  PDEST is rewritten after each test: a guest that hangs
# still tells which ran.  Their time limits: see GUEST_TIMEOUT above.
# GUEST_TESTS, a glob, runs only the project tests whose names match it
# (kernel-log-clean always runs); GUEST_KSELFTESTS=0 skips the kernel's
# selftests (both for a developer's run of one test: docs/tests.md).
tests=()
for t in "$TOP"/check/guest/*.sh; do
	name=$(basename "$t" .sh)
	# shellcheck disable=SC2053
	[[ $name == kernel-log-clean || $name != ${GUEST_TESTS:-*} ]] ||
		[ ! -e "$t" ] || tests+=("$t")
done
tests+=("$TOP/check/guest/kernel-log-clean.sh")
exec > "$ptmp" 2>&1
echo "TAP version 13"
echo "1..${#tests[@]}"
cp "$ptmp" "$pdest"
n=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	name=$(basename "$t" .sh)
	start=$SECONDS
	left=$((budget - SECONDS))
	[ "$name" = kernel-log-clean ] || left=$((left - LOG_RESERVE))
	limit=$(( left < PROJECT_TIMEOUT ? left : PROJECT_TIMEOUT ))
	if [ "$limit" -lt 10 ]; then
		echo "# no time left of the guest's $budget s (GUEST_TIMEOUT)"
		echo "not ok $n project: $name"
		cp "$ptmp" "$pdest"
		continue
	fi
	out=$(ARCH=$arch TREE=$tree KOUT=$kout timeout -k 10 "$limit" \
		bash "$t" 2>&1)
	rc=$?
	# 124: stopped at the limit; 137: killed 10 s after (or by another)
	if [ $rc = 124 ] || { [ $rc = 137 ] && [ $((SECONDS - start)) -ge "$limit" ]; }; then
		out+=$'\n'"timed out after $limit s (PROJECT_TIMEOUT $PROJECT_TIMEOUT, guest budget $budget s)"
	fi
	echo "$out" | sed 's/^/# /'
	# What each test costs the guest's time budget
	echo "# guest: $name took $((SECONDS - start)) s"
	case $rc in
	0) echo "ok $n project: $name" ;;
	4) echo "ok $n project: $name # SKIP $(echo "$out" | tail -n 1)" ;;
	*) echo "not ok $n project: $name" ;;
	esac
	cp "$ptmp" "$pdest"
done

exec >&3 2>&3
cat "$tmp" > "$dest" || { echo "cannot write $dest"; exit 1; }
cat "$ptmp" > "$pdest" || { echo "cannot write $pdest"; exit 1; }
