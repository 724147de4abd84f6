#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf probe, as a tracing user runs it: uprobes and a uretprobe on the
# functions of check/guest/perf-probe/prog.c, recorded with
# "perf record --call-graph fp,defer", must give every sample its whole
# call chain in perf script, up to main().
#
# The program built with SFrame and without frame pointers is probed at
# the first instruction of baz() and foo9(), leaves at the end of the
# chains main -> foo -> bar -> baz and main -> foo0 -> ... -> foo9, and
# at baz()'s return.  The program built with frame pointers is probed at
# the first instruction of bar() and foo8(), and at bar()'s return: a
# frame pointer walk cannot find the caller of a leaf without a frame,
# which is what gcc makes of baz() and foo9() on x86_64.
#
# Prints KTAP (lib/tap.sh), one case per check: each build's probes and
# recording, and each probe's samples and their stacks.

set -u
# shellcheck source=lib/tap.sh
. "$(dirname "$0")/../../lib/tap.sh"
# shellcheck source=check/guest/lib/perf.sh
. "$(dirname "$0")/lib/perf.sh"
dir=$(mktemp -d)
trap 'perf probe -q -d "probe_prog:*" >/dev/null 2>&1; rm -rf "$dir"' EXIT
perf_setup perf-probe "$dir"

if ! mountpoint -q /sys/kernel/tracing; then
	mount -t tracefs nodev /sys/kernel/tracing ||
		{ echo "cannot mount tracefs"; exit 1; }
fi
tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.
ktap_set_plan 8

# One line per sample of FILE: the event, then the functions of its stack.
stacks()
{
	perf script -i "$1" -F event,ip,sym 2>"$1.err" | awk '
		function flush() { if (ev != "") print ev st; ev = ""; st = "" }
		/^[ \t]*$/ { flush(); next }
		ev == "" { ev = $1; sub(/:$/, "", ev); next }
		{ st = st " " $2 }
		END { flush() }'
}

# check VARIANT FILE EVENT STACK: all 5 samples of EVENT have STACK,
# then main.
check()
{
	local variant=$1 file=$2 event=probe_prog:$3 want="$4 main"
	local n ok name

	n=$(grep -c "^$event " "$file")
	ok=$(grep -c "^$event $want\( \|\$\)" "$file")
	name="$variant: $event: 5 samples, each with the stack $want"
	echo "# $variant: $event: $ok of $n samples: $want"
	if [ "$n" -ne 5 ] || [ "$ok" -ne "$n" ]; then
		grep "^$event " "$file" | sort | uniq -c | head -n 5 | sed 's/^/# /'
		tap_fail "$name"
	else
		tap_pass "$name"
	fi
}

# run VARIANT PROGRAM PROBE...: PROGRAM recorded with PROBEs.  Nothing is
# left to check if that fails.
run()
{
	local variant=$1 prog=$2 name="$1: perf probe and perf record"
	shift 2

	perf probe -q -d "probe_prog:*" >/dev/null 2>&1
	for p in "$@"; do
		perf probe -q -x "$prog" -a "$p" ||
			{ echo "# $variant: perf probe -a $p failed"; tap_fail "$name"; ktap_finished; }
	done
	perf record -q -B -e "probe_prog:*" --call-graph fp,defer \
		-o "$dir/$variant.data" "$prog" >/dev/null 2>&1 ||
		{ echo "# $variant: perf record failed"; tap_fail "$name"; ktap_finished; }
	tap_pass "$name"
	stacks "$dir/$variant.data" > "$dir/$variant.stacks"
	[ -s "$dir/$variant.stacks" ] || tail -n 5 "$dir/$variant.data.err" | sed 's/^/# /'
}

run sframe "$bin/prog" baz foo9 'baz%return'
check sframe "$dir/sframe.stacks" baz "baz bar foo"
check sframe "$dir/sframe.stacks" foo9 \
	"foo9 foo8 foo7 foo6 foo5 foo4 foo3 foo2 foo1 foo0"
check sframe "$dir/sframe.stacks" baz__return "bar foo"

run fp "$bin/fp/prog" bar foo8 'bar%return'
check fp "$dir/fp.stacks" bar "bar foo"
check fp "$dir/fp.stacks" foo8 "foo8 foo7 foo6 foo5 foo4 foo3 foo2 foo1 foo0"
check fp "$dir/fp.stacks" bar__return "foo"

# One of them, for the log.
perf script -i "$dir/sframe.data" -F event,ip,sym 2>/dev/null |
	awk 'BEGIN { RS = "" } /probe_prog:baz:/ { print; exit }' | sed 's/^/# /'
ktap_finished
