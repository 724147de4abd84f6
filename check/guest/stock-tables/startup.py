#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""startup.py MODULE TABLES EMPTY ROUNDS

What registering the tables costs a stock python3: the time of
"python3 -c pass" and the memory of a python3 that has started, three
ways, taken in turn ROUNDS times so that the guest's drift hits all
three alike:

  plain    no audit module;
  module   the rtld-audit module MODULE with the empty directory EMPTY:
           what the module costs by itself (ld.so loads it in a
           namespace of its own, with a second libc);
  tables   the module with the directory TABLES: every object's table
           mapped and registered in place (PRCTL_SFRAME_VADDR).

Prints the median time of each and the memory (Rss and Private_Dirty of
/proc/self/smaps_rollup) of the last run of each.  Fails only if a run
fails: the numbers are for the report, the guest's clock is too coarse
and its speed too uneven for a limit.
"""

import os
import statistics
import subprocess
import sys
import time

MEMORY = ("import sys; "
          "sys.stdout.write(open('/proc/self/smaps_rollup').read())")


def env(module, tables):
    e = dict(os.environ)
    if module:
        e["LD_AUDIT"] = module
        e["SFRAME_TABLE_DIR"] = tables
    return e


def memory(e):
    out = subprocess.run(["python3", "-c", MEMORY], env=e, check=True,
                         capture_output=True, text=True).stdout
    kb = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == "kB":
            kb[f[0].rstrip(":")] = int(f[1])
    return kb.get("Rss", 0), kb.get("Private_Dirty", 0)


def main():
    module, tables, empty, rounds = sys.argv[1:5]
    ways = {"plain": env(None, None), "module": env(module, empty),
            "tables": env(module, tables)}
    times = {w: [] for w in ways}
    for _ in range(int(rounds)):
        for w, e in ways.items():
            t = time.perf_counter()
            subprocess.run(["python3", "-c", "pass"], env=e, check=True)
            times[w].append(time.perf_counter() - t)
    base = statistics.median(times["plain"])
    print("  python3 -c pass, median of %s runs each:" % rounds)
    for w, e in ways.items():
        m = statistics.median(times[w])
        rss, dirty = memory(e)
        print("    %-7s %7.1f ms (%+5.1f%%)  Rss %6d kB  Private_Dirty %6d kB"
              % (w, 1000 * m, 100 * (m - base) / base, rss, dirty))
    return 0


sys.exit(main())
