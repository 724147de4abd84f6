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
function starts are not relocated yet.  The ELF files are read with
pyelftools (Debian's python3-pyelftools, which fuzz.sh installs)."""

import os
import struct
import sys

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

MACHINES = {"EM_X86_64": 0, "EM_AARCH64": 1}


def seeds(path):
    """(name, seed) of each seed that the file at @path gives."""
    with open(path, "rb") as f:
        try:
            elf = ELFFile(f)
        except ELFError:
            return
        if (elf.elfclass != 64 or not elf.little_endian or
                elf["e_type"] not in ("ET_EXEC", "ET_DYN") or
                elf["e_machine"] not in MACHINES):
            return
        sframe = elf.get_section_by_name(".sframe")
        text = elf.get_section_by_name(".text")
        if sframe is None or text is None:
            return
        arm64 = MACHINES[elf["e_machine"]]
        data = sframe.data()
        delta = text["sh_addr"] - sframe["sh_addr"]
    name = ("arm64-" if arm64 else "x86_64-") + os.path.basename(path)
    for validate in (0, 2):
        yield ("%s-%d" % (name, validate),
               struct.pack("<Bi", arm64 | validate, delta) + data)


def main():
    outdir, files = sys.argv[1], sys.argv[2:]
    os.makedirs(outdir, exist_ok=True)
    n = 0
    for path in files:
        if not os.path.isfile(path):
            continue
        for name, seed in seeds(path):
            with open(os.path.join(outdir, name), "wb") as f:
                f.write(seed)
            n += 1
    print("%d seeds in %s" % (n, outdir))


main()
