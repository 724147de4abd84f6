#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The dynamic linker as the registrar, and call chains through the C
# library, with the glibc of userspace/glibc (built with SFrame, its ld.so
# registering each object it maps) and without LD_AUDIT:
#  - glibc/registrar: the libraries mapped at start and by dlopen() are
#    registered, dlclose() removes them, a library without .sframe costs
#    no call, and a kernel that refuses the registrations changes nothing
#    for the program;
#  - glibc/chains: chains from a qsort() comparison function, a thread, an
#    atexit() handler and a signal handler, each equal frame for frame to
#    libgcc's DWARF unwinding, through the C library to its outermost
#    frame.  The same program against the root's own C library (no
#    SFrame) is run for comparison: the table below.

set -u
bin=$KOUT/guest-tests/glibc
for p in registrar chains stock/chains; do
	[ -x "$bin/$p" ] || { echo "$bin/$p missing: tests/guest not built with GLIBC="; exit 1; }
done

# registrar counts the prctl() calls of ld.so on their syscall tracepoint.
if ! mountpoint -q /sys/kernel/tracing; then
	mount -t tracefs nodev /sys/kernel/tracing ||
		{ echo "cannot mount tracefs"; exit 1; }
fi

rc=0
"$bin/registrar" || rc=1

out=$("$bin/chains") || rc=1
echo "$out"
stock=$("$bin/stock/chains" --report) || rc=1
echo "$stock" | sed 's/^/stock: /'

# The table: frames matched against the DWARF unwinder, per chain.  The
# control: against the root's C library, which has no SFrame, some chain
# must come out incomplete (x86_64: all four; arm64, where frame pointers
# get further through that library: the qsort and signal ones), or the
# comparison could not tell.
echo "chain | stock glibc (no SFrame) | glibc of userspace/glibc"
short=0
for c in qsort thread signal atexit; do
	s=$(echo "$stock" | sed -n "s/^ok [0-9]* $c # \([0-9]* of [0-9]*\) frames.*/\1/p")
	p=$(echo "$out" | sed -n "s/^ok [0-9]* $c # \([0-9]*\) frames.*/\1 of \1/p")
	echo "$c | ${s:-?} | ${p:-failed}"
	[ -n "$s" ] && [ "${s% of *}" = "${s#* of }" ] || short=$((short + 1))
done
if [ $short = 0 ]; then
	echo "control: every chain is complete without the C library's SFrame too"
	rc=1
fi
exit $rc
