#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user stacks of BPF programs (check/guest/bpf/ustack.c): deferred
# stacks from bpf_unwind_user_request() for each program type,
# exits and kills, and what the
# verifier refuses; for the program built with SFrame and without frame
# pointers, and for the one built with frame pointers (fp/).  Each prints
# KTAP; this prints a KTAP document of two tests, bpf-ustack-sframe and
# bpf-ustack-fp, each with its program's KTAP "# "-prefixed before its
# result line, as kselftest's runner nests a program: check.sh counts each
# case as "bpf-ustack-VARIANT: CASE".

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

echo "TAP version 13"
echo "1..3"
fail=0
n=0
for variant in sframe fp; do
	n=$((n + 1))
	prog=$dir/bin/ustack
	[ $variant = sframe ] || prog=$dir/bin/fp/ustack
	"$prog" 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	case $rc in
	0) echo "ok $n bpf-ustack-$variant" ;;
	4) echo "ok $n bpf-ustack-$variant # SKIP" ;;
	*) echo "not ok $n bpf-ustack-$variant # exit=$rc" ;;
	esac
	case $rc in 0|4) ;; *) fail=1 ;; esac
done
# A sleepable program's user stack, taken without faults
n=$((n + 1))
"$dir/bin/sleepable_stack" 2>&1 | sed 's/^/# /'
rc=${PIPESTATUS[0]}
case $rc in
0) echo "ok $n bpf-sleepable-stack" ;;
4) echo "ok $n bpf-sleepable-stack # SKIP" ;;
*) echo "not ok $n bpf-sleepable-stack # exit=$rc"; fail=1 ;;
esac
exit $fail
