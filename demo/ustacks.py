# SPDX-License-Identifier: GPL-2.0
"""Naming the frames of user stacks recorded in a guest: the address maps
of the traced processes, and addr2line run on the objects at the paths
the guest had, which are the host's.  Used by trace-cmd-stacks.py and
bpf-profile-report.py."""

import collections
import re
import subprocess


def read_maps(lines):
    """[(start, end, object, base)] of every mapping in LINES ("START END
    PATH", in hex), where base is the lowest address the object is mapped
    at: an address less base is an address of the ELF file, for
    addr2line."""
    maps = []
    for line in lines:
        m = re.match(r"^\s*([0-9a-f]+) ([0-9a-f]+) (/\S+)\s*$", line)
        # Other lines, such as trace-cmd's "PID NR_MAPS NAME" before
        # each process's maps, are skipped.
        if m and int(m.group(1), 16) < int(m.group(2), 16):
            maps.append((int(m.group(1), 16), int(m.group(2), 16),
                         m.group(3)))
    base = {}
    for start, _, obj in maps:
        base[obj] = min(start, base.get(obj, start))
    return [(start, end, obj, base[obj]) for start, end, obj in maps]


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



def summary(stacks, sym):
    """(stacks, share of stacks with a main() frame, mean depth), of
    [(count, [addr, ...])]."""
    n = with_main = depth = 0
    for count, st in stacks:
        n += count
        depth += count * len(st)
        if any(sym.get(a, ("",))[0] == "main" for a in st):
            with_main += count
    return n, 100.0 * with_main / n if n else 0, depth / n if n else 0
