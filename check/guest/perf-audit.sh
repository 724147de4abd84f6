#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf, as a perf user runs it: a program built with -Wa,--gsframe and
# without frame pointers spends its time in a shared library built the
# same way; "perf record --call-graph fp,defer" under LD_AUDIT with the
# series' sframe-audit.so must give samples in the library whose user
# stack goes on through the library's frames into the program's main().
# Without the module, the library has no registered section and its
# frames are lost: the control, which shows that the module did it.
# The programs are built on the host (check/guest/Makefile).  Prints
# KTAP (lib/tap.sh), one case per check: each recording, the number of
# samples, the share of whole stacks with the module and without it.

set -u
# shellcheck source=lib/tap.sh
. "$(dirname "$0")/../../lib/tap.sh"
# shellcheck source=check/guest/lib/perf.sh
. "$(dirname "$0")/lib/perf.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
perf_setup perf-audit "$dir"
tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.
ktap_set_plan 5

# complete DATA: "REACHED SAMPLES" of the samples of DATA in work_spin():
# how many reach main(), as lib/ustacks.py's reaches() counts for the
# demo and the other tests.
complete()
{
	perf script --no-inline -i "$1" -F ip,sym,dso 2>"$1.err" |
		python3 -c '
import sys
sys.dont_write_bytecode = True  # nothing written to the shared tree
sys.path.insert(0, sys.argv[1])
import ustacks  # noqa: E402

spin = [(1, s.stack) for s in ustacks.perf_script(sys.stdin)
        if s.stack and s.stack[0].func == "work_spin"]
fig = ustacks.figures(spin, "main")
print(fig.reached, fig.samples)' "$(dirname "$0")/../../lib"
}

declare -A ok n
for mode in audit plain; do
	env=()
	[ $mode = audit ] && env=(LD_AUDIT="$audit")
	if env "${env[@]}" perf record -q -B -F 499 -e cpu-clock:u \
		--call-graph fp,defer -o "$dir/$mode.data" "$bin/prog" 3 \
		>/dev/null 2>&1; then
		tap_pass "perf record ($mode)"
	else
		# Nothing to count without the recording
		tap_fail "perf record ($mode)"
		ktap_finished
	fi
	read -r "ok[$mode]" "n[$mode]" < <(complete "$dir/$mode.data")
	[ "${n[$mode]}" -gt 0 ] || tail -n 5 "$dir/$mode.data.err" | sed 's/^/# /'
	echo "# $mode: ${ok[$mode]} of ${n[$mode]} samples in work_spin() reach main()"
done

# Sample counts under TCG vary; what matters is the share.
if [ "${n[audit]}" -ge 20 ]; then
	tap_pass "at least 20 samples in work_spin() with the module"
else
	tap_fail "at least 20 samples in work_spin() with the module"
fi
if [ $((ok[audit] * 100)) -ge $((n[audit] * 95)) ]; then
	tap_pass "with the module, 95% of the stacks reach main()"
else
	tap_fail "with the module, 95% of the stacks reach main()"
fi
# The control
if [ $((ok[plain] * 100)) -le $((n[plain] * 50)) ]; then
	tap_pass "without the module, at most half of the stacks reach main()"
else
	tap_fail "without the module, at most half of the stacks reach main()"
fi
# One of them, for the log.
perf script --no-inline -i "$dir/audit.data" -F ip,sym,dso 2>/dev/null |
	awk 'BEGIN { RS = "" } /^[ \t]*[0-9a-f]+ work_spin/ { print; exit }' |
	sed 's/^/# /'
ktap_finished
