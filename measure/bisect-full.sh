#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect-full.sh TREE ARCH [REV [N]] - what a real build of every prefix
# costs: the kernel image of ARCH built incrementally (ccache, the kernel
# build of TREE) at each commit after REV (default: base), the first N of
# them (default: all), as "git rebase -x make" would, with the time of
# each.  A measurement, not a check: make check runs bisect.sh, whose
# cost this puts in proportion.  TREE is left at its original HEAD, its
# build at the last commit built.

. "$(dirname "$0")/../lib/lib.sh"

tree=$(cd "${1:?usage: bisect-full.sh TREE ARCH [REV [N]]}" && pwd)
arch=${2:?usage: bisect-full.sh TREE ARCH [REV [N]]}
from=${3:-base}
count=${4:-0}
kout=$(kbuild_dir "$arch" "$tree")
[ -e "$kout/vmlinux" ] || die "build $arch at $tree's HEAD first"
arch_vars "$arch"

head=$(git -C "$tree" rev-parse HEAD)
branch=$(git -C "$tree" symbolic-ref -q --short HEAD || true)
cp -p "$kout/.config" "$kout/.config.bisect-full"
restore()
{
	git -C "$tree" checkout -q -f "${branch:-$head}"
	mv "$kout/.config.bisect-full" "$kout/.config"
}
trap restore EXIT

start=$(now)
n=0
for c in $(git -C "$tree" rev-list --reverse "$from".."$head"); do
	[ "$count" = 0 ] || [ "$n" -lt "$count" ] || break
	n=$((n + 1))
	git -C "$tree" checkout -q -f "$c"
	t0=$(now)
	rc=ok
	{ kernel_make "$arch" "$tree" "$kout" olddefconfig </dev/null >/dev/null &&
	  kernel_make "$arch" "$tree" "$kout" "$(basename "$IMAGE")"; } \
		> "$kout/bisect-full-$n.log" 2>&1 || rc=FAILED
	printf '%3d %4ss %-6s %s\n' "$n" "$(($(now) - t0))" "$rc" \
		"$(git -C "$tree" log -1 --format=%s "$c")"
done
echo "$n commits, $arch: $(($(now) - start))s"
