# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The host tests (check/host/*.sh, check/pipeline/*.sh), checkpatch.sh and
# bisect.sh print KTAP with the kernel's own helpers
# (tools/testing/selftests/kselftest/ktap_helpers.sh of the check tree),
# which check.sh and test.sh count case by case with lib/ktap-results.py
# (lib/results.sh).  Sourced, not run.

# tap_start TREE: the helpers of TREE, and the KTAP header.
tap_start()
{
	local helpers=$1/tools/testing/selftests/kselftest/ktap_helpers.sh

	[ -r "$helpers" ] || { echo "no $helpers: give the check tree" >&2; exit 1; }
	# shellcheck source=/dev/null
	. "$helpers"
	ktap_print_header
}

# tap_result pass|fail NAME: one result.  The helpers echo NAME unquoted:
# no globbing of its words (a commit subject may hold a *).  A "#" would
# end the name for kunit_parser, which takes what follows for a directive
# and then finds no result line: it is written "_" (a commit subject may
# hold "#PF").
tap_result()
{
	set -f
	ktap_test_"$1" "${2//#/_}"
	set +f
}

tap_pass()
{
	tap_result pass "$1"
}

tap_fail()
{
	tap_result fail "$1"
}

# tap_status NAME STATUS: one result, a pass if STATUS (a command's exit
# status) is 0.
tap_status()
{
	if [ "$2" = 0 ]; then
		tap_pass "$1"
	else
		tap_fail "$1"
	fi
}

# tap_labelled LABEL: standard input, the output of a run that is not a
# verdict of its own, as diagnostics labelled LABEL, without any KTAP
# version line: a version line, even after a label, would start a KTAP
# document that kunit_parser counts.
tap_labelled()
{
	grep -v 'TAP version' | sed "s/^/# $1: /"
}

# is NAME EXPECTED ACTUAL: one result, and the difference on a failure.
is()
{
	if [ "$2" = "$3" ]; then
		tap_pass "$1"
	else
		tap_fail "$1"
		diff <(echo "$2") <(echo "$3") | sed 's/^/#   /' || true
	fi
}

# tap_done: the plan, which only the end knows, the totals, and the
# exit status: non-zero if a case failed.
tap_done()
{
	ktap_set_plan $((KTAP_TESTNO - 1))
	ktap_finished
}
