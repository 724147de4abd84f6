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

# "make run_tests", unlike kselftest's installed runner (run_kselftest.sh),
# prints no KTAP header and plan, only each program's result: print them
# as that runner does, the plan counting the tests that "make install"
# would list for it (emit_tests).
ntests=$(make -s --no-print-directory -C "$tree/tools/testing/selftests/sframe" \
	OUTPUT="$kout/kselftest/sframe" COLLECTION=sframe emit_tests | grep -c '^sframe:')
echo "TAP version 13"
echo "1..$ntests"
make -C "$tree/tools/testing/selftests" TARGETS=sframe O="$kout" \
	KHDR_INCLUDES="-isystem $kout/usr/include" run_tests 2>&1
# run_tests reports failures in its TAP, not in its exit status.
echo "# selftests runner exit status $?"
# Keep what the selftests said even if a project test then hangs.
cp "$tmp" "$dest"

# The project tests are a KTAP document of their own: kselftest's ends
# with its plan.  The kernel log is checked last: it covers the other
# tests too.  Each project test gets at most PROJECT_TIMEOUT seconds, the
# stress test's time and a margin for the slowest guest.  PDEST is
# rewritten after each test: a guest that hangs still tells which ran.
PROJECT_TIMEOUT=$(( ${STRESS_TIME:-10} + 900 ))
tests=()
for t in "$TOP"/check/guest/*.sh; do
	[[ $t == */kernel-log-clean.sh ]] || [ ! -e "$t" ] || tests+=("$t")
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
	out=$(ARCH=$arch TREE=$tree KOUT=$kout timeout "$PROJECT_TIMEOUT" \
		bash "$t" 2>&1)
	rc=$?
	[ $rc != 124 ] || out+=$'\n'"timed out after $PROJECT_TIMEOUT s"
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
