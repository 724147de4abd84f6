#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""compare.py [--control] [--through DSO N] PROGRAM MIN FP DWARF: the fp,defer callchains of a
stock program (perf script -F ip,sym,symoff,dso of a syscall event) against
perf's DWARF unwinding of a second run of it, sample by sample in order
(both runs without address space randomization, so the same stops have
the same addresses).

A DWARF chain is complete when its last frame is in PROGRAM (its _start,
where the CFI ends the stack) and it went through the C library's start
(__libc_start_main): the fp,defer chain must then equal it frame for
frame, frames perf adds for inlined calls left out.  perf reports DWARF return addresses minus one and fp,defer ones as
they are: one is added back.  Passes when at least MIN samples are
complete and all of them match; with --control (the program without
tables), when at least MIN are complete and not all of them match.
--through: at least N of the complete samples go through DSO (an
extension module that the program loaded with dlopen())."""

import re
import sys


def samples(path):
    """Yield each sample as [(ip, sym, dso)], top first."""
    chain = []
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if not line.strip():
            if chain:
                yield chain
            chain = []
            continue
        m = re.match(r"\s*([0-9a-f]+) (.*) \((.*)\)$", line)
        # Frames perf adds for inlined calls (from debug info, where the
        # root has it) repeat the address of the real frame.
        if m and m.group(3) != "inlined":
            sym = re.sub(r"(\+0x[0-9a-f]+|@@.*)$", "", m.group(2))
            chain.append((int(m.group(1), 16), sym, m.group(3).split("/")[-1]))
    if chain:
        yield chain


def main():
    args = sys.argv[1:]
    control = args[0] == "--control"
    if control:
        args = args[1:]
    through, through_min = None, 0
    if args[0] == "--through":
        through, through_min = args[1], int(args[2])
        args = args[3:]
    program, least, fp_path, dwarf_path = args[0], int(args[1]), args[2], args[3]
    fp, dwarf = list(samples(fp_path)), list(samples(dwarf_path))
    complete = matched = via = 0
    shown = 0
    depth = []
    for got, chain in zip(fp, dwarf):
        want = [chain[0]] + [(ip + 1, s, d) for ip, s, d in chain[1:]]
        if want[-1][2] != program or \
           not any(f[1] == "__libc_start_main" for f in want):
            continue
        complete += 1
        via += any(f[2] == through for f in want)
        depth.append(len(want))
        if [f[0] for f in got] == [f[0] for f in want]:
            matched += 1
        elif shown < 2 and not control:
            shown += 1
            print("  sample differs (DWARF | fp,defer):")
            for i in range(max(len(want), len(got))):
                w = "%x %s %s" % want[i] if i < len(want) else ""
                g = "%x %s %s" % got[i] if i < len(got) else ""
                print("    %-50s | %s" % (w, g))
    fp_depth = sorted(len(c) for c in fp)
    print("  %s: %d samples (%d fp,defer), %d with a complete DWARF stack "
          "(%s frames), %d of them equal to fp,defer (%s frames)" %
          (program, len(dwarf), len(fp), complete,
           "%d-%d" % (min(depth), max(depth)) if depth else "no",
           matched, "%d-%d" % (fp_depth[0], fp_depth[-1]) if fp_depth else "no"))
    if through:
        print("  %d of them through %s (at least %d)" %
              (via, through, through_min))
    if len(fp) != len(dwarf) or complete < least or via < through_min:
        for name, chains in (("DWARF", dwarf), ("fp,defer", fp)):
            print("  the first %s sample:" % name)
            for f in chains[0] if chains else []:
                print("    %x %s %s" % f)
        return 1
    if control:
        return 0 if matched < complete else 1
    return 0 if matched == complete else 1


sys.exit(main())
