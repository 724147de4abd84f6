#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The dynamic linker as the registrar, with the glibc of userspace/glibc
# and without LD_AUDIT (glibc/registrar): the libraries mapped at start
# and by dlopen() are registered, dlclose() removes them, a library
# without .sframe costs no call, a kernel that refuses the registrations
# changes nothing for the program, nor does a seccomp filter that returns
# an error for the prctl() options, and glibc.rtld.sframe=0 turns it off.
# The table that eh2sframe made for a library without SFrame (patch 0002)
# is registered at dlopen() and removed and unmapped at dlclose(); a
# table truncated after it was registered does not kill the process when
# the kernel walks a stack through its library.
# The kernel under test has the series: a skipped case is a failure.
#
# Prints KTAP (lib/tap.sh), one case per check: the program's verdict
# (its exit status), as the case "registrar" with the program's KTAP
# "# "-prefixed before it, as kselftest's runner nests a program (check.sh
# counts each case of it as "ARCH: registrar: CASE"); that it skipped no
# case; and that its measurement of the start cost ran.

set -u
# shellcheck source=lib/tap.sh
. "$(dirname "$0")/../../lib/tap.sh"
prog=$KOUT/guest-tests/glibc/registrar
[ -x "$prog" ] || { echo "$prog missing: check/guest not built with GLIBC="; exit 1; }
# The program counts the prctl() calls of ld.so on their syscall
# tracepoints.
if ! mountpoint -q /sys/kernel/tracing; then
	mount -t tracefs nodev /sys/kernel/tracing ||
		{ echo "cannot mount tracefs"; exit 1; }
fi
tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.
ktap_set_plan 3
out=$("$prog" 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
if [ $rc = 0 ]; then
	tap_pass registrar
else
	echo "# registrar exited with status $rc"
	tap_fail registrar
fi
if echo "$out" | grep -q '^ok .* # SKIP'; then
	echo "# a case was skipped: this kernel has the series"
	tap_fail "registrar skips no case"
else
	tap_pass "registrar skips no case"
fi
# What registration adds to the start of a process: a measurement, for
# the record (userspace/glibc/README.md), not a verdict; but it must run.
cost=$("$prog" --start-cost 15)
rc=$?
echo "$cost" | sed 's/^/# /'
if [ $rc = 0 ]; then
	tap_pass "registrar measures the start cost"
else
	tap_fail "registrar measures the start cost"
fi
ktap_finished
