#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""trace-cmd-stacks.py REPORT DUMP OUT - name the frames of deferred user
stacks in a "trace-cmd report" (REPORT), with the address maps that
"trace-cmd record --proc-map" saved ("trace-cmd dump --options", DUMP),
write the stacks to OUT, one frame per line as "ADDR FUNCTION OBJECT",
and print one summary line: stacks, share of stacks with a main() frame,
mean depth."""

import sys

import ustacks


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


def main():
    report, dump, out = sys.argv[1:4]
    with open(dump, errors="replace") as f:
        maps = ustacks.read_maps(f)
    stacks = read_stacks(report)
    sym = ustacks.names(maps, stacks)
    with open(out, "w") as f:
        for st in stacks:
            for a in st:
                f.write("%16x %s (%s)\n" % ((a,) + sym.get(a, ("[unknown]", "?"))))
            f.write("\n")
    print("%8d %13.1f%% %11.1f" % ustacks.summary([(1, st) for st in stacks], sym))


if __name__ == "__main__":
    main()
