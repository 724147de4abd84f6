#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build (or reuse) the toolchain and the patched x86_64 kernel,
# build a sample program with frame pointers and, without them, with
# SFrame, then profile both in the guest with
# "perf record --call-graph fp,defer" and summarize what perf sees.
# Results in out/demo/.

. "$(dirname "$0")/lib.sh"

tree=$CACHE/trees/check
demo=$OUT/demo
mkdir -p "$demo"

log "toolchain"
"$TOP/scripts/toolchain.sh"
log "kernel tree: base + patches/"
FORCE=1 "$TOP/scripts/tree.sh" "$tree"
log "x86_64 kernel"
"$TOP/scripts/kernel.sh" x86_64 "$tree"

log "sample program"
inroot gcc -O2 -g -fno-omit-frame-pointer -o "$demo/sample-fp" "$TOP/tests/demo/sample.c"
inroot gcc -O2 -g -fomit-frame-pointer -Wa,--gsframe -o "$demo/sample-sframe" "$TOP/tests/demo/sample.c"
inroot readelf -lW "$demo/sample-sframe" | grep -q GNU_SFRAME ||
	die "the SFrame build has no PT_GNU_SFRAME"

log "profiling in the guest (QEMU TCG; this takes a minute)"
"$TOP/scripts/vm.sh" x86_64 "$tree" 600 "
set -e
cd $demo
# perf writes its data through the guest's tmpfs: writing it straight to
# the directory shared with the host fails with EFAULT.
for kind in fp sframe; do
	perf record -q -F 499 -e cpu-clock:u --call-graph fp,defer \\
		-o /tmp/perf-\$kind.data ./sample-\$kind 400 >/dev/null
	perf report -i /tmp/perf-\$kind.data --stdio --no-children -G > report-\$kind.txt 2>/dev/null
	perf script -i /tmp/perf-\$kind.data -F ip,sym > script-\$kind.txt 2>/dev/null
	cat /tmp/perf-\$kind.data > perf-\$kind.data
done
" > "$demo/guest.log" 2>&1 || { tail -n 30 "$demo/guest.log"; die "guest run failed"; }

summary()
{
	awk -v kind="$1" '
	function flush() {
		if (!n) return
		samples++; depth += n
		if (has_main) main++
		n = 0; has_main = 0
	}
	/^[[:space:]]*$/ { flush(); next }
	{ n++; if ($2 == "main") has_main = 1 }
	END {
		flush()
		printf "  %-8s %8d samples  %5.1f%% reach main  mean depth %.1f\n",
			kind, samples, samples ? 100 * main / samples : 0,
			samples ? depth / samples : 0
	}' "$demo/script-$1.txt"
}

echo
echo "perf record --call-graph fp,defer, user stacks of the sample program:"
summary fp
summary sframe
echo
echo "Outputs: $demo (report-*.txt: perf report call graphs, script-*.txt: samples)"
