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

# ktap_results PREFIX FILE [OPTION...]: count the results of the KTAP in
# FILE with the kernel's parser, through lib/ktap-results.py: the one
# counter of every KTAP a check prints (the selftests', the guest and host
# tests', checkpatch's and bisect's).
ktap_results()
{
	local prefix=$1 file=$2 out status name reason whole prev=
	shift 2

	# The name of the file as a whole, for a failure of the script
	whole=$prefix${file##*/}
	for name; do
		[ "$prev" != --name ] || whole=$name
		prev=$name
	done
	out=$(python3 "$TOP/lib/ktap-results.py" "$@" \
		"$tree/tools/testing/kunit" "$prefix" "$file") ||
		out+=$'\n'"fail	$whole	ktap-results.py failed"
	while IFS=$'\t' read -r status name reason; do
		[ -z "$status" ] || result "$status" "$name" "$reason"
	done <<< "$out"
}

# step_results NAME RC LOG [PREFIX]: the results of NAME (a host test, or
# a step of check.sh that prints KTAP), which exited with RC and printed
# LOG.  A KTAP document (lib/tap.sh) counts each case, as PREFIX and the
# case's name (PREFIX: "NAME: " unless given); NAME counts too when it
# failed without a failed case (it stopped, or broke), or when its
# document was wrong.  Anything else counts once, by its exit status.
step_results()
{
	local name=$1 rc=$2 log=$3 prefix=${4-$1: }

	if grep -qE '^K?TAP version [0-9]+' "$log"; then
		ktap_results "$prefix" "$log" --name "$name"
		[ "$rc" -eq 0 ] || grep -q '^not ok [0-9]' "$log" ||
			grep -qF "fail	$name	" "$rdir/results" ||
			result fail "$name"
	elif [ "$rc" -eq 0 ]; then
		result pass "$name"
	else
		result fail "$name"
	fi
}

# host_test_results NAME RC LOG: step_results of the host test NAME, as
# "host: NAME".
host_test_results()
{
	step_results "host: $1" "$2" "$3"
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
		ktap_results "$arch: " "$gtap" --name "$arch: sframe selftests"
		grep -qE '^(not )?ok [0-9]+ selftests: sframe: ' "$gtap" ||
			result fail "$arch: sframe selftests ran"
	fi
	ktap_results "$arch: " "$ptap" --top --name "$arch: project tests"
	[ ! -e "$ptap" ] ||
	awk '/^(not )?ok [0-9]+ / { if (/^not ok [0-9]+ project: /) {
		print "    output of " $0 ":"; printf "%s", out }
		out = ""; next }
	     /^# / { out = out "      " substr($0, 3) "\n" }' "$ptap"
}
