#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The ftracetest cases of the userstacktrace_delay option
# (tools/testing/selftests/ftrace/test.d/ftrace/userstacktrace-delay*.tc
# of the series), run by ftracetest itself, where the tracing maintainers
# run them.  Only these cases run: the other few hundred of ftracetest
# test ftrace itself, and under QEMU TCG would take longer than all of
# the project's tests.  Prints KTAP (lib/tap.sh) of one case, ftracetest,
# its verdict (its exit status), with its own KTAP "# "-prefixed before
# it, as kselftest's runner nests a program: check.sh counts each of its
# cases as "ARCH: ftracetest: CASE".

set -u
# shellcheck source=lib/tap.sh
. "$(dirname "$0")/../../lib/tap.sh"
ft=$TREE/tools/testing/selftests/ftrace
[ -x "$ft/ftracetest" ] || { echo "no ftracetest in $TREE"; exit 1; }
cases=("$ft"/test.d/ftrace/userstacktrace-delay*.tc)
[ -e "${cases[0]}" ] || { echo "no userstacktrace_delay cases in $ft"; exit 1; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
cd "$ft" || exit 1
tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.
ktap_set_plan 1
# A case that cannot run (its requirements missing) fails: the series
# provides every one of them.
./ftracetest -K --fail-unsupported --fail-unresolved -l "$logs" "${cases[@]}" 2>&1 |
	sed 's/^/# /'
rc=${PIPESTATUS[0]}
if [ "$rc" = 0 ]; then
	tap_pass ftracetest
else
	# A failed case's own log (ftracetest keeps only those), so that
	# the check log says why
	tail -n 40 "$logs"/*-log.* 2>&1 | sed 's/^/#   /'
	echo "# ftracetest exited with status $rc"
	tap_fail ftracetest
fi
ktap_finished
