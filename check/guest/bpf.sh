#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user stacks of BPF programs: deferred stacks from
# bpf_unwind_user_request() for each program type, exits and kills
# (check/guest/bpf/ustack.c), for the program built with SFrame and
# without frame pointers and for the one built with frame pointers (fp/);
# and a sleepable program's stack, taken without faults
# (bpf/sleepable_stack.c).  Each prints KTAP; this prints a KTAP document
# of three tests, bpf-ustack-sframe, bpf-ustack-fp and
# bpf-sleepable-stack, each with its program's KTAP "# "-prefixed before
# its result line, as kselftest's runner nests a program: check.sh counts
# each case as "TEST: CASE".

set -u
from=$KOUT/guest-tests/bpf
[ -x "$from/ustack" ] || { echo "$from/ustack missing: check/guest not built"; exit 1; }
[ -e /sys/kernel/btf/vmlinux ] || { echo "the kernel has no BTF (CONFIG_DEBUG_INFO_BTF)"; exit 1; }
if ! mountpoint -q /sys/kernel/tracing; then
	mount -t tracefs nodev /sys/kernel/tracing ||
		{ echo "cannot mount tracefs"; exit 1; }
fi

# Run from the guest's own file system, as the other guest tests do.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp -r "$from" "$dir/bin"

fail=0
n=0
# run NAME PROGRAM: one test of the document
run()
{
	local rc

	n=$((n + 1))
	"$2" 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	case $rc in
	0) echo "ok $n $1" ;;
	4) echo "ok $n $1 # SKIP" ;;
	*) echo "not ok $n $1 # exit=$rc"; fail=1 ;;
	esac
}

echo "TAP version 13"
echo "1..3"
run bpf-ustack-sframe "$dir/bin/ustack"
run bpf-ustack-fp "$dir/bin/fp/ustack"
run bpf-sleepable-stack "$dir/bin/sleepable_stack"
exit $fail
