#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""trace-cmd-stacks.py NAMED OUT - the delayed user stacks of a stock
"trace-cmd report" whose frames userspace/trace-cmd/ustack-symbolize has
named (NAMED): write them to OUT, one frame per line as "OFFSET FUNCTION
(OBJECT)", and print one summary line: stacks, share of stacks with a
main() frame, mean depth."""

import re
import sys

import ustacks

FRAME = re.compile(r"^ => <([0-9a-f]+)> (\S+) \((.*)\)$")


def read_stacks(path):
    """[[(offset, function, object), ...]] of the user_unwind_stack
    entries of NAMED."""
    stacks, cur = [], None
    with open(path, errors="replace") as f:
        for line in f:
            m = FRAME.match(line)
            if "user_unwind_stack:" in line:
                cur = []
                stacks.append(cur)
            elif cur is not None and m:
                func = m.group(2).split("+")[0]
                cur.append((int(m.group(1), 16),
                            "[unknown]" if func == "??" else func,
                            m.group(3).rsplit("/", 1)[-1]))
            else:
                cur = None
    return stacks


def main():
    named, out = sys.argv[1:3]
    stacks = read_stacks(named)
    sym = {fr: fr[1:] for st in stacks for fr in st}
    with open(out, "w") as f:
        for st in stacks:
            for off, func, obj in st:
                f.write("%16x %s (%s)\n" % (off, func, obj))
            f.write("\n")
    print("%8d %13.1f%% %11.1f" % ustacks.summary([(1, st) for st in stacks], sym))


if __name__ == "__main__":
    main()
