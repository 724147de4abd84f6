# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the perf guest tests (not a test itself: guest-tests.sh runs
# check/guest/*.sh only).
#
# perf_setup PROGRAMS DIR: check that perf, the selftests' sframe-audit.so
# and $KOUT/guest-tests/PROGRAMS are there, and copy them into DIR on the
# guest's own file system: perf reads the binaries of a recording, and
# perf 7.2 has crashed reading them on the directory shared with the host
# (collecting build-ids on x86_64, hence perf record -B).  perf gets a
# libdebuginfod.so.1 without servers (check/guest/nodebuginfod): the real
# one's libcurl has crashed perf in the arm64 guest.  Sets bin, audit and
# LD_LIBRARY_PATH.
perf_setup()
{
	local from=$KOUT/guest-tests/$1 dir=$2
	local so=$KOUT/kselftest/sframe/sframe-audit.so

	command -v perf >/dev/null || { echo "no perf in the guest"; exit 1; }
	[ -r "$so" ] || { echo "$so missing: selftests not built"; exit 1; }
	[ -x "$from/prog" ] || { echo "$from/prog missing: check/guest not built"; exit 1; }
	cp -r "$from" "$dir/bin"
	cp "$so" "$dir/"
	cp -r "$KOUT/guest-tests/nodebuginfod" "$dir/"
	# shellcheck disable=SC2034 # for the test that sources this
	bin=$dir/bin
	# shellcheck disable=SC2034
	audit=$dir/sframe-audit.so
	export LD_LIBRARY_PATH=$dir/nodebuginfod
}
