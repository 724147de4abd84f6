#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""compare.py [--control] [--pac] [--through DSO N] PROGRAM MIN FP DWARF

The fp,defer callchains of a stock program (perf script -F ip,sym,symoff,dso
of a syscall event) against perf's DWARF unwinding of a second run of it
(both without address space randomization, so that the same stops have
the same addresses).  The events are syscalls that the programs make
only once they run their script, when all tables are registered.  The
samples of the two runs are paired in order, or when a run lost some,
each with the next one of the other run that has the same top frame.

Each fp,defer chain must be whole: through the C library's start
(__libc_start_main) to a last frame in PROGRAM (its _start), no frame
outside a known object.  Where perf's DWARF chain is complete too, the
fp,defer chain must equal it frame for frame: to its last frame in
PROGRAM, or to __libc_start_main, where perf stops on AArch64 (the
fp,defer chain then has _start after it).  perf
reports DWARF return addresses minus one and fp,defer ones as they are:
one is added back.  Frames perf adds for inlined calls are left out.

--pac, for programs that sign their return addresses (AArch64): perf
prints those addresses signed, sometimes twice, loses their symbols, and
may stop or go astray after them.  Their PAC bits are cleared and a
signed address that repeats the one before is dropped; a DWARF chain
that then has the fp,defer chain's addresses (to _start, or to
__libc_start_main where perf stops) agrees with it.  The others cannot
be told from perf's own errors: agreement is counted, not required.

Passes when at least MIN samples count, every fp,defer chain is whole,
and (without --pac) at least MIN DWARF chains are complete and all of
them are equal; --through: at least N of the samples go through DSO (an
extension module that the program loaded with dlopen()).  With
--control (the program without tables): when at least MIN samples count
and some fp,defer chain is not whole.
"""

import re
import sys

USER_MASK = (1 << 48) - 1


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


def dwarf_chain(chain):
    """A DWARF chain as return addresses, without PAC bits or repeats."""
    out, prev = [], None
    for i, (ip, sym, dso) in enumerate(chain):
        signed = (ip >> 48) not in (0, 0xffff)
        if signed and ip == prev:
            continue
        prev = ip
        ip &= USER_MASK
        out.append((ip + (1 if i else 0), sym, dso))
    return out


def whole(chain, program):
    return bool(chain) and chain[-1][2] == program and \
        any(f[1] == "__libc_start_main" for f in chain) and \
        all(f[2] != "[unknown]" for f in chain)


def pairs(fp, dwarf):
    """(fp, dwarf) pairs: in order, or each DWARF sample with the next
    fp,defer sample that has the same top frame."""
    if len(fp) == len(dwarf):
        yield from zip(fp, dwarf)
        return
    j = 0
    for d in dwarf:
        for k in range(j, min(j + 16, len(fp))):
            if fp[k][0][0] == d[0][0]:
                yield fp[k], d
                j = k + 1
                break


def main():
    args = sys.argv[1:]
    control = args[0] == "--control"
    if control:
        args = args[1:]
    through, through_min = None, 0
    if args[0] == "--through":
        through, through_min = args[1], int(args[2])
        args = args[3:]
    pac = args[0] == "--pac"
    if pac:
        args = args[1:]
    program, least, fp_path, dwarf_path = args[0], int(args[1]), args[2], args[3]
    fp = list(samples(fp_path))
    dwarf = [dwarf_chain(c) for c in samples(dwarf_path)]
    counted = whole_fp = complete = equal = via = 0
    shown = 0
    for got, want in pairs(fp, dwarf):
        counted += 1
        via += any(f[2] == through for f in got)
        ok = whole(got, program)
        whole_fp += ok
        ips, wips = [f[0] for f in got], [f[0] for f in want]
        if pac:
            # Agreement where perf did not lose its way
            complete += wips in (ips, ips[:-1])
            equal += wips in (ips, ips[:-1])
        elif want[-1][2] == program:
            complete += 1
            equal += ips == wips
            ok = ok and ips == wips
        if not ok and shown < 2 and not control:
            shown += 1
            print("  sample differs (DWARF | fp,defer):")
            for i in range(max(len(want), len(got))):
                w = "%x %s %s" % want[i] if i < len(want) else ""
                g = "%x %s %s" % got[i] if i < len(got) else ""
                print("    %-50s | %s" % (w, g))
    print("  %s: %d fp,defer and %d DWARF samples; %d paired, %d of them "
          "whole; %d with a complete DWARF chain, %d of them equal%s"
          % (program, len(fp), len(dwarf), counted, whole_fp, complete, equal,
             " (PAC: counted, not required)" if pac else ""))
    if not complete and dwarf and fp and not control and not pac:
        for name, chain in (("DWARF", dwarf[0]), ("fp,defer", fp[0])):
            print("  the first %s sample:" % name)
            for f in chain:
                print("    %x %s %s" % f)
    if through:
        print("  %d of them through %s (at least %d)" %
              (via, through, through_min))
    if counted < least:
        return 1
    if control:
        return 0 if whole_fp < counted else 1
    if whole_fp < counted or via < through_min:
        return 1
    if not pac and (complete < least or equal < complete):
        return 1
    return 0


sys.exit(main())
