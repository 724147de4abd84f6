#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bpf-profile-report.py PROFILE TEMPLATE STACKS FLAME - name the frames
of a bpf-profile output (userspace/bpf-profile), write its stacks to
STACKS, one frame per line as "ADDR FUNCTION (OBJECT)" after a line with
the count, and a flame graph to FLAME, with the d3-flame-graph TEMPLATE
that perf's flame graph script fills (demo/flamegraph-template.sh),
filled the same way.  Prints one summary line: samples with a stack,
share of them with a main() frame, mean depth."""

import json
import sys

import ustacks


def read_profile(path):
    """(comment, map lines, [(count, [addr, ...])]) of a bpf-profile file."""
    comment, maps, stacks, part = "", [], [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                comment = line.lstrip("# ")
            elif line in ("maps:", "stacks:"):
                part = line
            elif part == "maps:":
                maps.append(line)
            elif part == "stacks:" and line:
                words = line.split()
                stacks.append((int(words[0]), [int(w, 16) for w in words[1:]]))
    return comment, maps, stacks


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
    comment, map_lines, stacks = read_profile(profile)
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
    print("%8d %13.1f%% %11.1f" % ustacks.summary(stacks, sym))


if __name__ == "__main__":
    main()
