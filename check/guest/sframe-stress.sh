#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile .sframe sections, registered with PR_ADD_SFRAME and unwound
# through by the deferred unwinder for STRESS_TIME seconds (default 10;
# make check-debug gives it longer): sframe-stress/stress.c.  The
# kernel-log-clean test, which runs after it, checks that the kernel
# never complained.

set -u
prog=$KOUT/guest-tests/sframe-stress/stress
[ -x "$prog" ] || { echo "$prog missing: check/guest not built"; exit 1; }
"$prog" "${STRESS_TIME:-10}"
