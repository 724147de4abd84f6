#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-report.sh DIR - results.md from the raw results of bench/bench.sh
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

\`bench/unwind-cost.c\` in the patched x86_64 and arm64 guests.  One
binary and four libraries, all built with frame pointers *and* SFrame;
the program samples its own page faults with deferred user callchains
(perf_event_open, as \`perf record --call-graph fp,defer\`), and times
batches of faults at the bottom of a stack DEPTH deep, with the SFrame
registrations removed (the kernel walks the frame pointers) and back (the
kernel uses SFrame), interleaved; the fault alone (event off) is
subtracted.  Every deferred chain is read back and must be at least DEPTH
frames long.  Medians of 15 batches of 200 faults.  Two stacks:

- **recursion**: one function DEPTH times, so every frame has the same
  return address and, after the first lookup, every SFrame lookup hits
  the per-task lookup cache;
- **distinct functions**: up to 128 generated functions, 32 in each of
  four shared objects (\`bench/spread.h\`, \`bench/spread-gen.py\`), each
  calling the next in a random but fixed order.

SFrame is measured with the cache **warm** (a batch samples the same
stack 200 times) and **cold**: before each fault the program removes and
adds one of its registrations, which invalidates the task's cache, so
every lookup of the walk misses it (the two system calls are subtracted
with a batch that makes them without the event).

EOF
for f in unwind spread; do
	for a in x86_64 arm64; do
		d=.
		[ $a = x86_64 ] || d=arm64
		[ -e "$d/$f.txt" ] || continue
		case $f in
		unwind) echo "### Recursion, $a" ;;
		spread) echo "### Distinct functions in four libraries, $a" ;;
		esac
		echo
		echo '| depth | FP, ns/sample | SFrame warm | SFrame cold | warm / FP | cold / FP |'
		echo '| ---: | ---: | ---: | ---: | ---: | ---: |'
		awk '$2 == "fp" { fp[$1] = $4 } $2 == "sframe" { sf[$1] = $4; d[++n] = $1 }
			$2 == "sframe-cold" { cold[$1] = $4 }
			END { for (i = 1; i <= n; i++) {
				k = d[i]
				printf "| %d | %d | %d | %d | %.2f | %.2f |\n", k,
					fp[k], sf[k], cold[k],
					(fp[k] > 0 ? sf[k] / fp[k] : 0),
					(fp[k] > 0 ? cold[k] / fp[k] : 0) } }' "$d/$f.txt"
		echo
		sed -n 's/^per frame, depth \([0-9]*\) to \([0-9]*\): fp \(.*\) ns, sframe \(.*\) ns, sframe\/fp \(.*\), sframe-cold \(.*\) ns, sframe-cold\/fp \(.*\)/Per frame (slope from depth \1 to \2, TCG): frame pointers \3 ns, SFrame warm \4 ns, cold \6 ns: **SFrame \/ FP = \5 warm, \7 cold**./p' "$d/$f.txt"
		echo
	done
done
cat <<'EOF'
The per-task cache has 60 sets of 4 entries, and each IP may be in
either of two sets: a stack of up to a couple of hundred distinct return
addresses stays in it when warm.  A miss makes one copy from user space
in a section of up to 1016 FDEs, whose index keeps every FDE: the
function's attributes with its FREs; in larger sections, the FDEs of one
stride of the index are copied first, as one block.

A walk has no locals for CONFIG_INIT_STACK_ALL_ZERO to clear on every
lookup: the FRE reader's buffer, the decoded FRE, the FDE block, the
copy of the section and the frame's rules are marked `__uninitialized`
(registration/0006).

For comparison, the run before that change (make bench of
2026-11-25 at a64b3bc, section 6 has its tables), per frame, SFrame /
FP, warm / cold: recursion 0.53 / 0.60 on x86_64 and 0.54 / 0.58 on
arm64; distinct functions 0.66 / 1.55 on x86_64 and 0.65 / 1.40 on
arm64 (x86_64 cold 1.50 to 1.55 over three runs).  Lookup instructions
then: 582, 643, 997 and 1162.  The same tables before the index kept
FDEs and the FRE scan was cut down (make bench of 2026-11-24 at
55a6435, section 6 has its tables too: the index held
function starts only, and a miss copied two FDEs, then the FREs), per
frame, SFrame / FP, warm / cold: recursion 0.63 / 0.79 on x86_64 and
0.66 / 0.73 on arm64; distinct functions 0.63 / 2.96 on x86_64 and
0.61 / 2.65 on arm64.  Lookup instructions then: 942, 1021, 1321 and
1495 at 10, 10^3, 10^5 and 10^6 FDEs.  Before that (2026-11-24 at
09cfc23: a 64-entry direct-mapped cache, one user read per step of the
FDE search): recursion 0.72 / 0.77 on x86_64 and 0.58 / 0.90 on arm64;
distinct functions 3.93 / 3.70 on x86_64 and 2.28 / 2.54 on arm64;
lookup instructions 822, 1062, 1307 and 1426.  Earlier still
(2026-11-22, the recursion only, x86_64, warm): 0.87; and without the
cache: 4.7x.

## 2. The decoder natively: cost of one lookup against section size

`bench/lookup-cost.c`: the kernel's `kernel/unwind/sframe_decode.c`, built in
user space by `tools/testing/sframe` (its user copies are memcpy()s with
bounds checks), looking up 2,000,000 pseudo-random PCs in sections of
generated functions (12 bytes, 4 FREs each), on the host.  Instructions
are counted by callgrind (`--toggle-collect=lookups`, 100,000 lookups),
which is deterministic; times are wall clock on the host.

| FDEs | ns per lookup | instructions per lookup | copies per lookup | bytes copied per lookup |
| ---: | ---: | ---: | ---: | ---: |
EOF
paste <(sed -n 's/.*funcs-\([0-9]*\)\.so: .* \([0-9.]*\) ns per lookup, \([0-9.]*\) copies of \([0-9.]*\) bytes per lookup/\1 \2 \3 \4/p' lookup.txt) \
      <(sed -n 's/^[0-9]* FDEs: \([0-9]*\) instructions per lookup/\1/p' callgrind.txt) |
	awk '{ printf "| %d | %.1f | %d | %.2f | %.0f |\n", $1, $2, $5, $3, $4 }'
cat <<'EOF'

Each lookup is made as the kernel makes it (`sc_decoder.lookup`),
narrowed by the index of the section.  Up to 1016 FDEs, the index keeps
every FDE's start, size and FRE offset: the FDE search is in memory and
the one copy is of the function's attributes and FREs.  Up to 16256
FDEs, it keeps every second to sixteenth start; up to 65024, every
16th: one more copy, of the FDEs of one stride.  Beyond, the index
stops growing at 16 KiB, and single reads narrow its stride, one per
doubling of the FDE count.  The rest is the FRE scan, bounded by the
function's FREs, which decodes the start and info byte of each FRE and
the data words of the one found: FREs vary in length, so they cannot be
binary-searched without decoding the ones before.  The instruction
counts include the shim's bounds checks and counters (a few per copy);
the copies are the decoder's `copy_from_user()` calls.

## 3. perf: overhead and data, on the demo's workload

The Lua interpreter (Debian's lua5.4 sources, `-O2`, see
`demo/workload.sh`) running `demo/workload.lua` in the guest,
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
	# A profiled run: its time, and what it adds per sample to the
	# unprofiled run of the same binary (of the run that wrote perf.data).
	function row(mode, bin, run, data, none,   ms) {
		ms = med(t[run])
		printf "| %s | %s | %d | %.2f | %d | %.1f | %d | %d |\n", mode, bin,
			ms, ms / base, n[data], n[data] ? (ms - none) * 1000 / n[data] : 0,
			n[data] ? size[data] / n[data] : 0, lost[data]
	}
	END {
		base = med(t["none-sframe"]); fpb = med(t["none-fp"])
		print "| run | binary | ms | vs. unprofiled SFrame build | samples | us per sample | perf.data bytes/sample | lost |"
		print "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
		printf "| unprofiled | lua-sframe | %d | 1.00 | | | | |\n", base
		printf "| unprofiled | lua-fp | %d | %.2f | | | | |\n", fpb, fpb / base
		row("fp,defer", "lua-fp", "fpdefer-fp", "data-fp", fpb)
		row("fp,defer", "lua-sframe", "fpdefer-sframe", "data-sframe", base)
		row("dwarf", "lua-sframe", "dwarf-sframe", "data-dwarf", base)
		printf "\nperf.data per sample: dwarf / fp,defer with SFrame = %.1f\n", (size["data-dwarf"] / n["data-dwarf"]) / (size["data-sframe"] / n["data-sframe"])
	}' overhead.txt
cat <<'EOF'

"us per sample" is what profiling adds to the unprofiled run of the same
binary, divided by the samples of one run: the whole cost of a sample
(interrupt, record, deferred unwind, perf's own work), in TCG time.

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
of the maple tree's nodes, counted once RCU has freed the nodes that the
tree allocated ahead and did not use.  Five runs; slab accounting is by
page, and the first runs in a fresh guest also grow the slab caches, so
single runs vary: the median is reported.

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
unwound with SFrame, the lookup cache (8160 bytes, an 8 KiB slab
object), next to the 4 KiB that the deferred unwinder already keeps per
task; per registered section that a lookup has needed, an index: 12
bytes per FDE up to 1016 FDEs (12 KiB), then 4 KiB up to 16256 FDEs,
then 4 bytes per 16 FDEs, up to 16 KiB.
EOF
cat <<'EOF'

## 5. System-wide: many processes profiled at once

`bench/system-wide.sh` in the x86_64 guest (2 vCPUs): 50 processes at
once, 25 built with frame pointers and 25 with SFrame and no frame
pointers (their libraries registered by the series' `sframe-audit.so`),
all sharing the four libraries of their build; each goes down a stack of
33 distinct functions spread over those libraries, again and again, for
the same time.  Then the same under
`perf record -a -F 999 -e cpu-clock --call-graph fp,defer`.  Throughput
is the number of times the processes of a build went down their stack;
a sample is complete if its callchain reaches `main()`.

EOF
awk '
	/^rounds-/ { b = substr($1, 8); none[b] = $2; prof[b] = $3 }
	/^samples-/ { b = substr($1, 9); n[b] = $2; c[b] = $3 }
	/^lost / { lost = $2; total = $4 }
	END {
		print "| build | rounds unprofiled | rounds profiled | throughput profiled / unprofiled | samples | complete to main() |"
		print "| --- | ---: | ---: | ---: | ---: | ---: |"
		for (i = 1; i <= 2; i++) {
			b = i == 1 ? "fp" : "sframe"
			printf "| %s | %d | %d | %.2f | %d | %d (%.1f%%) |\n", b == "fp" ? "frame pointers" : "SFrame, no frame pointers", none[b], prof[b], none[b] ? prof[b] / none[b] : 0, n[b], c[b], n[b] ? 100 * c[b] / n[b] : 0
		}
		printf "\nLost: %d of %d samples.\n", lost, total
	}' sys.txt
cat <<'EOF2'

## 6. For comparison: the previous runs

EOF2
cat "$top/bench/previous-a64b3bc.md"
echo
cat "$top/bench/previous-55a6435.md"
