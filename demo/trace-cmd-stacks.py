#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""trace-cmd-stacks.py NAMED OUT - the delayed user stacks of a stock
"trace-cmd report" whose frames userspace/trace-cmd/ustack-symbolize has
named (NAMED): write them to OUT, one frame per line as "OFFSET FUNCTION
(OBJECT)", and print one summary line: stacks, share of the stacks that
reach main() (lib/ustacks.py: reaches()), mean depth."""

import os
import sys

# No __pycache__ in the project's tree, which the guests share
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import ustacks  # noqa: E402


def main():
    named, out = sys.argv[1:3]
    with open(named, errors="replace") as f:
        stacks = [t.stack for t in ustacks.trace_cmd(f)[0]]
    with open(out, "w") as f:
        for st in stacks:
            for fr in st:
                f.write("%16x %s (%s)\n" % (
                    fr.addr, fr.func or "[unknown]",
                    fr.obj.rsplit("/", 1)[-1] if fr.obj else "?"))
            f.write("\n")
    print(ustacks.summary_line(
        ustacks.figures([(1, st) for st in stacks], "main")))


if __name__ == "__main__":
    main()
