#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lib/ktap-results.py, which counts the guests' KTAP for check.sh, on
# fixtures in the forms the guests write: the kselftest runner's output
# (a program's cases nested under "# ", a program skipped as a whole
# with its reason on its plan line, a program that crashed before the
# end of its plan), the project tests' document with --top (a test with
# cases of its own, a failed one), a file with no KTAP and results past
# the plan; the documents of lib/tap.sh (host tests, checkpatch,
# bisect), whose plan comes last, whole and cut short.  Each case asserts the exact lines check.sh turns into
# results, so that a change of the script, or of the kernel's
# kunit_parser that it uses, shows here and not as a miscount in a
# guest.  Runs in seconds, without a kernel build: of the check tree it
# uses only tools/testing/kunit and the KTAP helpers.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tree=${1:?usage: $0 TREE (the check tree, for kunit_parser and the KTAP helpers)}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=lib/tap.sh
. "$top/lib/tap.sh"
tap_start "$tree"

# results [--top] FILE: what ktap-results.py prints for FILE, tabs as " | "
results()
{
	python3 "$top/lib/ktap-results.py" "${@:1:$#-1}" \
		"$tree/tools/testing/kunit" "x86_64: " "$work/${!#}" |
		sed 's/\t/ | /g; s/ | $//'
}

cat > "$work/runner.tap" <<'EOF'
TAP version 13
1..3
# timeout set to 300
# selftests: sframe: alpha
# TAP version 13
# 1..2
# ok 1 one
# not ok 2 two
# # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0
not ok 1 selftests: sframe: alpha # exit=1
# timeout set to 300
# selftests: sframe: beta
# TAP version 13
# 1..0 # SKIP no SFrame unwinding in this kernel
ok 2 selftests: sframe: beta # SKIP
# timeout set to 300
# selftests: sframe: gamma
# TAP version 13
# 1..3
# ok 1 first
not ok 3 selftests: sframe: gamma # exit=139
EOF
is "ktap-results: the runner's programs, case by case; a whole-program skip with its reason; a crash mid-plan" \
	"pass | x86_64: alpha: one
fail | x86_64: alpha: two
skip | x86_64: beta | no SFrame unwinding in this kernel
pass | x86_64: gamma: first
fail | x86_64: gamma (program failed: exit=139) | 2 of 3 results missing" \
	"$(results runner.tap)"

cat > "$work/project.tap" <<'EOF'
TAP version 13
1..3
# some output
ok 1 project: plain
# TAP version 13
# 1..2
# ok 1 case-a
# ok 2 case-b # SKIP not on this arch
ok 2 project: nested
# the log says why
not ok 3 project: broken
EOF
is "ktap-results: --top counts each project test and the cases it passes on" \
	"pass | x86_64: project: plain
pass | x86_64: project: nested: case-a
skip | x86_64: project: nested: case-b | not on this arch
pass | x86_64: project: nested
fail | x86_64: project: broken" \
	"$(results --top project.tap)"

printf 'the guest died before it wrote anything\n' > "$work/none.tap"
is "ktap-results: a file without KTAP fails as a whole" \
	"fail | x86_64: none.tap | no KTAP" "$(results none.tap)"

cat > "$work/beyond.tap" <<'EOF'
TAP version 13
1..1
ok 1 project: one
ok 2 project: two
EOF
is "ktap-results: a result past the plan is not lost" \
	"pass | x86_64: project: one
fail | x86_64: beyond.tap | 1 results beyond the plan" \
	"$(results beyond.tap)"

cat > "$work/last.tap" <<'EOF'
==> what a script logs before its KTAP
TAP version 13
ok 1 host: first
# why the second failed
not ok 2 host: second
ok 3 host: third # SKIP not here
1..3
# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0
EOF
is "ktap-results: a plan given last, as lib/tap.sh's tap_done gives it" \
	"pass | x86_64: host: first
fail | x86_64: host: second
skip | x86_64: host: third | not here" \
	"$(results last.tap)"

head -n 4 "$work/last.tap" > "$work/cut.tap"
is "ktap-results: a document of lib/tap.sh cut short counts what it printed" \
	"pass | x86_64: host: first" "$(results cut.tap)"

printf 'TAP version 13\nok 1 host: first\n1..2\n' > "$work/short.tap"
is "ktap-results: a plan given last still counts the results missing" \
	"pass | x86_64: host: first
fail | x86_64: short.tap | 1 of 2 results missing" \
	"$(results short.tap)"

# lib/tap.sh's own results, as checkpatch.sh and bisect.sh print them:
# a "#" in a name (a commit subject's "#PF") must not end it.
( tap_start "$tree"
  tap_pass "bisect 2/3 x86_64: x86/mm: Handle #PF *"
  tap_fail "bisect 3/3 x86_64: a # b"
  tap_done ) > "$work/hash.tap" || true
is "ktap-results: lib/tap.sh writes a hash sign in a name as _" \
	"pass | x86_64: bisect 2/3 x86_64: x86/mm: Handle _PF *
fail | x86_64: bisect 3/3 x86_64: a _ b" \
	"$(results hash.tap)"

tap_done
