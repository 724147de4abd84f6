#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""corrupt.py KIND FROM TO

Copy the table directory FROM (FROM/.build-id/xx/yyyy.sframe, as made by
eh2sframe -d) to TO, each table corrupted the way KIND says:

  header  its header claims FRE bytes past its end (fre_len 0xffffffff),
          which the kernel must refuse at registration;
  fres    the first FRE of every function claims data words of a size
          that does not exist, which the module cannot see and the kernel
          only finds when it looks a frame up in the function.

The header and the FDE index stay valid: the audit module's own checks
pass, and only the kernel stands between the table and the unwinder.
"""

import os
import shutil
import struct
import sys

# struct sframe_header: preamble (4), abi_arch, two offsets, auxhdr_len,
# num_fdes, num_fres, fre_len, fdes_off, fres_off
HEADER = struct.Struct("<HBBBbbBIIIII")
# struct sframe_fde_v3: func_start_off, func_size, fre_off
FDE = struct.Struct("<qII")
# struct sframe_fda_v3: num_fres, info, info2, rep_size; the FREs follow
FDA = struct.Struct("<HBBB")
# The size of an FRE's start address, by the FRE type in the FDA's info
ADDR_SIZE = {0: 1, 1: 2, 2: 4}
# In an FRE's info byte, bits 5-6 are the size of its data words: 3 is
# none of the sizes
BAD_SIZE = 0x60


def corrupt(kind, data):
    (magic, version, flags, arch, fp, ra, auxlen, fdes, fres, fre_len,
     fdes_off, fres_off) = HEADER.unpack_from(data)
    if magic != 0xdee2 or version != 3:
        sys.exit("not an SFrame V3 table")
    if kind == "header":
        HEADER.pack_into(data, 0, magic, version, flags, arch, fp, ra, auxlen,
                         fdes, fres, 0xffffffff, fdes_off, fres_off)
        return
    base, changed = HEADER.size + auxlen, 0
    for i in range(fdes):
        _, _, fre_off = FDE.unpack_from(data, base + fdes_off + i * FDE.size)
        fda = base + fres_off + fre_off
        num_fres, info, _, _ = FDA.unpack_from(data, fda)
        if num_fres and (info & 0xf) in ADDR_SIZE:
            data[fda + FDA.size + ADDR_SIZE[info & 0xf]] |= BAD_SIZE
            changed += 1
    if not changed:
        sys.exit("no FRE to corrupt")


def main():
    kind, src, dst = sys.argv[1:]
    if kind not in ("header", "fres"):
        sys.exit(__doc__)
    shutil.copytree(src, dst)
    n = 0
    for root, _, files in os.walk(dst):
        for name in files:
            if not name.endswith(".sframe"):
                continue
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                data = bytearray(f.read())
            corrupt(kind, data)
            with open(path, "wb") as f:
                f.write(data)
            n += 1
    print("  %d tables corrupted (%s)" % (n, kind))
    return 0 if n else 1


sys.exit(main())
