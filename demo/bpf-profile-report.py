#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bpf-profile-report.py PROFILE TEMPLATE STACKS FLAME - name the frames
of a bpf-profile output (userspace/bpf-profile), write its stacks to
STACKS, one frame per line as "ADDR FUNCTION (OBJECT)" after a line with
the count, and a flame graph to FLAME, with the d3-flame-graph TEMPLATE
that perf's flame graph script fills (demo/flamegraph-template.sh),
filled the same way.  Prints one summary line: samples (those without
a stack included), share of them whose stack reaches main()
(lib/ustacks.py: reaches(); a sample without a stack does not), mean
depth of the stacks."""

import json
import os
import sys

# No __pycache__ in the project's tree, which the guests share
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import ustacks  # noqa: E402


def flame_tree(stacks, sym):
    """The tree perf's flame graph template draws: nodes of name "n",
    kind "l" ("" for user space), own samples "v" and children "c", from
    the root (outermost frames) up."""
    root = {"n": "all", "l": "root", "v": 0, "c": []}
    for count, st in stacks:
        node = root
        for a in reversed(st):
            fn, obj = sym.get(a, ("[unknown]", "?"))
            name = "%s (%s)" % (fn, obj)
            child = next((c for c in node["c"] if c["n"] == name), None)
            if child is None:
                child = {"n": name, "l": "", "v": 0, "c": []}
                node["c"].append(child)
            node = child
        node["v"] += count
    return root


def main():
    profile, template, stacks_out, flame = sys.argv[1:5]
    with open(profile) as f:
        comment, map_lines, stacks, nostack = ustacks.bpf_profile(f)
    maps = ustacks.read_maps(map_lines)
    sym = ustacks.names(maps, [st for _, st in stacks])
    with open(stacks_out, "w") as f:
        for count, st in sorted(stacks, key=lambda s: -s[0]):
            f.write("%d samples\n" % count)
            for a in st:
                f.write("%16x %s (%s)\n" % ((a,) + sym.get(a, ("[unknown]", "?"))))
            f.write("\n")
    with open(template) as f:
        html = f.read()
    options = {"colorscheme": "blue-green", "context": comment}
    html = html.replace("/** @options_json **/", json.dumps(options))
    html = html.replace("/** @flamegraph_json **/",
                        json.dumps(flame_tree(stacks, sym)))
    with open(flame, "w") as f:
        f.write(html)
    samples = [(count, ustacks.named(st, maps, sym)) for count, st in stacks]
    print(ustacks.summary_line(
        ustacks.figures(samples + [(nostack, [])], "main")))


if __name__ == "__main__":
    main()
