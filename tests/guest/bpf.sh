#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user stacks of BPF programs (tests/guest/bpf/ustack.c): deferred
# stacks from bpf_unwind_user_request() for each program type,
# bpf_get_stack() in a sleepable uprobe, exits and kills, and what the
# verifier refuses; for the program built with SFrame and without frame
# pointers, and for the one built with frame pointers (fp/).  Each prints
# KTAP; its cases are passed on as they are, for check.sh to count.

set -u
from=$KOUT/guest-tests/bpf
[ -x "$from/ustack" ] || { echo "$from/ustack missing: tests/guest not built"; exit 1; }
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
for variant in sframe fp; do
	prog=$dir/bin/ustack
	[ $variant = sframe ] || prog=$dir/bin/fp/ustack
	echo "bpf-ustack ($variant):"
	"$prog" 2>&1 | sed "s/^\(\(not \)\?ok [0-9]* \)/\1bpf-ustack-$variant: /"
	[ "${PIPESTATUS[0]}" -eq 0 ] || fail=1
done
exit $fail
