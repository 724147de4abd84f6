#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test.sh [-a ARCH] GLOB - run only the tests whose names match GLOB (a
# shell pattern), on a kernel tree that is already built: the developer's
# loop around one change, where make check would run everything.
#
#   host tests      check/host/NAME.sh, and check/pipeline/NAME.sh as
#                   pipeline-NAME, run on the host with the tree
#   guest tests     check/guest/NAME.sh, run in one guest of ARCH's
#                   kernel of the tree (kernel-log-clean runs after
#                   them, as in make check)
#   selftests       the kernel's sframe selftests, in the same guest,
#                   if GLOB matches the name "selftests"
#
# TREE is the kernel tree, build/linux by default: "make kernel" and
# "make selftests" for ARCH (x86_64 by default) must have built it (for
# another tree, pipeline/kernel.sh and pipeline/selftests.sh ARCH TREE);
# some host tests use those builds too.  pipeline-bisect rewrites and
# rebuilds the tree it is given, so it runs on the check tree only
# (TREE=$CACHE/trees/check), and is skipped on any other.  A test prints
# what it prints in make check, and its results are counted as make check
# counts them (lib/results.sh): one PASS, FAIL or SKIP line each, then
# the totals and the time.  Exits 1 if a test failed or could not run,
# 2 if no test is named like GLOB.  make test T=GLOB [ARCH=...] runs it.
#
# test.sh -l [GLOB] lists the tests named like GLOB (all by default) and
# what each asserts, which its script's header says (and nothing else
# does): make list [T=GLOB].

. "$(dirname "$0")/../lib/lib.sh"

arch=x86_64
list=0
while getopts a:l opt; do
	case $opt in
	a) arch=$OPTARG ;;
	l) list=1 ;;
	*) die "usage: check/test.sh [-a ARCH] GLOB | -l [GLOB]" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { [ $list = 1 ] && [ $# -eq 0 ]; } ||
	die "usage: check/test.sh [-a ARCH] GLOB | -l [GLOB]"
glob=${1:-*}
arch_vars "$arch"
tree=$(realpath -m "${TREE:-$TOP/build/linux}")
check_tree=$(realpath -m "$CACHE/trees/check")

# What matches: host tests, guest tests, the kernel's selftests.
host=()
for t in "$TOP"/check/pipeline/*.sh "$TOP"/check/host/*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	[[ $t != */check/pipeline/* ]] || name=pipeline-$name
	# shellcheck disable=SC2053 # a pattern
	if [[ $name == $glob ]]; then
		host+=("$t")
	fi
done
guest=()
for t in "$TOP"/check/guest/*.sh; do
	name=$(basename "$t" .sh)
	# shellcheck disable=SC2053 # a pattern
	if [[ $name == $glob ]]; then
		guest+=("$name")
	fi
done
kselftests=0
# shellcheck disable=SC2053 # a pattern
[[ selftests != $glob ]] || kselftests=1
[ ${#host[@]} -gt 0 ] || [ ${#guest[@]} -gt 0 ] || [ $kselftests = 1 ] ||
	{ echo "no test is named like $glob"; exit 2; }

# describe WHERE NAME SCRIPT: NAME, where it runs, its script, and the
# script's header: the comment lines after the shebang and the licence.
describe()
{
	printf '%s (%s: %s)\n' "$2" "$1" "${3#"$TOP"/}"
	awk 'NR <= 2 && /^#(!|[[:space:]]*SPDX)/ { next }
	     /^#[[:space:]]*$/ && !n { next }
	     /^#/ { sub(/^# ?/, ""); print ($0 == "" ? "" : "    " $0); n++; next }
	     { exit }' "$3"
	echo
}
if [ $list = 1 ]; then
	for t in "${host[@]}"; do
		name=$(basename "$t" .sh)
		[[ $t != */check/pipeline/* ]] || name=pipeline-$name
		describe host "$name" "$t"
	done
	for name in "${guest[@]}"; do
		describe guest "$name" "$TOP/check/guest/$name.sh"
	done
	[ $kselftests = 0 ] || printf '%s\n' "selftests (guest: the kernel's, tools/testing/selftests/sframe/)" \
		"    the series' own selftests, run by kselftest's runner: each case counts" ""
	exit 0
fi

[ -d "$tree/kernel/unwind" ] || die "$tree is no kernel tree with the series: make tree first"
kout=$(kbuild_dir "$arch" "$tree")
lock_check_tree "$tree"
rdir=$OUT/test
rm -rf "$rdir"
mkdir -p "$rdir"
: > "$rdir/results"
start=$SECONDS
# shellcheck source=lib/results.sh
. "$TOP/lib/results.sh"

# The host tests, each alone.
for t in "${host[@]}"; do
	name=$(basename "$t" .sh)
	[[ $t != */check/pipeline/* ]] || name=pipeline-$name
	if [ "$name" = pipeline-bisect ] && [ "$tree" != "$check_tree" ]; then
		result skip "host: $name" "rewrites and rebuilds its tree: TREE=$check_tree"
		continue
	fi
	log "host test $name"
	rc=0
	bash "$t" "$tree" "$arch" 2>&1 | tee "$rdir/host_test_$name.log" ||
		{ st=("${PIPESTATUS[@]}"); rc=${st[0]}; [ "${st[1]}" = 0 ] || rc=1; }
	host_test_results "$name" $rc "$rdir/host_test_$name.log"
done

# The guest tests and the selftests, all in one guest.
if [ ${#guest[@]} -gt 0 ] || [ $kselftests = 1 ]; then
	[ -d "$kout/kselftest/sframe" ] && [ -d "$kout/guest-tests" ] ||
		die "no test build of $arch in $kout: make kernel selftests ARCH=$arch first"
	log "in a guest of $arch: ${guest[*]}${guest[*]:+ }$([ $kselftests = 0 ] || echo selftests)"
	gtap=$rdir/guest_$arch.tap
	ptap=$rdir/project_$arch.tap
	# kernel-log-clean runs last whatever GUEST_TESTS says.  With no
	# other guest test, a pattern that no name can match ("/").
	gpat=$glob
	[[ ${#guest[@]} -gt 1 || ${guest[*]} != kernel-log-clean ]] || gpat=/
	[ ${#guest[@]} -gt 0 ] || gpat=/
	guestcmd=$(printf '%q ' env GUEST_TESTS="$gpat" \
		GUEST_KSELFTESTS=$kselftests GUEST_TIMEOUT=3600 \
		bash "$TOP/check/guest-tests.sh" "$arch" "$tree" "$kout" \
		"$gtap" "$ptap")
	rc=0
	"$TOP/pipeline/run.sh" "$arch" "$tree" 3600 "$guestcmd" || rc=$?
	if [ $rc -eq 0 ]; then
		result pass "$arch guest boots and runs the tests"
	else
		result fail "$arch guest boots and runs the tests"
	fi
	if [ -e "$gtap" ]; then
		if [ $kselftests = 1 ]; then
			guest_results "$arch" "$gtap" "$ptap"
		else
			guest_results "$arch" "$gtap" "$ptap" no-selftests
		fi
	fi
fi
p=$(grep -c '^pass' "$rdir/results" || true)
f=$(grep -c '^fail' "$rdir/results" || true)
s=$(grep -c '^skip' "$rdir/results" || true)
echo "$p passed, $f failed, $s skipped in $((SECONDS - start)) s (results: $rdir)"
[ "$f" -eq 0 ]
