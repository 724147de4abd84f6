# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Counting test results, for check/check.sh (make check) and
# check/test.sh (make test), so that both count alike.  Sourced, not run:
# the sourcing script sets TOP, tree (the kernel tree, whose kunit_parser
# counts KTAP) and rdir (where "results" collects one line per result).
# shellcheck disable=SC2154 # tree and rdir: the sourcing script's

# result pass|fail|skip NAME [REASON]
result()
{
	printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >> "$rdir/results"
	case $1 in
	pass) printf '  PASS  %s\n' "$2" ;;
	fail) printf '  FAIL  %s%s\n' "$2" "${3:+ ($3)}" ;;
	skip) printf '  SKIP  %s (%s)\n' "$2" "${3:-}" ;;
	esac
}

# Turn the flat "ok - name"/"not ok - name" lines of the checkpatch and
# bisect logs into results, prefixed by $2.  They carry no test number,
# which kunit_parser requires of a result line.
tap_results()
{
	local log=$1 prefix=$2 line name

	while IFS= read -r line; do
		case $line in
		"ok "*"# SKIP"*)
			name=${line#ok }; name=${name#[0-9]* }; name=${name#- }
			result skip "$prefix${name%% # SKIP*}" "${name#*# SKIP }" ;;
		"ok "*)
			name=${line#ok }; name=${name#[0-9]* }; name=${name#- }
			result pass "$prefix$name" ;;
		"not ok "*)
			name=${line#not ok }; name=${name#[0-9]* }; name=${name#- }
			result fail "$prefix$name" ;;
		esac
	done < "$log"
}

# ktap_results PREFIX FILE [OPTION...]: count the results of the KTAP in
# FILE with the kernel's parser, through lib/ktap-results.py.
ktap_results()
{
	local prefix=$1 file=$2 out status name reason
	shift 2

	out=$(python3 "$TOP/lib/ktap-results.py" "$@" \
		"$tree/tools/testing/kunit" "$prefix" "$file") ||
		out+=$'\n'"fail	$prefix${file##*/}	ktap-results.py failed"
	while IFS=$'\t' read -r status name reason; do
		[ -z "$status" ] || result "$status" "$name" "$reason"
	done <<< "$out"
}

# host_test_results NAME RC LOG: the results of the host test NAME, which
# exited with RC and printed LOG.  A test that prints TAP (a plan line)
# counts each case, as the selftests do; it counts itself too only when
# it failed without a failed case.  Any other test counts once, by its
# exit status.
host_test_results()
{
	local name=$1 rc=$2 log=$3

	if grep -qE '^1\.\.[0-9]+$' "$log"; then
		tap_results "$log" "host: $name: "
		[ "$rc" -eq 0 ] || grep -q '^not ok ' "$log" ||
			result fail "host: $name"
	elif [ "$rc" -eq 0 ]; then
		result pass "host: $name"
	else
		result fail "host: $name"
	fi
}

# guest_results ARCH GTAP PTAP [no-selftests]: the results of a guest of
# ARCH: the kernel's selftests' KTAP in GTAP, the project tests' in
# PTAP.  Each selftest case counts, as "ARCH: PROG: CASE"; a program that
# failed without a failed case (crash, timeout), skipped as a whole or
# printed no case counts itself, as "ARCH: PROG"; with no-selftests, the
# guest was told not to run them.  Each project test counts, as
# "ARCH: project: NAME", and so does each case of the KTAP it passes on,
# as "ARCH: PROGRAM: CASE" (check/guest/bpf.sh).  A failed project test's
# own output follows, so that a CI log says why.
guest_results()
{
	local arch=$1 gtap=$2 ptap=$3

	if [ "${4:-}" != no-selftests ]; then
		ktap_results "$arch: " "$gtap" --name "sframe selftests"
		grep -qE '^(not )?ok [0-9]+ selftests: sframe: ' "$gtap" ||
			result fail "$arch: sframe selftests ran"
	fi
	ktap_results "$arch: " "$ptap" --top --name "project tests"
	[ ! -e "$ptap" ] ||
	awk '/^(not )?ok [0-9]+ / { if (/^not ok [0-9]+ project: /) {
		print "    output of " $0 ":"; printf "%s", out }
		out = ""; next }
	     /^# / { out = out "      " substr($0, 3) "\n" }' "$ptap"
}
