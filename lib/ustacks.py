# SPDX-License-Identifier: GPL-2.0
"""User stacks as the project's consumers of deferred stacks print them,
and the one measure of them that the demo and the tests share.

Parsers, each of one tool's text:
  trace_cmd()    stock "trace-cmd report" once
                 userspace/trace-cmd/ustack-symbolize has named its frames
  bpf_profile()  the output of userspace/bpf-profile
  perf_script()  "perf script -F ip,sym[,dso]" (and comm, or more fields,
                 before the frames) of a recording with callchains
and read_maps(), where() and names() (addr2line) for bpf-profile's
addresses.

The measure: reaches() says whether one stack reaches the start of its
program, figures() counts it over samples.  Users: demo/demo.sh (the
perf lines of its summary, through "python3 lib/ustacks.py
perf-script"), demo/trace-cmd-stacks.py, demo/bpf-profile-report.py,
check/guest/stock-tables/reach.py (stock-consumers.sh,
stock-attached.sh), check/guest/trace-cmd.sh, check/guest/perf-audit.sh.
Its fixture test: check/pipeline/ustacks.sh.

A stack is a list of Frame, innermost first: addr is the address the
consumer printed (a file offset for trace-cmd), func the function's name
or None where the consumer named none, obj the object's path (or what
the consumer calls it) or None for a frame that the consumer placed in
no mapping.  A sample is (count, stack); a sample without a stack has an
empty one.
"""

import collections
import re
import subprocess
import sys

Frame = collections.namedtuple("Frame", "addr func obj")
Figures = collections.namedtuple("Figures", "samples reached share depth")

# Where a stack must reach to count: "main", for a program whose C
# library has no unwinding information (the demo's Lua runs on Debian's),
# or "_start", for the stock programs, which have no symbol for main().
STARTS = ("main", "_start")


def _in(func, name):
    """Whether FUNC is NAME, or a version or alias of it
    (__libc_start_main@@GLIBC_2.34, __libc_start_main_impl)."""
    return func is not None and (func == name or
                                 re.match(re.escape(name) + r"(@|_impl$)",
                                          func) is not None)


def reaches(stack, start):
    """Whether STACK reaches START ("main" or "_start"):

    "_start": its outermost frame is in _start: a frame named _start
    (a caller that knows where _start is but has no symbol for it, as
    reach.py from the ELF entry point, names that frame so), or the one
    after a frame in __libc_start_main, which only _start calls: some
    stock programs (xz, mawk) have no symbol for _start.  A frame past
    _start is an unwinder that went astray, and fails.
    "main": one of its frames is in main(); the frames past it, the C
    library's start, are not judged.
    Either way every frame from the innermost to that one must lie in a
    mapping (Frame.obj not None).  An empty stack reaches nothing."""
    if start not in STARTS:
        raise ValueError("start: %r" % (start,))
    for fr in stack:
        if fr.obj is None:
            return False
        if start == "main" and _in(fr.func, "main"):
            return True
    if start == "main" or not stack:
        return False
    last = stack[-1]
    return _in(last.func, "_start") or \
        (len(stack) > 1 and _in(stack[-2].func, "__libc_start_main"))


def figures(samples, start):
    """Figures of SAMPLES ([(count, stack)]): samples (the sum of the
    counts, those without a stack included), reached (how many of them
    reach START, reaches()), share (reached / samples, in percent: a
    sample without a stack counts as one that does not reach) and depth
    (the mean number of frames of the samples that have a stack)."""
    n = reached = with_stack = frames = 0
    for count, stack in samples:
        n += count
        if stack:
            with_stack += count
            frames += count * len(stack)
        if reaches(stack, start):
            reached += count
    return Figures(n, reached, 100.0 * reached / n if n else 0.0,
                   frames / with_stack if with_stack else 0.0)


def summary_line(fig):
    """The demo's columns: samples, share reaching, mean depth."""
    return "%8d %13.1f%% %11.1f" % (fig.samples, fig.share, fig.depth)


# trace-cmd report, named by ustack-symbolize.  An entry's header:
# "COMM-PID [CPU] ... TIME: EVENT: ..." (the default layout, which is the
# one the users read); its frames follow it, one a line:
# " => <OFFSET> FUNCTION+0xN (PATH)", "??" where it named none, and
# "(no file)", "(not mapped)" or "(inode N dev M:m)" for the object.
TC_HEADER = re.compile(r"^\s*\S.*-(\d+)\s+\[\d+\]")
TC_FRAME = re.compile(r"^ => <([0-9a-f]+)> (\S+) \((.*)\)$")
TC_COOKIE = re.compile(r"user_unwind_cookie:.*\bcookie=(?:0x)?([0-9a-f]+)")
TC_STACK = re.compile(r"user_unwind_stack:\s+cookie=(?:0x)?([0-9a-f]+)")

TraceStack = collections.namedtuple("TraceStack", "pid cookie stack orphan")


def trace_cmd(lines, pid=None):
    """([TraceStack], {pid: [cookie, ...]}) of the user_unwind_stack and
    user_unwind_cookie events of a named report (of PID's entries only,
    if given), in their order.  A stack's frames' addresses are file offsets; obj is
    None for "no file" and "not mapped".  orphan: no cookie event of the
    task gave the stack's cookie before it, or an earlier stack had it
    (a stack must follow its own request, once)."""
    stacks, cookies, used = [], {}, set()
    cur = None
    for line in lines:
        line = line.rstrip("\n")
        h = TC_HEADER.match(line)
        if h:
            cur = None
            p = int(h.group(1))
            if pid is not None and p != pid:
                continue
            m = TC_COOKIE.search(line)
            if m:
                cookies.setdefault(p, []).append(int(m.group(1), 16))
            m = TC_STACK.search(line)
            if m:
                cookie = int(m.group(1), 16)
                orphan = cookie not in cookies.get(p, ()) or \
                    (p, cookie) in used
                used.add((p, cookie))
                cur = []
                stacks.append(TraceStack(p, cookie, cur, orphan))
            continue
        m = TC_FRAME.match(line)
        if m and cur is not None:
            func = m.group(2).split("+")[0]
            where = m.group(3)
            cur.append(Frame(int(m.group(1), 16),
                             None if func == "??" else func,
                             None if where in ("no file", "not mapped")
                             else where))
        else:
            cur = None
    return stacks, cookies


BPF_COUNTS = re.compile(r"without a stack: (\d+) not requested, (\d+) not "
                        r"delivered, (\d+) unreadable; (\d+) records lost")


def bpf_profile(lines):
    """(comment, map lines, [(count, [addr, ...])], samples without a
    stack) of a bpf-profile output: its first line, "# ...", counts the
    samples that got no stack (not requested, not delivered, unreadable,
    lost records).  A stack line that is not a count and addresses raises
    ValueError, with its line, for the caller to report."""
    comment, maps, stacks, part, nostack = "", [], [], None, 0
    for line in lines:
        line = line.rstrip("\n")
        if line.startswith("#"):
            comment = line.lstrip("# ")
            m = BPF_COUNTS.search(line)
            if m:
                nostack = sum(int(n) for n in m.groups())
        elif line in ("maps:", "stacks:"):
            part = line
        elif part == "maps:":
            maps.append(line)
        elif part == "stacks:" and line:
            words = line.split()
            try:
                stacks.append((int(words[0]),
                               [int(w, 16) for w in words[1:]]))
            except ValueError:
                raise ValueError("not a count and addresses: %r" % line)
    return comment, maps, stacks, nostack


# perf script: a sample's fields other than the callchain on its first
# line (none with -F ip,sym), then one frame a line, indented: "ADDR
# SYMBOL" or, with dso, "ADDR SYMBOL (DSO)"; an empty line ends it.
PERF_FRAME = re.compile(r"^\s*([0-9a-f]+) (.*?)(?: \((.*)\))?$")

PerfSample = collections.namedtuple("PerfSample", "header stack")


def perf_script(lines, dso=True, header=False):
    """[PerfSample] of perf script's text.  DSO: whether it was run
    with the dso field, which places a frame ("[unknown]": in no
    mapping, obj None); without it every frame is taken as mapped.
    HEADER: whether fields other than ip, sym and dso were asked for,
    which perf prints on a line of their own before the frames.  A
    symbol perf could not name ("[unknown]") is None."""
    samples, head, stack = [], None, None
    for line in list(lines) + [""]:
        line = line.rstrip("\n")
        if not line.strip():
            if stack is not None:
                samples.append(PerfSample(head, stack))
            head, stack = None, None
            continue
        if stack is None:
            stack = []
            if header:
                head = line.strip()
                continue
        m = PERF_FRAME.match(line)
        if not m:
            continue
        sym = re.sub(r"\+0x[0-9a-f]+$", "", m.group(2))
        obj = m.group(3) if dso else ""
        stack.append(Frame(int(m.group(1), 16),
                           None if sym == "[unknown]" else sym,
                           None if obj in ("[unknown]", None) else obj))
    return samples


def read_maps(lines):
    """[(start, end, object, base)] of every mapping in LINES, as
    bpf-profile prints them ("START END PATH", in hex) or as
    /proc/PID/maps does; base is the lowest address the object is
    mapped at: an address less base is an address of the ELF file, for
    addr2line.  Other lines, such as trace-cmd's "PID NR_MAPS NAME"
    before each process's maps, or mappings of no file, are skipped."""
    maps = []
    for line in lines:
        m = re.match(r"^\s*([0-9a-f]+)[- ]([0-9a-f]+) (?:.*? )?(/\S*)\s*$",
                     line)
        if m and int(m.group(1), 16) < int(m.group(2), 16):
            maps.append((int(m.group(1), 16), int(m.group(2), 16),
                         m.group(3)))
    base = {}
    for start, _, obj in maps:
        base[obj] = min(start, base.get(obj, start))
    return [(start, end, obj, base[obj]) for start, end, obj in maps]


def where(maps, addr):
    """(object, address in its file) of ADDR, or (None, ADDR)."""
    for start, end, obj, base in maps:
        if start <= addr < end:
            return obj, addr - base
    return None, addr


def names(maps, stacks):
    """{addr: (function, object's file name)} of the addresses of
    STACKS ([[addr, ...]]) that MAPS holds, with one addr2line per
    object; "[unknown]" where it names nothing."""
    todo = collections.defaultdict(set)
    for st in stacks:
        for a in st:
            obj, off = where(maps, a)
            if obj:
                todo[obj].add((a, off))
    out = {}
    for obj, addrs in todo.items():
        addrs = sorted(addrs)
        try:
            res = subprocess.run(["addr2line", "-f", "-e", obj] +
                                 ["%#x" % off for _, off in addrs],
                                 capture_output=True, text=True, check=True)
            funcs = res.stdout.splitlines()[0::2]
        except (OSError, subprocess.CalledProcessError):
            funcs = []
        short = obj.rsplit("/", 1)[-1]
        for i, (a, _) in enumerate(addrs):
            fn = funcs[i] if i < len(funcs) and funcs[i] != "??" else "[unknown]"
            out[a] = (fn, short)
    return out


def named(stack, maps, sym):
    """STACK ([addr, ...]) as [Frame], named from SYM (names()): a frame
    outside MAPS has no object, one addr2line did not name no function."""
    out = []
    for a in stack:
        fn, obj = sym.get(a, ("[unknown]", None))
        if where(maps, a)[0] is None:
            obj = None
        out.append(Frame(a, None if fn == "[unknown]" else fn, obj))
    return out


def main(argv):
    """ustacks.py perf-script START [--no-dso] FILE: the demo's summary
    columns (summary_line()) of a perf script output."""
    if len(argv) < 3 or argv[0] != "perf-script" or argv[1] not in STARTS:
        sys.exit("usage: ustacks.py perf-script main|_start [--no-dso] FILE")
    dso = argv[2] != "--no-dso"
    with open(argv[-1], errors="replace") as f:
        samples = perf_script(f, dso)
    print(summary_line(figures([(1, s.stack) for s in samples], argv[1])))


if __name__ == "__main__":
    main(sys.argv[1:])
