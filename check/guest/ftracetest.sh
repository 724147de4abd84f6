#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The ftracetest cases of the userstacktrace_delay option
# (tools/testing/selftests/ftrace/test.d/ftrace/userstacktrace-delay*.tc
# of the series), run by ftracetest itself, where the tracing maintainers
# run them: its KTAP is passed on and counted case by case.  Only these
# cases run: the other few hundred of ftracetest test ftrace itself, and
# under QEMU TCG would take longer than all of the project's tests.

set -u
ft=$TREE/tools/testing/selftests/ftrace
[ -x "$ft/ftracetest" ] || { echo "no ftracetest in $TREE"; exit 1; }
cases=("$ft"/test.d/ftrace/userstacktrace-delay*.tc)
[ -e "${cases[0]}" ] || { echo "no userstacktrace_delay cases in $ft"; exit 1; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
cd "$ft" || exit 1
# A case that cannot run (its requirements missing) fails: the series
# provides every one of them.
./ftracetest -K --fail-unsupported --fail-unresolved -l "$logs" "${cases[@]}"
rc=$?
# A failed case's own log (ftracetest keeps only those), so that the
# check log says why
[ $rc = 0 ] || tail -n 40 "$logs"/*-log.*
exit $rc
