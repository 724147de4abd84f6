#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [fast|debug] - the whole verdict on the series:
#   toolchain, series applies, checkpatch, kernels, bisectability,
#   selftests and project tests in x86_64 and arm64 guests, host tests.
# "fast" (make check-fast, the loop around a kernel change) skips the
# bisect step, arm64, and the host tests of the pipeline's bisect and
# export (counted as skipped), and fuzzes for 10 s instead of 30.  "debug" (make check-debug) runs
# the selftests and the guest tests only, on an x86_64 kernel with
# config/debug.config (KASAN, UBSAN, KFENCE, lockdep, kmemleak...), the
# stress test for STRESS_TIME seconds (default 300).  Every test is
# counted; the last line is "N passed, N failed, N skipped".  Exits
# non-zero on a failure.
#
# The tree under test is $CACHE/trees/check (not build/linux, the
# developer's): re-applying the series there rewrites only the files that
# changed, which keeps the cached kernel builds incremental.

. "$(dirname "$0")/../lib/lib.sh"

mode=${1:-full}
tree=$CACHE/trees/check
lock_check_tree
rdir=$OUT/check
stress=${STRESS_TIME:-10}
# The guest session's limit, which the guest is told (GUEST_TIMEOUT):
# its tests get what is left of it after the boot (check/guest-tests.sh),
# so that a hung test fails alone instead of the session.  The limit
# only bounds a hang: the guests take 4 to 6 minutes at the reference
# speed.
gtimeout=${GUEST_TIMEOUT:-2400}
ktimeout=
if [ "$mode" = debug ]; then
	export KVARIANT=debug
	rdir=$OUT/check-debug
	stress=${STRESS_TIME:-300}
	# The debug kernel takes about 10 minutes to boot under TCG, half of
	# it in virtme-init's "udevadm settle", and runs the selftests up to
	# three times slower than the test kernel.
	gtimeout=${GUEST_TIMEOUT:-5400}
	# A selftest program's limit (its "settings" file) is for the test
	# kernel: override it as run_kselftest.sh -o does.  The harness's
	# per-case limits still catch a case that hangs.
	ktimeout=${KSELFTEST_TIMEOUT:-3600}
fi
mkdir -p "$rdir"
: > "$rdir/results"
: > "$rdir/steps"
start=$(now)

if [ "$mode" = fast ] || [ "$mode" = debug ]; then
	arches=(x86_64)
	[ "$mode" = debug ] || export FUZZ_CHECK_TIME=${FUZZ_CHECK_TIME:-10}
else
	arches=("${ARCHES[@]}")
fi

# result, ktap_results, step_results, host_test_results, guest_results
# shellcheck source=lib/results.sh
. "$TOP/lib/results.sh"

# step NAME COMMAND...: run and time a step; its output goes to a log.
step()
{
	local name=$1 t0 rc log
	shift
	log=$rdir/$(echo "$name" | tr ' /' '__').log
	printf '==> %s\n' "$name"
	t0=$(now)
	rc=0
	"$@" > "$log" 2>&1 || rc=$?
	printf '%s\t%s\t%ss\n' "$name" "$([ $rc -eq 0 ] && echo ok || echo FAILED)" \
		"$(($(now) - t0))" >> "$rdir/steps"
	printf '    %s in %ss (log: %s)\n' "$([ $rc -eq 0 ] && echo ok || echo FAILED)" \
		"$(($(now) - t0))" "${log#$TOP/}"
	if [ $rc -ne 0 ]; then
		tail -n 25 "$log" | sed 's/^/    | /'
	fi
	return $rc
}

finish()
{
	local p f s

	echo
	echo "Steps:"
	awk -F'\t' '{ printf "  %-36s %-7s %s\n", $1, $2, $3 }' "$rdir/steps"
	echo "Total time: $(($(now) - start))s"
	p=$(grep -c '^pass' "$rdir/results" || true)
	f=$(grep -c '^fail' "$rdir/results" || true)
	s=$(grep -c '^skip' "$rdir/results" || true)
	if [ "$f" -gt 0 ]; then
		echo "Failed:"
		awk -F'\t' '$1 == "fail" {
			print "  " $2 ($3 == "" ? "" : " (" $3 ")") }' "$rdir/results"
	fi
	if [ "$s" -gt 0 ]; then
		echo "Skipped:"
		grep '^skip' "$rdir/results" | cut -f2,3 | sed 's/\t/: /; s/^/  /'
	fi
	echo "$p passed, $f failed, $s skipped"
	[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
	exit
}

# A step whose failure stops the run (nothing after it can be trusted).
fatal()
{
	result fail "$1"
	finish
}

step "toolchain" "$TOP/pipeline/toolchain.sh" || fatal "toolchain root"

if step "apply series" env FORCE=1 "$TOP/pipeline/tree.sh" "$tree"; then
	result pass "series applies to the base"
else
	fatal "series applies to the base"
fi
grep -h '^==> base:' "$rdir/apply_series.log" | sed 's/^==> /    /' || true

# The tools' copy of the SFrame format must be the kernel's, byte for byte.
if cmp -s "$tree/include/linux/sframe_types.h" \
	  "$tree/tools/include/linux/sframe_types.h"; then
	result pass "tools/include/linux/sframe_types.h is the kernel's"
else
	result fail "tools/include/linux/sframe_types.h is the kernel's"
fi

if [ "$mode" != debug ]; then
	rc=0
	step "checkpatch" "$TOP/check/checkpatch.sh" "$tree" || rc=$?
	step_results "checkpatch step ran" $rc "$rdir/checkpatch.log" ""
fi

declare -A built
for arch in "${arches[@]}"; do
	if step "kernel $arch" "$TOP/pipeline/kernel.sh" "$arch" "$tree"; then
		result pass "$arch kernel builds with the full series"
		built[$arch]=1
	else
		result fail "$arch kernel builds with the full series"
	fi
done

if [ "$mode" = full ]; then
	rc=0
	step "bisect" "$TOP/check/bisect.sh" "$tree" "${arches[@]}" || rc=$?
	# Failing without a failed patch: the step itself broke.
	step_results "bisect step ran" $rc "$rdir/bisect.log" ""
	# Back at the full series: rebuild what the prefixes touched.
	for arch in "${arches[@]}"; do
		step "kernel $arch (after bisect)" "$TOP/pipeline/kernel.sh" "$arch" "$tree" ||
			fatal "$arch kernel rebuild after bisect"
	done
fi

for arch in "${arches[@]}"; do
	kout=$(kbuild_dir "$arch" "$tree")
	if [ -z "${built[$arch]:-}" ]; then
		result fail "$arch guest (no kernel to boot)"
		continue
	fi
	# glibc with SFrame and the registering ld.so (userspace/glibc), for
	# the glibc guest tests: cached, built once per change of its inputs.
	if step "glibc $arch" "$TOP/pipeline/glibc.sh" "$arch"; then
		result pass "$arch glibc of userspace/glibc builds"
	else
		result fail "$arch glibc of userspace/glibc builds"
	fi
	if ! step "selftests build $arch" "$TOP/pipeline/selftests.sh" "$arch" "$tree"; then
		result fail "$arch selftests build"
		continue
	fi
	result pass "$arch selftests build"
	# The guest writes its KTAP output to files, the selftests' and the
	# project tests': the console mixes streams.
	gtap=$rdir/guest_$arch.tap
	ptap=$rdir/project_$arch.tap
	rm -f "$gtap" "$ptap"
	guestcmd=$(printf '%q ' env STRESS_TIME="$stress" \
		GUEST_TIMEOUT="$gtimeout" \
		${ktimeout:+kselftest_override_timeout=$ktimeout} \
		bash "$TOP/check/guest-tests.sh" "$arch" "$tree" "$kout" \
		"$gtap" "$ptap")
	gok=0
	step "guest $arch" "$TOP/pipeline/run.sh" "$arch" "$tree" "$gtimeout" \
		"$guestcmd" && gok=1
	if [ $gok = 1 ]; then
		result pass "$arch guest boots and runs the tests"
	else
		result fail "$arch guest boots and runs the tests"
	fi
	[ -e "$gtap" ] || continue
	guest_results "$arch" "$gtap" "$ptap"
done

[ "$mode" != debug ] || finish
# The host tests: check/pipeline/ tests the pipeline, check/host/ the
# product's pieces that run on the host.  Each takes the check tree and
# the arches this run built.
for t in "$TOP"/check/pipeline/*.sh "$TOP"/check/host/*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	[[ $t != */check/pipeline/* ]] || name=pipeline-$name
	# The steps these test are not check-fast's, and they take a
	# minute each.
	if [ "$mode" = fast ] &&
	   { [ "$name" = pipeline-bisect ] || [ "$name" = pipeline-roundtrip ]; }; then
		result skip "host: $name" "make check runs it: check-fast has no bisect or export"
		continue
	fi
	rc=0
	step "host test $name" bash "$t" "$tree" "${arches[@]}" || rc=$?
	host_test_results "$name" $rc "$rdir/host_test_$name.log"
done

finish
