#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sleepable-walk-revert.sh ARCH - the guest test bpf/sleepable_stack on
# the check kernel with the faultable walk that the BPF series had before
# dffa553 ("bpf: Walk user stacks with the user unwinder in sleepable
# programs", taken from git history), to show that the test fails there:
# the walk of a uprobe.s program faults in the .sframe page that
# userfaultfd holds.  Then the tree is restored and its kernel rebuilt.
# A demonstration, not a check: make check runs the test on the series
# as it is, where it passes.  Needs a make check (or check-fast) run
# before it, for the check tree, its kernel build and the test program.

. "$(dirname "$0")/../lib/lib.sh"

arch=${1:-x86_64}
tree=$CACHE/trees/check
kout=$(kbuild_dir "$arch" "$tree")
test=$kout/guest-tests/bpf/sleepable_stack
[ -x "$test" ] && [ -e "$kout/.config" ] ||
	die "no check build of $arch: run make check first"
arch_vars "$arch"
lock_check_tree

patch=$(mktemp)
trap 'rm -f "$patch"' EXIT
git -C "$TOP" show 'dffa553~:patches/bpf/0001-bpf-Walk-user-stacks-with-the-user-unwinder-in-sleep.patch' \
	> "$patch" || die "the faultable walk's patch is not in this clone's history"

# The kernel of the check tree, incrementally, with its own config
build()
{
	kernel_make "$arch" "$tree" "$kout" "$(basename "$IMAGE")"
}

restore()
{
	git -C "$tree" checkout -q -- kernel/bpf/stackmap.c
	build > /dev/null 2>&1
}

git -C "$tree" apply "$patch" || die "the faultable walk does not apply"
trap 'restore; rm -f "$patch"' EXIT
log "building $arch with the faultable walk"
build > /dev/null || die "the kernel with the faultable walk does not build"
log "running bpf/sleepable_stack: it must fail"
rc=0
"$TOP/pipeline/run.sh" "$arch" "$tree" 600 "$test" || rc=$?
log "restoring the series' kernel"
[ $rc != 0 ] || die "the test passed with the faultable walk: it cannot fail"
log "the test failed with the faultable walk, as it must"
