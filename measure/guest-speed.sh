#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-speed.sh ARCH [SHIFT...] - the guest tests of make check (the
# kernel's sframe selftests and check/guest/*.sh) at other guest speeds:
# one guest per SHIFT (default: 0 and 4), whose clocks QEMU ties to the
# instructions it runs, 2^SHIFT ns each (VM_ICOUNT, pipeline/run.sh).
# Under TCG here a guest runs some hundreds of millions of instructions a
# second: at shift 0 its clocks say it ran them faster, at shift 4
# (62.5 million a second) slower; so fixed work is worth fewer samples at
# shift 0, and a fixed time limit is worth less work at shift 4, as on a
# faster and a slower machine.  Each guest first times a fixed loop in
# python3 (its CPU time, seconds), as does one guest at the normal speed,
# so that the ratio of the speeds is measured, not assumed.  Prints each
# guest's counts, its failures and each test's time, and keeps the KTAP
# files in out/guest-speed/.  Exits non-zero if a test failed at any
# speed.  A demonstration, not a check (it takes 20 to 40 minutes an
# arch): needs a make check (or check-fast) run before it, for the check
# tree, its kernel build and the test programs, which it uses as they
# are; or, with TREE=build/linux, the developer's tree after make kernel
# and make selftests for ARCH.  GUEST_TESTS and GUEST_KSELFTESTS=0
# narrow it as in check/guest-tests.sh.

. "$(dirname "$0")/../lib/lib.sh"

arch=${1:-x86_64}
shift || true
shifts=("$@")
[ ${#shifts[@]} -gt 0 ] || shifts=(0 4)
tree=$(cd "${TREE:-$CACHE/trees/check}" && pwd)
kout=$(kbuild_dir "$arch" "$tree")
[ -d "$kout/kselftest/sframe" ] && [ -d "$kout/guest-tests" ] ||
	die "no test build of $arch in $kout: run make check (or make kernel and make selftests for TREE) first"
lock_check_tree "$tree"
dir=$OUT/guest-speed
mkdir -p "$dir"
limit=${GUEST_TIMEOUT:-3600}

loop='import time
t = time.process_time()
n = 0
for i in range(3000000):
    n += i
print("guest-speed: loop", round(time.process_time() - t, 3), "s")'

# guest LABEL [SHIFT]: the calibration loop, then the tests unless LABEL
# is "calib"
guest()
{
	local label=$1 cmd

	rm -f "$dir/$arch-$label".*
	cmd=$(printf '%q ' python3 -c "$loop")
	if [ "$label" != calib ]; then
		cmd+="; $(printf '%q ' env STRESS_TIME=10 \
			GUEST_TIMEOUT="$limit" \
			${GUEST_TESTS:+GUEST_TESTS="$GUEST_TESTS"} \
			${GUEST_KSELFTESTS:+GUEST_KSELFTESTS="$GUEST_KSELFTESTS"} \
			bash "$TOP/check/guest-tests.sh" "$arch" "$tree" "$kout" \
			"$dir/$arch-$label.guest.tap" "$dir/$arch-$label.project.tap")"
	fi
	# The host waits twice as long as the guest's own limits: at shift
	# 0 the guest's clock runs slower than the host's.
	VM_ICOUNT=${2:-} "$TOP/pipeline/run.sh" "$arch" "$tree" $((2 * limit)) "$cmd" \
		> "$dir/$arch-$label.log" 2>&1
}

# count LABEL: pass/fail/skip of both KTAP files, the failures by name,
# and the time of each project test
count()
{
	local label=$1 f

	local top=()
	for f in guest project; do
		# GUEST_KSELFTESTS=0: an empty plan, not a failure
		if [ "$f" = guest ] && [ "${GUEST_KSELFTESTS:-1}" != 1 ]; then
			top=(--top)
			continue
		fi
		f=$dir/$arch-$label.$f.tap
		[ -e "$f" ] || { printf 'fail\t%s\tno output\n' "${f##*/}"; continue; }
		python3 "$TOP/lib/ktap-results.py" ${top[@]+"${top[@]}"} \
			"$tree/tools/testing/kunit" "$arch: " "$f"
		top=(--top)
	done > "$dir/$arch-$label.results"
	printf '  %s: %s passed, %s failed, %s skipped; %s\n' "$label" \
		"$(grep -c '^pass' "$dir/$arch-$label.results")" \
		"$(grep -c '^fail' "$dir/$arch-$label.results")" \
		"$(grep -c '^skip' "$dir/$arch-$label.results")" \
		"$(grep -h '^guest-speed: ' "$dir/$arch-$label.log" | tr -d '\r')"
	grep '^fail' "$dir/$arch-$label.results" | sed 's/^/    /' || true
	sed -n 's/^# guest: \(.*\) took \(.*\)/\1 \2/p' \
		"$dir/$arch-$label.project.tap" 2>/dev/null | tr '\n' ';' |
		sed 's/;$/\n/; s/;/, /g; s/^/    times: /'
}

rc=0
calib=0
for s in "${shifts[@]}"; do
	[ -z "$s" ] || calib=1
done
# The normal speed's loop, for the ratio: only when there is one to take.
if [ $calib = 1 ]; then
	log "$arch guest at the normal speed: the calibration loop"
	guest calib || die "the $arch guest did not boot: $dir/$arch-calib.log"
	echo "  normal speed: $(grep -h '^guest-speed: ' "$dir/$arch-calib.log" | tr -d '\r')"
fi
for s in "${shifts[@]}"; do
	label=normal
	[ -z "$s" ] || label=icount$s
	log "$arch guest: $label"
	guest "$label" "$s" || echo "  $label: the guest failed (status $?)"
	count "$label"
	! grep -q '^fail' "$dir/$arch-$label.results" || rc=1
done
exit $rc
