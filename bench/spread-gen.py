#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# spread-gen.py DIR - write the sources of unwind-cost's spread stack
# (bench/spread.h) to DIR: spread-lib0.c ... one per library, and
# spread-table.c, the functions in their random but fixed call order.
import random
import sys

NR_LIBS, NR = 4, 128
out = sys.argv[1]
order = list(range(NR))
random.Random(20261124).shuffle(order)
pos = {f: k for k, f in enumerate(order)}
per_lib = NR // NR_LIBS

for lib in range(NR_LIBS):
    src = ['#include "spread.h"\n']
    for f in range(lib * per_lib, (lib + 1) * per_lib):
        k = pos[f]
        # A frame of its own size; no tail call, so a frame of its own.
        src.append(f"""
int spread_{f}(const struct spread *sp, int depth)
{{
	volatile char frame[{16 * (f % 8 + 1)}];

	frame[0] = depth;
	if (!depth)
		return sp->leaf() + frame[0];
	return sp->fn[{min(k + 1, NR - 1)}](sp, depth - 1) + frame[0];
}}
""")
    with open(f"{out}/spread-lib{lib}.c", "w") as fh:
        fh.write("".join(src))

with open(f"{out}/spread-table.c", "w") as fh:
    fh.write('#include "spread.h"\n\n')
    for f in order:
        fh.write(f"int spread_{f}(const struct spread *sp, int depth);\n")
    fh.write("\nconst spread_fn spread_order[NR_SPREAD] = {\n")
    fh.write("".join(f"\tspread_{f},\n" for f in order))
    fh.write("};\n")
