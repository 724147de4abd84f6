#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user stacks of BPF programs: deferred stacks from
# bpf_unwind_user_request() for each program type, exits and kills
# (check/guest/bpf/ustack.c), for the program built with SFrame and
# without frame pointers and for the one built with frame pointers (fp/);
# and a sleepable program's stack, taken without faults
# (bpf/sleepable_stack.c).  Each prints KTAP; this prints KTAP
# (lib/tap.sh) of three cases, bpf-ustack-sframe, bpf-ustack-fp and
# bpf-sleepable-stack, each the verdict of its program (its exit status;
# 4 is a skip), with the program's KTAP "# "-prefixed before it, as
# kselftest's runner nests a program: check.sh counts each case of the
# program as "ARCH: TEST: CASE".

set -u
# shellcheck source=lib/tap.sh
. "$(dirname "$0")/../../lib/tap.sh"
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

# run NAME PROGRAM: one case of the document
run()
{
	local rc

	"$2" 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	case $rc in
	0) tap_pass "$1" ;;
	4) ktap_test_skip "$1" ;;
	*) echo "# $1: exit status $rc"
	   tap_fail "$1" ;;
	esac
}

tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.
ktap_set_plan 3
run bpf-ustack-sframe "$dir/bin/ustack"
run bpf-ustack-fp "$dir/bin/fp/ustack"
run bpf-sleepable-stack "$dir/bin/sleepable_stack"
ktap_finished
