#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""reach.py [--control] [--share PCT] PROGRAM MIN KIND FILE [MAPS PID]

Do the deferred user stacks of a stock program, taken by another consumer
than perf, reach its start?  A stack is whole when it reaches _start as
lib/ustacks.py's reaches() says, the definition the demo uses too: every
frame in a file mapping of the process, the last one in PROGRAM's _start.
Here _start is known by address, not by name: within START_SIZE bytes
of the entry point of PROGRAM's ELF header, where PROGRAM was mapped;
no other frame is named, so that only that address range counts.

KIND trace-cmd: FILE is what stock "trace-cmd report" printed, its
frames (file offsets) named by userspace/trace-cmd/ustack-symbolize with
the files of the inode_cache events, MAPS the /proc/PID/maps of the
traced process (it printed them itself before it exited), PID its
process id: a frame's offset in its file is placed where the process
mapped that offset of that file.  Each stack counts once, and each must
come after a cookie event of its own.

KIND bpf-profile: FILE is bpf-profile's output, which carries the maps of
the process; each stack counts as many times as it was sampled, and the
samples that got no stack (its first line counts them) count as not
whole.

Passes when at least MIN stacks count and at least PCT percent of them
(100 by default) are whole.  With --control (the program without
tables): when at least MIN count and fewer than PCT percent are whole;
exits with 2 if that fails only because too many are whole.
"""

import argparse
import os
import re
import struct
import sys

# No __pycache__ in the project's tree, which the guests share
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "lib"))
import ustacks  # noqa: E402

# x86_64's _start is 38 bytes, AArch64's 52: its call returns within it.
START_SIZE = 64


def entry(program):
    """The entry point of PROGRAM and whether it is position independent."""
    with open(program, "rb") as f:
        ehdr = f.read(64)
    if len(ehdr) < 64 or ehdr[:4] != b"\x7fELF" or ehdr[4] != 2:
        sys.exit("%s: not a 64-bit ELF file" % program)
    e_type, = struct.unpack_from("<H", ehdr, 16)
    e_entry, = struct.unpack_from("<Q", ehdr, 24)
    return e_entry, e_type == 3


def file_maps(lines):
    """{path: [(start, end, file offset)]} of /proc/PID/maps."""
    out = {}
    for line in lines:
        m = re.match(r"([0-9a-f]+)-([0-9a-f]+) \S+ ([0-9a-f]+) \S+ \d+\s+(/\S*)\s*$",
                     line)
        if m:
            start, end, pgoff = (int(m.group(i), 16) for i in (1, 2, 3))
            out.setdefault(m.group(4), []).append((start, end, pgoff))
    return out


def place(fmaps, frame):
    """The address where the process mapped the file offset of FRAME (of
    trace-cmd: an offset in the file frame.obj), or None."""
    for start, end, pgoff in fmaps.get(frame.obj, ()):
        if pgoff <= frame.addr < pgoff + end - start:
            return start + frame.addr - pgoff
    return None


def trace_cmd_stacks(path, pid, fmaps):
    """[(count, [ip, ...])] of PID's deferred stacks in a symbolized
    trace-cmd report, each counted once, and how many of them had no
    cookie event of their own before them.  A frame the process did not
    map is -1, which no mapping holds."""
    with open(path, errors="replace") as f:
        stacks = ustacks.trace_cmd(f, pid)[0]
    out = []
    for t in stacks:
        ips = [place(fmaps, fr) for fr in t.stack]
        out.append((1, [-1 if ip is None else ip for ip in ips]))
    return out, sum(t.orphan for t in stacks)


def bpf_profile_stacks(path):
    """[(count, [ip, ...])] and the maps of a bpf-profile output; the
    samples without a stack as one entry with none."""
    with open(path) as f:
        try:
            _, map_lines, stacks, nostack = ustacks.bpf_profile(f)
        except ValueError as e:
            sys.exit("%s: %s" % (path, e))
    return stacks + [(nostack, [])], ustacks.read_maps(map_lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--control", action="store_true")
    ap.add_argument("--share", type=int, default=100)
    ap.add_argument("program")
    ap.add_argument("least", type=int)
    ap.add_argument("kind", choices=("trace-cmd", "bpf-profile"))
    ap.add_argument("path")
    ap.add_argument("maps", nargs="?")
    ap.add_argument("pid", nargs="?", type=int)
    a = ap.parse_args()
    control, share, program, least, kind, path = (
        a.control, a.share, a.program, a.least, a.kind, a.path)
    orphans = 0
    if kind == "trace-cmd":
        if a.maps is None or a.pid is None:
            ap.error("trace-cmd needs MAPS and PID")
        with open(a.maps) as f:
            lines = f.readlines()
        maps = ustacks.read_maps(lines)
        stacks, orphans = trace_cmd_stacks(path, a.pid, file_maps(lines))
    else:
        stacks, maps = bpf_profile_stacks(path)
    real = os.path.realpath(program)
    mine = [m for m in maps if os.path.realpath(m[2]) == real]
    if not mine:
        print("  %s is not in the maps of the process" % real)
        return 1
    e_entry, pie = entry(real)
    start = (min(m[0] for m in mine) if pie else 0) + e_entry

    def frames(ips):
        """IPS as lib/ustacks.py's frames: the object that holds each,
        and _start the only name."""
        return [ustacks.Frame(ip, "_start" if start <= ip < start + START_SIZE
                              else None, ustacks.where(maps, ip)[0])
                for ip in ips]

    samples = [(count, frames(ips)) for count, ips in stacks]
    fig = ustacks.figures(samples, "_start")
    total, whole = fig.samples, fig.reached
    if not control:
        short = [(count, st) for count, st in samples
                 if count and not ustacks.reaches(st, "_start")]
        for count, st in short[:2]:
            print("  a stack short of _start (%#x), %d times:" % (start, count))
            if not st:
                print("    (none: samples that got no stack)")
            for fr in st:
                print("    %x %s" % (fr.addr, fr.obj or "?"))
    print("  %s, %s: %d stacks, %d of them whole to _start%s" %
          (os.path.basename(program), kind, total, whole,
           ", %d without their cookie" % orphans if kind == "trace-cmd" else ""))
    if total < least or orphans:
        return 1
    if control:
        return 0 if whole * 100 < share * total else 2
    return 0 if whole * 100 >= share * total else 1


sys.exit(main())
