#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-report.sh DIR - results.md from the raw results of scripts/bench.sh
# in DIR (unwind.txt, mem.txt, overhead.txt, lookup.txt, callgrind.txt).

set -euo pipefail
dir=${1:?usage: bench-report.sh DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$dir"

cat <<EOF
# SFrame unwinding: what it costs

Made by \`make bench\` ($(date -u +%Y-%m-%d), project at $(git -C "$top" log -1 --format=%h)).
Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo),
$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1); guests run
under QEMU TCG (no KVM), which makes every guest time 10-50 times a
native one and distorts the mix: only ratios taken in one guest run are
reported from the guest.

## 1. Deferred unwind, per frame: SFrame against frame pointers

\`bench/unwind-cost.c\` in the patched x86_64 guest.  One binary built with
frame pointers *and* SFrame; it samples its own page faults with deferred
user callchains (perf_event_open, as \`perf record --call-graph fp,defer\`),
and times batches of faults at the bottom of a recursion DEPTH deep, with
its SFrame registration removed (the kernel walks the frame pointers) and
back (the kernel uses SFrame), interleaved; the fault alone (event off)
is subtracted.  Every deferred chain is read back and must be at least
DEPTH frames long.  Medians of 15 batches of 200 faults.

| depth | FP unwind, ns/sample | SFrame unwind, ns/sample | SFrame / FP |
| ---: | ---: | ---: | ---: |
EOF
awk '$2 == "fp" { fp[$1] = $4 } $2 == "sframe" { sf[$1] = $4; d[++n] = $1 }
	END { for (i = 1; i <= n; i++)
		printf "| %d | %d | %d | %.2f |\n", d[i], fp[d[i]], sf[d[i]],
			(fp[d[i]] > 0 ? sf[d[i]] / fp[d[i]] : 0) }' unwind.txt
echo
sed -n 's/^per frame, depth \([0-9]*\) to \([0-9]*\): fp \(.*\) ns, sframe \(.*\) ns, sframe\/fp \(.*\)/Per frame (slope from depth \1 to \2): frame pointers \3 ns, SFrame \4 ns (TCG): **SFrame \/ FP = \5**./p' unwind.txt
cat <<'EOF'

The stack is a recursion: every frame has the same return address, so
after the first frame every SFrame lookup is answered by the per-task
lookup cache (patch "unwind_user/sframe: Cache lookups per task").
Without that cache, an earlier run of this benchmark measured 3250 ns
per SFrame frame against 689 ns for frame pointers (4.7x): a cache miss
costs what the decoder costs, below.

## 2. The decoder natively: cost of one lookup against section size

`bench/lookup-cost.c`: the kernel's `kernel/unwind/sframe_decode.c`, built in
user space by `tools/testing/sframe` (its user copies are memcpy()s with
bounds checks), looking up 2,000,000 pseudo-random PCs in sections of
generated functions (12 bytes, 4 FREs each), on the host.  Instructions
are counted by callgrind (`--toggle-collect=lookups`, 100,000 lookups),
which is deterministic; times are wall clock on the host.

| FDEs | ns per lookup | instructions per lookup |
| ---: | ---: | ---: |
EOF
paste <(sed -n 's/.*funcs-\([0-9]*\)\.so: .* \([0-9.]*\) ns per lookup/\1 \2/p' lookup.txt) \
      <(sed -n 's/^[0-9]* FDEs: \([0-9]*\) instructions per lookup/\1/p' callgrind.txt) |
	awk '{ printf "| %d | %.1f | %d |\n", $1, $2, $3 }'
cat <<'EOF'

The binary search reads one FDE start per step: instructions grow by a
constant per doubling of the FDE count, O(log FDEs); the FRE scan is
bounded by the function's FREs.

## 3. perf: overhead and data, on the demo's workload

The Lua interpreter (Debian's lua5.4 sources, `-O2`, see
`scripts/workload.sh`) running `tests/demo/workload.lua` in the guest,
unprofiled and under `perf record -F 999 -e cpu-clock:u`; median wall
time of 3 runs.

EOF
awk '
	/^(none|fpdefer|dwarf)-/ { t[$1] = t[$1] " " $2 }
	/^data-/ { size[$1] = $2; n[$1] = $3; lost[$1] = $4 }
	# The median of the numbers in s (no asort(): mawk has none).
	function med(s,   a, k, i, j, x) {
		k = split(s, a, " ")
		for (i = 2; i <= k; i++) {
			x = a[i] + 0
			for (j = i - 1; j >= 1 && a[j] + 0 > x; j--)
				a[j + 1] = a[j]
			a[j + 1] = x
		}
		return a[int((k + 1) / 2)]
	}
	END {
		base = med(t["none-sframe"]); fpb = med(t["none-fp"])
		print "| run | binary | ms | vs. unprofiled SFrame build | perf.data bytes/sample | lost |"
		print "| --- | --- | ---: | ---: | ---: | ---: |"
		printf "| unprofiled | lua-sframe | %d | 1.00 | | |\n", base
		printf "| unprofiled | lua-fp | %d | %.2f | | |\n", fpb, fpb / base
		printf "| fp,defer | lua-fp | %d | %.2f | %d | %d |\n", med(t["fpdefer-fp"]), med(t["fpdefer-fp"]) / base, size["data-fp"] / n["data-fp"], lost["data-fp"]
		printf "| fp,defer | lua-sframe | %d | %.2f | %d | %d |\n", med(t["fpdefer-sframe"]), med(t["fpdefer-sframe"]) / base, size["data-sframe"] / n["data-sframe"], lost["data-sframe"]
		printf "| dwarf | lua-sframe | %d | %.2f | %d | %d |\n", med(t["dwarf-sframe"]), med(t["dwarf-sframe"]) / base, size["data-dwarf"] / n["data-dwarf"], lost["data-dwarf"]
		printf "\nperf.data per sample: dwarf / fp,defer with SFrame = %.1f\n", (size["data-dwarf"] / n["data-dwarf"]) / (size["data-sframe"] / n["data-sframe"])
	}' overhead.txt
cat <<'EOF'

A `fp,defer` sample holds its callchain, 8 bytes per frame, next to a
fixed part (record headers, IP, time, period, and the deferred record's
own header); a `dwarf` sample holds the registers and a copy of the user
stack, up to 8 KiB.  The ratio is therefore set by the depth of the
stacks: 50 times less data is reached only for stacks of a few frames.
EOF
cat <<'EOF'

## 4. Kernel memory per registered section

`bench/sframe-mem.c` in the guest registers a copy of its own section
for 2000 one-page text ranges with `PR_ADD_SFRAME` and reads `Slab:` of
/proc/meminfo before and after: the `struct sframe_section` and its share
of the maple tree's nodes.  Three runs; slab accounting is by page, so
single runs vary.

EOF
sed 's/^/    /' mem.txt
for v in $(awk '{ for (i = 1; i <= NF; i++)
		if ($(i + 1) == "bytes" && $(i + 2) == "each;") print $i }' mem.txt |
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'); do
	printf '\nMedian: **%d bytes per registered section**.\n' "$v"
done
cat <<'EOF'
Per process, on top of its registrations (usually the program, its
interpreter if it has SFrame, and the vDSO): the maple tree, a counter
and a generation in `mm_struct` (32 bytes); per task that has been
unwound with SFrame, the lookup cache (2568 bytes, a 4 KiB slab object),
next to the 4 KiB that the deferred unwinder already keeps per task.
EOF
