#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# ktap-results.py [--top] [--name NAME] KUNIT_DIR PREFIX FILE - count the
# results of the (K)TAP in FILE with the kernel's own parser,
# KUNIT_DIR/kunit_parser.py (the one behind "kunit.py parse").  Prints one
# line "pass|fail|skip<TAB>NAME<TAB>REASON" per counted result, for check.sh.
#
# A test case counts as "PREFIX PARENT: CASE" (a top-level test as
# "PREFIX NAME"), without the kselftest runner's "selftests: DIR: ".  A test
# with cases counts itself only when none of them counted (all missing,
# skipped as a whole), or when it failed without a failed case (a program
# that crashed or timed out: "PREFIX NAME (program failed: DIRECTIVE)").
# With --top, each top-level test also counts by its own result line,
# besides its cases: a project test checks more than the cases it passes on.
# What kunit_parser reports as an error (a case missing from the plan, a
# missing result line, a wrong test number) is a failure, with the error
# as its reason; so is a FILE without any KTAP, as NAME (default: PREFIX
# and FILE's base name).
#
# Nesting: kselftest's runner nests a program's KTAP by prefixing each of
# its lines with "# " (the top-level document sees diagnostics) and follows
# it with the program's own result line.  kunit_parser nests by headers
# ("KTAP version", "# Subtest: NAME") and ignores indentation; with the
# "# " stripped from the whole file, a program that stops mid-plan (crash,
# timeout) would have its runner's result line taken for its next case,
# since kselftest prints no "# Subtest:" name to end it at, and every later
# program would shift.  So the file is parsed as it is, and a test whose
# log holds a KTAP document once one level of "# " is removed has that
# document parsed again, alone, for its cases.  That is the least change
# that keeps each program's result line its own, at any depth.
#
# A document may give its plan last, as TAP 13 allows and as a producer
# that does not know its count in advance does (lib/tap.sh's tap_done:
# the host tests, checkpatch, bisect); kunit_parser reads a plan only
# right after the version line, and would take the last one for a test
# that never ended.  So a top-level plan that follows the last result is
# moved to after the version line first.

import argparse
import os
import re
import sys

ap = argparse.ArgumentParser(description='Count the results of a KTAP file.')
ap.add_argument('--top', action='store_true',
		help='count each top-level test by its own result line too')
ap.add_argument('--name', help='name of the file as a whole, in full')
ap.add_argument('kunit_dir', help="the kernel's tools/testing/kunit")
ap.add_argument('prefix', help='prefix of every result name')
ap.add_argument('file', help='the KTAP to count')
args = ap.parse_args()

# The kunit directory belongs to the tree under test: leave no bytecode.
sys.dont_write_bytecode = True
sys.path.insert(0, args.kunit_dir)
import kunit_parser				# noqa: E402
from kunit_parser import TestStatus		# noqa: E402
from kunit_printer import null_printer	# noqa: E402

# kunit_parser prints its errors and does not keep them: keep each on its
# test, to give it as the reason of the failure.
_add_error = kunit_parser.Test.add_error
def add_error(test, printer, message):
	test.__dict__.setdefault('error_messages', []).append(message)
	_add_error(test, printer, message)
kunit_parser.Test.add_error = add_error

MISSING = 'missing expected subtest!'
NO_TESTS = '0 tests run!'
RUNNER_NAME = re.compile(r'^selftests: [^:]*: ')
TOP_RESULT = re.compile(r'^(ok|not ok) [0-9]+ ')
PLAN_SKIP = re.compile(r'^1\.\.0\s*#\s*SKIP\s*(.*)$')
VERSION = re.compile(r'^K?TAP version [0-9]+\s*$')
PLAN = re.compile(r'^1\.\.[0-9]+\s*$')

results = []

def plan_first(lines):
	"""LINES with a top-level plan given last moved to after the version
	line, where kunit_parser looks for it."""
	head = next((i for i, l in enumerate(lines) if VERSION.match(l)), None)
	if head is None or (head + 1 < len(lines) and PLAN.match(lines[head + 1])):
		return lines
	last = max((i for i, l in enumerate(lines) if TOP_RESULT.match(l)),
		   default=head)
	plans = [i for i in range(last + 1, len(lines)) if PLAN.match(lines[i])]
	if len(plans) != 1:
		return lines
	i = plans[0]
	return lines[:head + 1] + [lines[i]] + lines[head + 1:i] + lines[i + 1:]

def parse(lines):
	"""The main test of LINES, parsed without printing anything."""
	return kunit_parser.parse_run_tests(lines, null_printer)

def label(test):
	return RUNNER_NAME.sub('', test.name.strip())

def errors(test):
	return getattr(test, 'error_messages', [])

def placeholder(test):
	"""A case of the plan that never came: kunit_parser counts it crashed."""
	return (test.status == TestStatus.TEST_CRASHED and not test.name and
		not test.subtests)

def unprefixed(test):
	"""TEST's "# " lines, one level of "# " removed."""
	out = []
	for line in test.log:
		line = line.lstrip()
		if line.startswith('#'):
			line = line[1:]
			out.append(line[1:] if line.startswith(' ') else line)
	return out

def directive(test, doc):
	"""The directive of TEST's failed result line in DOC ("exit=139",
	"TIMEOUT 45 seconds"): kunit_parser keeps only SKIP's."""
	pat = re.compile(r'^\s*not ok [0-9]+ (- )?' + re.escape(test.name) +
			 r'\s+# (.*)$')
	for line in doc:
		m = pat.match(line)
		if m:
			return m.group(2).strip()
	return ''

def skip_reason(test):
	"""kselftest gives a whole-program skip's reason on the program's plan
	line ("1..0 # SKIP why"), which kunit_parser does not keep."""
	if test.skip_reason:
		return test.skip_reason
	for line in unprefixed(test):
		m = PLAN_SKIP.match(line)
		if m:
			return m.group(1)
	return ''

def problems(test, subs, extra=()):
	"""What kunit_parser found wrong with TEST itself."""
	msgs = [e for e in list(errors(test)) + list(extra) if e != MISSING]
	missing = sum(1 for s in subs if placeholder(s))
	out = [f'{missing} of {len(subs)} results missing'] if missing else []
	return out + [e.rstrip('!') for e in msgs]

def put(status, name, reason=''):
	results.append((status, name, ' '.join(reason.split())))

def count(test, parent, doc, top):
	"""Count TEST, a test of the document DOC (a list of lines) whose
	parent is labelled PARENT ('' at the top).  Returns whether a failure
	was counted."""
	name = args.prefix + (parent + ': ' if parent else '') + label(test)
	subs, sub_doc, extra = test.subtests, doc, []
	if not subs:
		# Its own KTAP, "# "-prefixed: parse it alone.
		lines = unprefixed(test)
		inner = parse(lines)
		if inner.status != TestStatus.FAILURE_TO_PARSE_TESTS:
			subs, sub_doc = inner.subtests, lines
			# TEST's own result line says whether a program
			# without cases passed: "0 tests run" is no error.
			extra = [e for e in errors(inner) if e != NO_TESTS]
	reasons = problems(test, subs, extra)

	before = len(results)
	failed = False
	for s in subs:
		if not placeholder(s):
			failed |= count(s, label(test), sub_doc, False)
	counted = len(results) > before

	if reasons or test.status not in (TestStatus.SUCCESS,
					  TestStatus.SKIPPED):
		status = 'fail'
	elif test.status == TestStatus.SKIPPED:
		status = 'skip'
		reasons = [skip_reason(test)]
	else:
		status = 'pass'
	if not (top and args.top) and counted and \
	   (status != 'fail' or failed):
		return failed
	d = directive(test, doc) if test.status == TestStatus.FAILURE else ''
	if d:
		name += f' (program failed: {d})'
	put(status, name, ', '.join(reasons))
	return failed or status == 'fail'

def main():
	docname = args.name or args.prefix + os.path.basename(args.file)
	try:
		with open(args.file, errors='backslashreplace') as f:
			lines = f.read().splitlines()
	except OSError as e:
		put('fail', docname, f'cannot read {args.file}: {e.strerror}')
		lines = None
	if lines is not None:
		lines = plan_first(lines)
		root = parse(lines)
		if root.status == TestStatus.FAILURE_TO_PARSE_TESTS:
			put('fail', docname, 'no KTAP')
		else:
			for s in root.subtests:
				if not placeholder(s):
					count(s, '', lines, True)
			reasons = problems(root, root.subtests)
			# kunit_parser stops at the plan: results after it would
			# go uncounted.
			top = sum(1 for l in lines if TOP_RESULT.match(l))
			if top > len(root.subtests):
				reasons.append(f'{top - len(root.subtests)} results '
					       'beyond the plan')
			if reasons:
				put('fail', docname, ', '.join(reasons))
	for r in results:
		print('\t'.join(r))

main()
