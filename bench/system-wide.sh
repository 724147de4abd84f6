#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# system-wide.sh DIR PROCS SECONDS DEPTH - in the guest of make bench:
# PROCS copies of busy at once, a third built with frame pointers
# (DIR/fp), a third with SFrame and no frame pointers (DIR/sframe, their
# libraries registered by DIR/sframe-audit.so), and a third of the same
# SFrame build that registers nothing (DIR/attached, a copy: other files),
# whose .sframe sections DIR/sframe-attach attaches to the files before
# the processes start; each goes down a stack of DEPTH + 1 distinct
# functions in four libraries for SECONDS; first unprofiled, then under
# perf record -a --call-graph fp,defer -F 999.  Prints, for each build,
# the rounds done unprofiled and profiled, the samples of its processes
# and how many of them have a callchain that reaches main(); and the
# samples that perf lost.
set -eu
dir=$1
procs=$2
secs=$3
depth=$4
tmp=$(mktemp -d)
builds=(fp sframe attached)

# The attached build's tables: the files' own sections (they are root's),
# detached at the end whatever happens.  Five files: busy and its four
# libraries, each with a table.
trap '"$dir/sframe-attach" -u "$dir/attached" > /dev/null; rm -rf "$tmp"' EXIT
"$dir/sframe-attach" "$dir/attached" > "$tmp/attach.log" 2>&1 &&
	grep -q '^sframe-attach: 5 attached, 0 attached already, 0 without a table, 0 refused$' "$tmp/attach.log" ||
	{ echo "sframe-attach did not attach the 5 tables:"; cat "$tmp/attach.log"; exit 1; }

# run TAG: every copy at once; each writes its rounds to TAG-BUILD-N.
# They start together, once all are loaded: the copies under LD_AUDIT
# take longer to start, and must not get the CPUs alone at the end.
run()
{
	local tag=$1 i pids=() sync=$tmp/sync-$1 end=$((SECONDS + 300))

	mkdir "$sync"
	for ((i = 0; i < procs / 3; i++)); do
		LD_AUDIT=$dir/sframe-audit.so "$dir/sframe/busy" "$depth" "$secs" \
			"$sync" > "$tmp/$tag-sframe-$i" &
		pids+=($!)
		"$dir/fp/busy" "$depth" "$secs" "$sync" > "$tmp/$tag-fp-$i" &
		pids+=($!)
		"$dir/attached/busy" "$depth" "$secs" "$sync" \
			> "$tmp/$tag-attached-$i" &
		pids+=($!)
	done
	while [ "$(find "$sync" -name 'ready-*' | wc -l)" -lt ${#pids[@]} ]; do
		[ $SECONDS -lt $end ] || { echo "busy did not start in 300 s"; exit 1; }
		sleep 0.1
	done
	touch "$sync/go"
	wait "${pids[@]}"
}

rounds()
{
	cat "$tmp/$1-$2-"* | awk '{ s += $1 } END { print s + 0 }'
}

run none
perf record -q -a -F 999 -e cpu-clock --call-graph fp,defer \
	-o "$tmp/sys.data" 2> "$tmp/perf.log" &
perf=$!
# perf is recording once its output has a header: wait 30 s at most, and
# not at all for a perf that died.
for ((i = 0; i < 300; i++)); do
	[ -s "$tmp/sys.data" ] && break
	kill -0 "$perf" 2> /dev/null || break
	sleep 0.1
done
[ -s "$tmp/sys.data" ] || { echo "perf record did not start"; cat "$tmp/perf.log"; exit 1; }
sleep 1
run prof
# perf exits with the status of the signal that stopped it.
kill -INT "$perf"
wait "$perf" || true

# A sample of a busy process belongs to the build whose busy or
# libraries its callchain shows; it is complete if it reaches main().
perf script -i "$tmp/sys.data" -F comm,ip,sym,dso 2> /dev/null | awk -v dir="$dir" '
	function flush() {
		if (comm == "busy" && build != "") {
			n[build]++
			if (complete)
				c[build]++
		}
		comm = ""; build = ""; complete = 0
	}
	/^$/ { flush(); next }
	# A sample: its comm, right-aligned; then its callchain, indented
	# with a tab, one frame per line: address, symbol, (object).
	!/^\t/ { flush(); comm = $1; next }
	{
		if (index($0, "(" dir "/sframe/"))
			build = "sframe"
		else if (index($0, "(" dir "/fp/"))
			build = "fp"
		else if (index($0, "(" dir "/attached/"))
			build = "attached"
		if ($2 == "main" && index($0, "/busy)"))
			complete = 1
	}
	END {
		flush()
		printf "samples-sframe %d %d\n", n["sframe"], c["sframe"]
		printf "samples-fp %d %d\n", n["fp"], c["fp"]
		printf "samples-attached %d %d\n", n["attached"], c["attached"]
	}'
# perf report --stats: "  NAME events:  COUNT  (PERCENT)".
stats=$(perf report -i "$tmp/sys.data" --stats 2> /dev/null)
lost=$(awk '$1 ~ /^LOST/ { s += $3 } END { print s + 0 }' <<< "$stats")
total=$(awk '$1 == "SAMPLE" { print $3; exit }' <<< "$stats")
for b in "${builds[@]}"; do
	echo "rounds-$b $(rounds none "$b") $(rounds prof "$b")"
done
echo "lost ${lost:-0} of ${total:-0}"
