#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The series' tests of tools/testing/selftests/bpf, run by test_progs
# where the BPF maintainers run them, from the test_progs that
# pipeline/selftests-bpf.sh built with those tests only.  Each test and
# subtest that test_progs reports ("#N/M test/subtest:OK") becomes a KTAP
# case, counted by make check; test_progs' own output comes before them.
# A skipped one fails, as ftracetest.sh fails unsupported cases.

set -u
bin=$KOUT/selftests-bpf/out
[ -x "$bin/test_progs" ] ||
	{ echo "no test_progs in $bin: pipeline/selftests-bpf.sh did not build it"; exit 1; }
cd "$bin" || exit 1

out=$(./test_progs -t unwind_user_request 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'

# "#12/3    name/sub:OK", "#12       name:FAIL", "... :SKIP"
cases=$(echo "$out" | sed -nE 's/^#[0-9]+(\/[0-9]+)?[[:space:]]+([^[:space:]]+):(OK|FAIL|SKIP)$/\3 \2/p')
echo "TAP version 13"
echo "1..$(echo "$cases" | grep -c .)"
n=0
while read -r res name; do
	[ -n "$res" ] || continue
	n=$((n + 1))
	case $res in
	OK) echo "ok $n $name" ;;
	# The series provides all these tests need (the kfunc, BTF, the
	# kernel config): a skip means something is missing, and fails
	SKIP) echo "not ok $n $name # skipped: the series provides what it needs"
	      rc=1 ;;
	*) echo "not ok $n $name" ;;
	esac
done <<< "$cases"
# A run that reported no test at all failed, whatever it returned
[ $n -gt 0 ] || { echo "test_progs reported no test (exit status $rc)"; exit 1; }
exit $rc
