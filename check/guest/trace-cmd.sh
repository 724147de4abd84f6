#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trace-cmd, as a tracing user runs it, without a plugin: "trace-cmd
# record -O userstacktrace_delay" on a syscall event of
# check/guest/trace-cmd/prog and the inode_cache event, then, once the
# program has exited, stock "trace-cmd report", whose frames (file
# offsets with inodes) userspace/trace-cmd/ustack-symbolize names from
# the files that inode_cache names.  Each of the program's five calls
# must give one cookie and one stack with it, and every stack must be
# the call sites the program prints, at the offsets it prints, in
# tc_leaf, tc_mid, tc_outer and main of the program's file: for the
# program built with SFrame and without frame pointers, and for the one
# built with frame pointers (fp/).  The report's -l, -R and --ts-diff
# layouts must give the same frames.  Prints KTAP (lib/tap.sh), one case
# per check: per program, that trace-cmd recorded it, that it printed its
# call sites, its stacks, that the report has frames, and each layout.

set -u
# shellcheck source=lib/tap.sh
. "$(dirname "$0")/../../lib/tap.sh"
from=$KOUT/guest-tests/trace-cmd
top=$(cd "$(dirname "$0")/../.." && pwd)
symbolize=$top/userspace/trace-cmd/ustack-symbolize
command -v trace-cmd >/dev/null || { echo "no trace-cmd in the guest"; exit 1; }
command -v eu-addr2line >/dev/null || { echo "no elfutils in the guest"; exit 1; }
[ -x "$from/prog" ] || { echo "$from/prog missing: check/guest not built"; exit 1; }
if ! mountpoint -q /sys/kernel/tracing; then
	mount -t tracefs nodev /sys/kernel/tracing ||
		{ echo "cannot mount tracefs"; exit 1; }
fi
[ -e /sys/kernel/tracing/options/userstacktrace_delay ] ||
	{ echo "no userstacktrace_delay option in this kernel"; exit 1; }

# trace-cmd writes its data to the guest's own file system.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp -r "$from" "$dir/bin"

# shellcheck source=check/guest/lib/trace-cmd.sh
. "$(dirname "$0")/lib/trace-cmd.sh"
tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.  Seven cases for
# each of the two programs.
ktap_set_plan 14

# cases VARIANT: the names of the cases of VARIANT, in order (1: recorded,
# 2: the program printed its call sites, 3: its stacks, 4: the report has
# frames, 5-7: the other layouts)
layouts=(-l -R --ts-diff)
cases()
{
	local l

	echo "$1: trace-cmd records the program"
	echo "$1: the program prints its call sites"
	echo "$1: five stacks, each with its cookie, to main() at its call sites"
	echo "$1: the report has frames"
	for l in "${layouts[@]}"; do
		echo "$1: report $l gives the default layout's frames"
	done
}

# case_of VARIANT N: the name of the Nth case of VARIANT
case_of()
{
	cases "$1" | sed -n "$2p"
}

# fail_from VARIANT N: the cases of VARIANT from the Nth on fail: nothing
# is left to check them with.
fail_from()
{
	local c

	while read -r c; do
		tap_fail "$c"
	done < <(cases "$1" | tail -n "+$2")
}

# run VARIANT PROG: trace PROG, and check its stacks against what it says.
# trace-cmd records in the background and is stopped as a user does
# (lib/trace-cmd.sh).
run()
{
	local variant=$1 prog=$2 want pid st

	tc_start "$dir/$variant.dat" "$dir/$variant.rec" syscalls:sys_enter_getppid \
		> "$dir/$variant.start"
	st=$?
	tap_labelled "$variant" < "$dir/$variant.start"
	if [ $st != 0 ]; then
		echo "# $variant: not recorded"
		fail_from "$variant" 1
		return
	fi
	"$prog" > "$dir/$variant.want"
	kill -INT "$tc_pid"
	if ! wait "$tc_pid"; then
		echo "# $variant: trace-cmd record failed:"
		tail -n 5 "$dir/$variant.rec" | tap_labelled "$variant"
		fail_from "$variant" 1
		return
	fi
	tap_pass "$(case_of "$variant" 1)"
	# The program has exited: nothing of it is left but its file.
	trace-cmd report -i "$dir/$variant.dat" > "$dir/$variant.txt" \
		2> "$dir/$variant.err"
	python3 "$symbolize" "$dir/$variant.txt" > "$dir/$variant.sym"
	want=$(sed -n 's/^want //p' "$dir/$variant.want")
	pid=$(sed -n 's/^pid //p' "$dir/$variant.want")
	if [ -z "$want" ] || [ -z "$pid" ]; then
		echo "# $variant: the program said nothing"
		fail_from "$variant" 2
		return
	fi
	tap_pass "$(case_of "$variant" 2)"

	# Per stack of the program (lib/ustacks.py reads the report): its
	# cookie and its first four frames, as (offset, function, path).
	# shellcheck disable=SC2086 # want: the offsets, one word each
	python3 - "$top/lib" "$dir/$variant.sym" "$pid" "$variant" "$prog" \
		$want > "$dir/$variant.check" 2>&1 <<'EOF'
import sys
sys.dont_write_bytecode = True  # nothing written to the shared tree
sys.path.insert(0, sys.argv[1])
import ustacks  # noqa: E402

path, pid, variant, prog = sys.argv[2], int(sys.argv[3]), *sys.argv[4:6]
want = [int(w, 16) for w in sys.argv[6:]]
wanted = list(zip(want, ("tc_leaf", "tc_mid", "tc_outer", "main"),
                  [prog] * len(want)))
with open(path, errors="replace") as f:
    stacks, cookies = ustacks.trace_cmd(f, pid)
good = bad = 0
for t in stacks:
    got = [tuple(fr) for fr in t.stack[:len(want)]]
    if got == wanted:
        good += 1
    else:
        bad += 1
        if bad <= 3:
            print("%s: cookie %x:" % (variant, t.cookie),
                  " ".join("%x %s (%s)" % (off, func or "??", obj or "?")
                           for off, func, obj in got))
orphans = sum(t.orphan for t in stacks)
ncookies = len(cookies.get(pid, ()))
print("%s: %d cookies, %d stacks, %d named to main() at the offsets it "
      "printed, %d without their cookie" %
      (variant, ncookies, len(stacks), good, orphans))
sys.exit(not (ncookies == 5 and len(stacks) == 5 and good == 5 and
              not orphans))
EOF
	st=$?
	sed "s/^/# /" "$dir/$variant.check"
	if [ $st = 0 ]; then
		tap_pass "$(case_of "$variant" 3)"
	else
		echo "# $variant: want$want"
		head -n 20 "$dir/$variant.rec" "$dir/$variant.sym" \
			"$dir/$variant.err" | tap_labelled "$variant"
		tap_fail "$(case_of "$variant" 3)"
	fi
	# The other layouts of the report give the same frames.  (The arm64
	# guest root has no cmp.)
	local layout frames other n=5
	frames=$(grep '^ => ' "$dir/$variant.sym")
	if [ -n "$frames" ]; then
		tap_pass "$(case_of "$variant" 4)"
	else
		echo "# $variant: no frames to compare layouts"
		tap_fail "$(case_of "$variant" 4)"
	fi
	for layout in "${layouts[@]}"; do
		other=$(trace-cmd report "$layout" -i "$dir/$variant.dat" 2> /dev/null |
			python3 "$symbolize" | grep '^ => ')
		if [ "$other" = "$frames" ]; then
			tap_pass "$(case_of "$variant" $n)"
		else
			echo "# $variant: report $layout: other frames than the default layout's:"
			head -n 5 <<< "$other" | tap_labelled "$variant"
			tap_fail "$(case_of "$variant" $n)"
		fi
		n=$((n + 1))
	done
	# What a user sees, for the log
	grep -m 1 -A 5 "user_unwind_stack:" "$dir/$variant.sym" | tap_labelled "$variant"
}

run sframe "$dir/bin/prog"
run fp "$dir/bin/fp/prog"
ktap_finished
