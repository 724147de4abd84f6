#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""seeds.py OUTDIR ARCH MACHINE BIT ELF...: seeds for sframe-fuzz
(tools/testing/sframe/fuzz.c) from the .sframe sections of the
executables and shared objects of the architecture ARCH: those whose
e_machine is MACHINE (as pyelftools names it), ELF_MACHINE of
config/arch/ARCH.sh, with BIT, its FUZZ_ARCH, as the architecture's bit.

Each seed is the fuzzer's input: an options byte (bit 0: the arch; bit 1:
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


def seeds(path, arch, machine, bit):
    """(name, seed) of each seed that the file at @path gives, if it is
    of @machine."""
    with open(path, "rb") as f:
        try:
            elf = ELFFile(f)
        except ELFError:
            return
        if (elf.elfclass != 64 or not elf.little_endian or
                elf["e_type"] not in ("ET_EXEC", "ET_DYN") or
                elf["e_machine"] != machine):
            return
        sframe = elf.get_section_by_name(".sframe")
        text = elf.get_section_by_name(".text")
        if sframe is None or text is None:
            return
        data = sframe.data()
        delta = text["sh_addr"] - sframe["sh_addr"]
    name = arch + "-" + os.path.basename(path)
    for validate in (0, 2):
        yield ("%s-%d" % (name, validate),
               struct.pack("<Bi", bit | validate, delta) + data)


def main():
    outdir, arch, machine, bit = sys.argv[1:5]
    files = sys.argv[5:]
    os.makedirs(outdir, exist_ok=True)
    n = 0
    for path in files:
        if not os.path.isfile(path):
            continue
        for name, seed in seeds(path, arch, machine, int(bit)):
            with open(os.path.join(outdir, name), "wb") as f:
                f.write(seed)
            n += 1
    print("%d seeds in %s" % (n, outdir))


main()
