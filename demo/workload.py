# SPDX-License-Identifier: GPL-2.0
#
# The demo's workload for Debian's own python3, not rebuilt: CPU-bound and
# deterministic, and shaped so that the interpreter's C stack has more
# than its evaluation loop: sorts whose key is a Python function (C calls
# Python), JSON encoding and decoding and regular expressions (C code of
# the interpreter's built-in modules, _json and _sre), and a recursive
# Fibonacci.
#
# python3 workload.py [ROUNDS]

import json
import re
import sys

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
seed = 42


def rand():
    global seed
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def by_digits(x):
    return (x % 1000, x // 1000)


def records(n):
    return [{"id": i, "value": rand(), "name": "item-%d" % rand()}
            for i in range(n)]


WORD = re.compile(r"item-(\d+)")

total = 0
for _ in range(rounds):
    data = sorted((rand() for _ in range(300)), key=by_digits)
    text = json.dumps(records(60))
    total += sum(int(m.group(1)) % 7 for m in WORD.finditer(text))
    total += len(json.loads(text)) + fib(12) + data[0] % 3
print(total)
