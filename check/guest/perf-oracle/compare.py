#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""compare.py [--control|--report|--through-libc] [--expect N] FP DWARF: check
perf's fp,defer callchains against its DWARF-unwound ones, sample by
sample (perf script
-F tid,addr,ip,sym,symoff,dso output of two runs of the same program).
compare.py --same-functions N FP REF: the samples of FP, at least N, go
through the same functions as those of REF, in order (same_functions()).

Only samples whose top frame is in the program or its SFrame library
count; a sample is identified by its fault address.  The DWARF chain is
the oracle when it is complete: it goes through the program's main() or
the threads' function, worker(), into the C library (whose symbols the
guest does not have).
Compared are its frames up to and including the first frame after the
last program frame (that frame's return address comes from the
program's SFrame, whatever the unwinder can do in the C library beyond
it).  perf reports DWARF return addresses minus one, the fp,defer ones
as they are: one is added back.

With --through-libc (a program run against a C library with SFrame,
registered by its dynamic linker): the DWARF chain is complete when it
reaches the C library's outermost frame (_start, or the clone3() of a
thread: thread_start on arm64), and the fp,defer chain must equal all of
it.  N counts the samples that go through main() or worker(), the stops;
others that are complete too (the first page fault, at the program's
entry point) are compared but not counted.

Passes when N samples (default: at least 50) were compared and all match;
with --control, when some do not (a run whose library has no SFrame);
with --report, whatever the match rate.
A lost sample changes the count: the test knows how many stops the
program makes."""

import re
import sys

OURS = ("prog", "liboracle.so")
ENDS = ("main", "worker")
OUTERMOST = ("_start", "clone3", "__clone3", "__GI___clone3", "thread_start")


def samples(path):
    """Yield (addr, [(ip, sym, dso)]) for each sample."""
    head, chain = None, []
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if not line.strip():
            if head is not None:
                yield head, chain
            head, chain = None, []
            continue
        if head is None:
            # "tid addr sym (dso)": the fault address.
            head = int(line.split()[1], 16)
            continue
        m = re.match(r"\s*([0-9a-f]+) (.*) \((.*)\)$", line)
        if m:
            sym = re.sub(r"\+0x[0-9a-f]+$", "", m.group(2))
            chain.append((int(m.group(1), 16), sym, m.group(3).split("/")[-1]))
    if head is not None:
        yield head, chain


def ours(frame):
    return frame[2] in OURS


def functions(path):
    """The samples whose top frame is ours, in order, each as its
    functions up to the first of ENDS (None if it has none)."""
    for addr, chain in samples(path):
        if not chain or not ours(chain[0]):
            continue
        end = next((i for i, f in enumerate(chain) if f[1] in ENDS), None)
        yield None if end is None else [f[1:] for f in chain[:end + 1]]


def same_functions(path, ref, expect):
    """--same-functions: sample by sample, in order, the chains of PATH
    must go through the same functions as those of REF, a run of the
    same program built otherwise, up to main() or worker()."""
    got, want = list(functions(path)), list(functions(ref))
    matched = sum(1 for g, w in zip(got, want) if g is not None and g == w)
    shown = 0
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w and shown < 3:
            shown += 1
            print("  sample %d differs:" % i)
            print("    %s" % " <- ".join(f[0] for f in w or []))
            print("    %s" % " <- ".join(f[0] for f in g or []))
    print("  %d samples, %d in the same functions as the reference "
          "(%d samples)" % (len(got), matched, len(want)))
    return 0 if len(got) == len(want) == matched >= expect else 1


def main():
    args = sys.argv[1:]
    if args[0] == "--same-functions":
        return same_functions(args[2], args[3], int(args[1]))
    control = args[0] == "--control"
    if control:
        args = args[1:]
    report = args[0] == "--report"
    if report:
        args = args[1:]
    libc = args[0] == "--through-libc"
    if libc:
        args = args[1:]
    expect = None
    if args[0] == "--expect":
        expect = int(args[1])
        args = args[2:]
    fp = {}
    for addr, chain in samples(args[0]):
        fp.setdefault(addr, chain)
    compared = matched = incomplete = unpaired = stops = 0
    shown = 0
    for addr, chain in samples(args[1]):
        if not chain or not ours(chain[0]):
            continue
        # Back to return addresses, for all but the top frame.
        oracle = [chain[0]] + [(ip + 1, s, d) for ip, s, d in chain[1:]]
        if libc:
            end = next((i for i, f in enumerate(oracle)
                        if f[1] in OUTERMOST), None)
            if end is None:
                incomplete += 1
                continue
            want = oracle[:end + 1]
            through = any(f[1] in ENDS for f in want)
        else:
            end = next((i for i, f in enumerate(oracle) if f[1] in ENDS), None)
            if end is None or end + 1 == len(oracle):
                incomplete += 1
                continue
            last = max(i for i, f in enumerate(oracle[:end + 1]) if ours(f))
            want = oracle[:last + 2]
        got = fp.get(addr)
        if got is None:
            unpaired += 1
            continue
        compared += 1
        stops += libc and through
        if libc:
            ok = [f[0] for f in got] == [f[0] for f in want]
        else:
            ok = [f[0] for f in got[:len(want)]] == [f[0] for f in want]
        if ok:
            matched += 1
        elif shown < 3 and not control and not report:
            shown += 1
            print("  mismatch at fault address %#x:" % addr)
            for i in range(max(len(want), min(len(got), len(want) + 2))):
                w = "%x %s" % want[i][:2] if i < len(want) else ""
                g = "%x %s" % got[i][:2] if i < len(got) else ""
                print("    %-40s %s" % (w, g))
    rate = 100.0 * matched / compared if compared else 0
    print("  %d samples compared, %d match (%.1f%%); %d with an incomplete "
          "DWARF stack, %d without a fp,defer sample" %
          (compared, matched, rate, incomplete, unpaired))
    counted = stops if libc else compared
    if expect is not None and counted != expect:
        print("  expected %d samples to compare%s, not %d" %
              (expect, " through main() or worker()" if libc else "",
               counted))
        return 1
    if compared < 50:
        return 1
    if report:
        return 0
    if control:
        return 0 if matched < compared else 1
    return 0 if matched == compared else 1


sys.exit(main())
