#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The series' tests of tools/testing/selftests/bpf, run by test_progs
# where the BPF maintainers run them, from the test_progs that
# pipeline/selftests-bpf.sh built with those tests only.  Prints KTAP
# (lib/tap.sh), test_progs' own output "# "-prefixed first: one case per
# test and subtest that test_progs reports ("#N/M test/subtest:OK"),
# counted by make check, then test_progs' exit status and that it
# reported a test at all.  A skipped one fails, as ftracetest.sh fails
# unsupported cases.

set -u
# shellcheck source=lib/tap.sh
. "$(dirname "$0")/../../lib/tap.sh"
bin=$KOUT/selftests-bpf/out
[ -x "$bin/test_progs" ] ||
	{ echo "no test_progs in $bin: pipeline/selftests-bpf.sh did not build it"; exit 1; }
cd "$bin" || exit 1

out=$(./test_progs -t unwind_user_request 2>&1)
rc=$?
# "#12/3    name/sub:OK", "#12       name:FAIL", "... :SKIP"
cases=$(echo "$out" | sed -nE 's/^#[0-9]+(\/[0-9]+)?[[:space:]]+([^[:space:]]+):(OK|FAIL|SKIP)$/\3 \2/p')
tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.
# Each test reported, then the exit status and the count
ktap_set_plan $(($(echo "$cases" | grep -c .) + 2))
echo "$out" | sed 's/^/# /'
n=0
while read -r res name; do
	[ -n "$res" ] || continue
	n=$((n + 1))
	case $res in
	OK) tap_pass "$name" ;;
	# The series provides all these tests need (the kfunc, BTF, the
	# kernel config): a skip means something is missing, and fails
	SKIP) echo "# $name skipped: the series provides what it needs"
	      tap_fail "$name" ;;
	*) tap_fail "$name" ;;
	esac
done <<< "$cases"
[ "$rc" = 0 ] || echo "# test_progs exited with status $rc"
if [ "$rc" = 0 ]; then
	tap_pass "test_progs exits 0"
else
	tap_fail "test_progs exits 0"
fi
# A run that reported no test at all failed, whatever it returned
if [ $n -gt 0 ]; then
	tap_pass "test_progs reports its tests"
else
	tap_fail "test_progs reports its tests"
fi
ktap_finished
