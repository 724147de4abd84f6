#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""trace-cmd-stacks.py REPORT DUMP OUT - name the frames of deferred user
stacks in a "trace-cmd report" (REPORT), with the address maps that
"trace-cmd record --proc-map" saved ("trace-cmd dump --options", DUMP),
write the stacks to OUT, one frame per line as "ADDR FUNCTION OBJECT",
and print one summary line: stacks, share of stacks with a main() frame,
mean depth.  Functions come from addr2line, run on the objects at the
paths the guest had, which are the host's."""

import collections
import re
import subprocess
import sys


def read_maps(path):
    """[(start, end, object, base)] of every mapping of the traced
    processes, where base is the lowest address the object is mapped at:
    an address less base is an address of the ELF file, for addr2line."""
    maps = []
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"^\s*([0-9a-f]+) ([0-9a-f]+) (/\S+)\s*$", line)
            # "PID NR_MAPS NAME" lines start each process's maps.
            if m and int(m.group(1), 16) < int(m.group(2), 16):
                maps.append((int(m.group(1), 16), int(m.group(2), 16),
                             m.group(3)))
    base = {}
    for start, _, obj in maps:
        base[obj] = min(start, base.get(obj, start))
    return [(start, end, obj, base[obj]) for start, end, obj in maps]


def read_stacks(path):
    """[[addr, ...]] of the user_stack_deferred entries of REPORT."""
    stacks, cur = [], None
    with open(path, errors="replace") as f:
        for line in f:
            if "<deferred user stack trace: cookie=" in line:
                cur = []
                stacks.append(cur)
            elif cur is not None and line.startswith(" => <"):
                cur.append(int(line.split("<")[1].split(">")[0], 16))
            else:
                cur = None
    return stacks


def where(maps, addr):
    for start, end, obj, base in maps:
        if start <= addr < end:
            return obj, addr - base
    return None, addr


def names(maps, stacks):
    """{addr: (function, object)}, with one addr2line per object."""
    todo = collections.defaultdict(set)
    for st in stacks:
        for a in st:
            obj, off = where(maps, a)
            if obj:
                todo[obj].add((a, off))
    out = {}
    for obj, addrs in todo.items():
        addrs = sorted(addrs)
        try:
            res = subprocess.run(["addr2line", "-f", "-e", obj] +
                                 ["%#x" % off for _, off in addrs],
                                 capture_output=True, text=True, check=True)
            funcs = res.stdout.splitlines()[0::2]
        except (OSError, subprocess.CalledProcessError):
            funcs = []
        short = obj.rsplit("/", 1)[-1]
        for i, (a, _) in enumerate(addrs):
            fn = funcs[i] if i < len(funcs) and funcs[i] != "??" else "[unknown]"
            out[a] = (fn, short)
    return out


def main():
    report, dump, out = sys.argv[1:4]
    maps = read_maps(dump)
    stacks = read_stacks(report)
    sym = names(maps, stacks)
    with_main = depth = 0
    with open(out, "w") as f:
        for st in stacks:
            fns = [sym.get(a, ("[unknown]", "?")) for a in st]
            with_main += any(fn == "main" for fn, _ in fns)
            depth += len(st)
            for a, (fn, obj) in zip(st, fns):
                f.write("%16x %s (%s)\n" % (a, fn, obj))
            f.write("\n")
    n = len(stacks)
    print("%8d %13.1f%% %11.1f" % (n, 100.0 * with_main / n if n else 0,
                                    depth / n if n else 0))


if __name__ == "__main__":
    main()
