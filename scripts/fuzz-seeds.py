#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fuzz-seeds.py OUTDIR ELF...: seeds for sframe-fuzz
(tools/testing/sframe/fuzz.c) from the .sframe sections of x86_64 and
aarch64 executables and shared objects.

Each seed is the fuzzer's input: an options byte (bit 0: arm64; bit 1:
validate the section first), the offset from the section to the start of
.text as a little-endian 32-bit number (the fuzzer maps the section and
looks up PCs there), then the section.  Each section gives two seeds,
with and without validation.  Relocatable objects are skipped: their
function starts are not relocated yet."""

import os
import struct
import sys

EM_X86_64 = 62
EM_AARCH64 = 183


def sections(data):
    """{name: (addr, offset, size)} of an ELF64 little-endian file."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
            for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    out = {}
    for h in hdrs:
        end = data.index(b"\0", stroff + h[0])
        out[data[stroff + h[0]:end].decode()] = (h[3], h[4], h[5])
    return out


def main():
    outdir, files = sys.argv[1], sys.argv[2:]
    os.makedirs(outdir, exist_ok=True)
    n = 0
    for path in files:
        if not os.path.isfile(path):
            continue
        data = open(path, "rb").read()
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            continue
        etype, machine = struct.unpack_from("<HH", data, 16)
        if etype not in (2, 3) or machine not in (EM_X86_64, EM_AARCH64):
            continue
        secs = sections(data)
        if ".sframe" not in secs or ".text" not in secs:
            continue
        addr, off, size = secs[".sframe"]
        text = secs[".text"][0]
        arm64 = 1 if machine == EM_AARCH64 else 0
        name = ("arm64-" if arm64 else "x86_64-") + os.path.basename(path)
        for validate in (0, 2):
            head = struct.pack("<Bi", arm64 | validate, text - addr)
            with open(os.path.join(outdir, "%s-%d" % (name, validate)),
                      "wb") as f:
                f.write(head + data[off:off + size])
            n += 1
    print("%d seeds in %s" % (n, outdir))


main()
