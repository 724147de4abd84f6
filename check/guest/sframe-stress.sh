#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile .sframe sections, registered with PR_ADD_SFRAME and unwound
# through by the deferred unwinder for STRESS_TIME seconds (default 10;
# make check-debug gives it longer): sframe-stress/stress.c.  The
# kernel-log-clean test, which runs after it, checks that the kernel
# never complained.  Prints KTAP (lib/tap.sh): its one check, the
# program's verdict (it fails if it could not register and unwind, if no
# deferred callchain arrived, or if the unchanged copies were refused),
# with what the program printed before it.

set -u
# shellcheck source=lib/tap.sh
. "$(dirname "$0")/../../lib/tap.sh"
prog=$KOUT/guest-tests/sframe-stress/stress
[ -x "$prog" ] || { echo "$prog missing: check/guest not built"; exit 1; }
tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.
ktap_set_plan 1
"$prog" "${STRESS_TIME:-10}" 2>&1 | sed 's/^/# /'
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || echo "# stress exited with status $rc"
if [ "$rc" = 0 ]; then
	tap_pass "hostile sections registered and unwound through"
else
	tap_fail "hostile sections registered and unwound through"
fi
ktap_finished
