# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The pipeline's fixture tests (check/pipeline/*.sh) print KTAP with the
# kernel's own helpers (tools/testing/selftests/kselftest/ktap_helpers.sh
# of the check tree), which check.sh counts case by case.  Sourced, not
# run.

# tap_start TREE: the helpers of TREE, and the KTAP header.
tap_start()
{
	local helpers=$1/tools/testing/selftests/kselftest/ktap_helpers.sh

	[ -r "$helpers" ] || { echo "no $helpers: give the check tree" >&2; exit 1; }
	# shellcheck source=/dev/null
	. "$helpers"
	ktap_print_header
}

# is NAME EXPECTED ACTUAL: one result, and the difference on a failure.
# The helpers echo NAME unquoted: no globbing of its words.
is()
{
	set -f
	if [ "$2" = "$3" ]; then
		ktap_test_pass "$1"
	else
		ktap_test_fail "$1"
		diff <(echo "$2") <(echo "$3") | sed 's/^/#   /' || true
	fi
	set +f
}

# tap_done: the plan, which only the end knows, the totals, and the
# exit status: non-zero if a case failed.
tap_done()
{
	ktap_set_plan $((KTAP_TESTNO - 1))
	ktap_finished
}
