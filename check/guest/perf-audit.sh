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
# The programs are built on the host (check/guest/Makefile).

set -u
# shellcheck source=check/guest/lib/perf.sh
. "$(dirname "$0")/lib/perf.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
perf_setup perf-audit "$dir"

# The share of samples in work_spin() whose stack reaches main().
complete()
{
	perf script --no-inline -i "$1" -F ip,sym 2>"$1.err" | awk '
		BEGIN { first = 1 }
		/^$/ { if (top) { n++; if (seen) ok++ } top = 0; seen = 0; first = 1; next }
		{ if (first && $2 == "work_spin") top = 1; first = 0
		  if ($2 == "main") seen = 1 }
		END { if (top) { n++; if (seen) ok++ }
		      printf "%d %d\n", ok + 0, n + 0 }'
}

declare -A ok n
for mode in audit plain; do
	env=()
	[ $mode = audit ] && env=(LD_AUDIT="$audit")
	env "${env[@]}" perf record -q -B -F 499 -e cpu-clock:u \
		--call-graph fp,defer -o "$dir/$mode.data" "$bin/prog" 3 \
		>/dev/null 2>&1 || { echo "perf record failed ($mode)"; exit 1; }
	read -r "ok[$mode]" "n[$mode]" < <(complete "$dir/$mode.data")
	[ "${n[$mode]}" -gt 0 ] || tail -n 5 "$dir/$mode.data.err"
	echo "$mode: ${ok[$mode]} of ${n[$mode]} samples in work_spin() reach main()"
done

# Sample counts under TCG vary; what matters is the share.
[ "${n[audit]}" -ge 20 ] || { echo "too few samples"; exit 1; }
[ $((ok[audit] * 100)) -ge $((n[audit] * 95)) ] ||
	{ echo "with the module, stacks must reach main()"; exit 1; }
[ $((ok[plain] * 100)) -le $((n[plain] * 50)) ] ||
	{ echo "without the module, the library's frames cannot be walked"; exit 1; }
# One of them, for the log.
perf script --no-inline -i "$dir/audit.data" -F ip,sym,dso 2>/dev/null |
	awk 'BEGIN { RS = "" } /^[ \t]*[0-9a-f]+ work_spin/ { print; exit }'
exit 0
