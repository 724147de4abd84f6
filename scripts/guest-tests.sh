#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-tests.sh ARCH TREE KOUT DEST - runs inside the test guest: the kernel's
# sframe selftests through kselftest's run_tests, then the project's guest
# tests (tests/guest/*.sh).  Writes TAP to DEST; check.sh counts the
# results.
# Runs with the guest's own tools only (no compiler in the arm64 guest):
# everything is built beforehand on the host.

set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
arch=$1
tree=$2
kout=$3
dest=$4

# kselftest's runner writes each test's output to /dev/stdout, which
# virtme-ng links to its console port: point it at the real standard
# output.  Collect everything in the guest's tmpfs and copy it out at
# the end: the runner writes through a second, O_APPEND descriptor, and
# a file shared with the host over virtiofs would lose lines.
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
tmp=$(mktemp)
exec 3>&1 > "$tmp" 2>&1
# The result lines also go to the console as they come, so that a guest
# that runs out of time shows how far it got.
tail --pid=$$ -n +1 -f "$tmp" 2>/dev/null |
	grep --line-buffered -E '^(not )?ok |^# (guest|selftests exit)' >&3 &

echo "# guest: $(uname -r) $(uname -m)"
dmesg -n 1 2>/dev/null
# Log user processes killed by a signal, as x86_64 does by default:
# kernel-log-clean looks for them.
sysctl -qw debug.exception-trace=1 2>/dev/null

make -C "$tree/tools/testing/selftests" TARGETS=sframe O="$kout" \
	KHDR_INCLUDES="-isystem $kout/usr/include" run_tests 2>&1
echo "# selftests exit status $?"

# The kernel log is checked last: it covers the other tests too.
n=0
for t in $(ls "$TOP"/tests/guest/*.sh | grep -v /kernel-log-clean.sh) \
	 "$TOP/tests/guest/kernel-log-clean.sh"; do
	[ -e "$t" ] || continue
	n=$((n + 1))
	name=$(basename "$t" .sh)
	out=$(ARCH=$arch TREE=$tree KOUT=$kout bash "$t" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	case $rc in
	0) echo "ok $n project: $name" ;;
	4) echo "ok $n project: $name # SKIP $(echo "$out" | tail -n 1)" ;;
	*) echo "not ok $n project: $name" ;;
	esac
done

exec >&3 2>&3
cat "$tmp" > "$dest" || { echo "cannot write $dest"; exit 1; }
