#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""reach.py [--control] [--share PCT] PROGRAM MIN KIND FILE [MAPS PID]

Do the deferred user stacks of a stock program, taken by another consumer
than perf, reach its start?  A stack is whole when its last frame is in
PROGRAM's _start: within START_SIZE bytes of the entry point of its ELF
header, where PROGRAM was mapped.  Every frame must also be in a file
mapping of the process.

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


def parse_maps(lines):
    """[(start, end, path)] of the file mappings, in either format:
    /proc/PID/maps, or bpf-profile's "START END PATH"."""
    maps = []
    for line in lines:
        m = re.match(r"([0-9a-f]+)[- ]([0-9a-f]+) .*?(/\S*)\s*$", line)
        if m:
            maps.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
    return maps


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


def place(fmaps, off, where):
    """The address of file offset OFF of the file WHERE ("(PATH)") in the
    process, or OFF itself for a frame without a file; None if the
    process did not map it."""
    if not where.startswith("(/"):
        return off if where == "(no file)" else None
    for start, end, pgoff in fmaps.get(where[1:-1], ()):
        if pgoff <= off < pgoff + end - start:
            return start + off - pgoff
    return None


def trace_cmd_stacks(path, pid, fmaps):
    """[(count, [ip, ...])] of PID's deferred stacks in a symbolized
    trace-cmd report, and how many of its stacks had no cookie event of
    their own before them."""
    stacks, cookies, used, orphans = [], set(), set(), 0
    cur = None
    header = re.compile(r"^\s*\S.*-(\d+)\s+\[\d+\]")
    for line in open(path, errors="replace"):
        h = header.match(line)
        if h:
            cur = None
            if int(h.group(1)) != pid:
                continue
            m = re.search(r"user_unwind_cookie:.*cookie=(0x)?([0-9a-f]+)", line)
            if m:
                cookies.add(int(m.group(2), 16))
            m = re.search(r"user_unwind_stack:\s+cookie=([0-9a-f]+)", line)
            if m:
                cookie = int(m.group(1), 16)
                orphans += cookie not in cookies or cookie in used
                used.add(cookie)
                cur = []
                stacks.append((1, cur))
            continue
        m = re.match(r"^ => <([0-9a-f]+)> \S+ (\(.*\))$", line)
        if m and cur is not None:
            ip = place(fmaps, int(m.group(1), 16), m.group(2))
            # An address no mapping has: known() fails it
            cur.append(ip if ip is not None else -1)
    return stacks, orphans


def bpf_profile_stacks(path):
    """[(count, [ip, ...])] and the maps of a bpf-profile output; the
    samples without a stack as one entry with none."""
    part, maps, stacks = None, [], []
    for line in open(path):
        line = line.rstrip("\n")
        m = re.search(r"without a stack: (\d+) not requested, (\d+) not "
                      r"delivered, (\d+) unreadable; (\d+) records lost", line)
        if line.startswith("#") and m:
            stacks.append((sum(int(n) for n in m.groups()), []))
        elif line in ("maps:", "stacks:"):
            part = line
        elif part == "maps:":
            maps.extend(parse_maps([line]))
        elif part == "stacks:" and line:
            f = line.split()
            stacks.append((int(f[0]), [int(x, 16) for x in f[1:]]))
    return stacks, maps


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
        maps = parse_maps(open(a.maps))
        stacks, orphans = trace_cmd_stacks(path, a.pid,
                                           file_maps(open(a.maps)))
    else:
        stacks, maps = bpf_profile_stacks(path)
    real = os.path.realpath(program)
    mine = [m for m in maps if os.path.realpath(m[2]) == real]
    if not mine:
        print("  %s is not in the maps of the process" % real)
        return 1
    e_entry, pie = entry(real)
    start = (min(m[0] for m in mine) if pie else 0) + e_entry

    def known(ip):
        return any(lo <= ip < hi for lo, hi, _ in maps)

    total = whole = 0
    shown = 0
    for count, ips in stacks:
        if not count:
            continue
        total += count
        ok = bool(ips) and start <= ips[-1] < start + START_SIZE and \
            all(known(ip) for ip in ips)
        whole += count if ok else 0
        if not ok and not control and shown < 2:
            shown += 1
            print("  a stack short of _start (%#x), %d times:" % (start, count))
            if not ips:
                print("    (none: samples that got no stack)")
            for ip in ips:
                where = [p for lo, hi, p in maps if lo <= ip < hi]
                print("    %x %s" % (ip, where[0] if where else "?"))
    print("  %s, %s: %d stacks, %d of them whole to _start%s" %
          (os.path.basename(program), kind, total, whole,
           ", %d without their cookie" % orphans if kind == "trace-cmd" else ""))
    if total < least or orphans:
        return 1
    if control:
        return 0 if whole * 100 < share * total else 2
    return 0 if whole * 100 >= share * total else 1


sys.exit(main())
