#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# debian-index.py COMMAND ARGS... - read one Debian archive index (the
# text, uncompressed) from standard input and print what COMMAND asks
# for.  The one parser of the indexes that lib/fetch.sh reads; its shell
# functions (release_sha256, index_files, sources_file) call it.
#
#   release-sha256 PATH       the sha256 that the SHA256 field of a Release
#                             (its first paragraph, as apt reads it) lists
#                             for PATH (e.g. main/source/Sources.xz)
#   index-files source REGEX  "path version sha256" of every file of the
#                             source packages of Sources whose name REGEX
#                             matches whole (Python's re.fullmatch)
#   index-files binary REGEX  "path version sha256" of the .deb of the
#                             packages of Packages whose name REGEX matches
#   sources-file NAME         "path sha256" of the file NAME, compared as
#                             a string, in each paragraph of Sources that
#                             lists it
#
# The text is deb822: paragraphs of "Field: value" lines separated by
# blank lines, field names in any case, a value continued on the lines
# after it that start with a space or a tab.  Checksums-Sha256 and SHA256
# are such multi-line fields; a Sources paragraph may name its Directory
# before or after them.  Output is in the index's order, one line per
# file and paragraph; sorting and merging are the callers'.
#
# The index is signed, but its text is still input: whatever does not
# parse (a line that is no field, a field given twice, a field missing or
# empty or of more than one word, a checksum that is not 64 hex digits, a
# path that is absolute or has an empty, "." or ".." component, a file
# name with a "/") is reported on standard error with its line number,
# and the paragraph or the checksum line is skipped: nothing is taken in
# part.  Exit status: 0, also when nothing matched; 1 when a Release does
# not list PATH, lists it with two sums or its SHA256 does not parse; 2
# on a wrong use (unknown command, a REGEX that does not compile).

import re
import signal
import sys

PROG = "debian-index"
HEX64 = re.compile(r"[0-9a-f]{64}")
# A file name: printable ASCII without space or "/".
NAME = re.compile(r"[!-.0-~]+")
SIZE = re.compile(r"[0-9]+")
# A field name: printable ASCII without space or ":".
FIELD = re.compile(r"[!-9;-~]+")


class Skip(Exception):
    """A paragraph, or one line of it, that is not what an index has."""


def warn(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)


def paragraphs(text):
    """(line, fields) per paragraph: the number of its first line and a
    dict of its fields by lower-case name, each a list of lines (the value
    on the field's own line, then the continuation lines, stripped).  A
    paragraph that does not parse is reported and left out."""
    fields, first, bad, key = {}, 0, None, None
    lines = text.split("\n")
    for n, line in enumerate(lines + [""], 1):
        if line.strip() == "":
            if fields and bad is None:
                yield first, fields
            elif bad is not None:
                warn(f"line {bad[0]}: {bad[1]}; paragraph of line {first} skipped")
            fields, first, bad, key = {}, 0, None, None
            continue
        if not first:
            first = n
        if bad is not None:
            continue
        if line[0] in " \t":
            if key is None:
                bad = (n, "a continuation line without a field")
            else:
                fields[key].append(line.strip())
            continue
        name, colon, value = line.partition(":")
        if not colon or not FIELD.fullmatch(name):
            bad = (n, "not a field")
            continue
        key = name.lower()
        if key in fields:
            bad = (n, f"{name} given twice")
            continue
        fields[key] = [value.strip()]


def token(fields, key, what):
    """The one-word value of the field KEY."""
    value = fields.get(key.lower())
    if value is None or value[0] == "":
        raise Skip(f"no {key}")
    if len(value) > 1 or len(value[0].split()) != 1:
        raise Skip(f"{key} is not one word: {' '.join(value)!r}")
    if what and not what(value[0]):
        raise Skip(f"{key} {value[0]!r} is not {what.__doc__}")
    return value[0]


def sha256(s):
    """a sha256"""
    return HEX64.fullmatch(s) is not None


def name(s):
    """a file name"""
    return NAME.fullmatch(s) is not None and s not in (".", "..")


def path(s):
    """a relative path"""
    return all(name(c) for c in s.split("/"))


def version(s):
    """a version"""
    return re.fullmatch(r"[0-9A-Za-z.+~:-]+", s) is not None


def checksums(fields, key, line, what):
    """(sha256, name) of each line "SHA256 SIZE NAME" of the multi-line
    field KEY, NAME what() takes; a line that is not is reported and left
    out."""
    value = fields.get(key.lower())
    if value is None:
        raise Skip(f"no {key}")
    if value[0] != "":
        raise Skip(f"{key} has a value on its own line")
    for text in value[1:]:
        w = text.split()
        if len(w) == 3 and sha256(w[0]) and SIZE.fullmatch(w[1]) and what(w[2]):
            yield w[0], w[2]
        else:
            warn(f"paragraph of line {line}: {key} line {text!r} is not "
                 "\"SHA256 SIZE NAME\"; skipped")


def skipped(line, fields, e):
    pkg = fields.get("package", ["?"])[0] or "?"
    warn(f"paragraph of line {line} ({pkg}): {e}; skipped")


def release_sha256(text, want):
    """The SHA256 field of the first paragraph, as apt reads a Release."""
    for line, fields in paragraphs(text):
        try:
            sums = {s for s, n in checksums(fields, "SHA256", line, path) if n == want}
        except Skip as e:
            warn(f"Release: {e}")
            return 1
        if len(sums) > 1:
            warn(f"Release lists {want} with different sums: {' '.join(sorted(sums))}")
            return 1
        if not sums:
            return 1
        print(sums.pop())
        return 0
    return 1


def source_files(text, match, want=None):
    """(path, version, sha256, name) of each file of each Sources paragraph
    whose package match() takes; with WANT, of the file named WANT only,
    in any paragraph."""
    for line, fields in paragraphs(text):
        try:
            if not match(token(fields, "Package", None)):
                continue
            files = [(s, n) for s, n in checksums(fields, "Checksums-Sha256", line, name)
                     if want is None or n == want]
            if not files:
                continue
            ver = token(fields, "Version", version)
            d = token(fields, "Directory", path)
        except Skip as e:
            skipped(line, fields, e)
            continue
        for sha, n in files:
            yield f"{d}/{n}", ver, sha, n


def binary_files(text, match):
    for line, fields in paragraphs(text):
        try:
            pkg = token(fields, "Package", None)
            if not match(pkg):
                continue
            f = token(fields, "Filename", path)
            ver = token(fields, "Version", version)
            sha = token(fields, "SHA256", sha256)
        except Skip as e:
            skipped(line, fields, e)
            continue
        yield f, ver, sha


def usage():
    warn("usage: debian-index.py release-sha256 PATH | "
         "index-files source|binary REGEX | sources-file NAME")
    return 2


def main(argv):
    # A reader that stops early (head) is no error.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if len(argv) < 2:
        return usage()
    cmd, args = argv[1], argv[2:]
    if cmd == "index-files" and len(args) == 2 and args[0] in ("source", "binary"):
        try:
            regex = re.compile(args[1])
        except re.error as e:
            warn(f"index-files: {args[1]!r} is no regular expression: {e}")
            return 2
    elif cmd not in ("release-sha256", "sources-file") or len(args) != 1:
        return usage()
    # Values are ASCII; other bytes (a Maintainer's name) pass through.
    text = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    if cmd == "release-sha256":
        return release_sha256(text, args[0])
    if cmd == "sources-file":
        for p, _, sha, _ in source_files(text, lambda _: True, args[0]):
            print(p, sha)
    elif args[0] == "source":
        for p, ver, sha, _ in source_files(text, regex.fullmatch):
            print(p, ver, sha)
    else:
        for p, ver, sha in binary_files(text, regex.fullmatch):
            print(p, ver, sha)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
