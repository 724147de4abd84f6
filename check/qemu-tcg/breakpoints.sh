#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# breakpoints.sh [ARCH [TREE [N]]] - why a breakpoint may not fire in a
# guest (README.md, check/include/breakpoint-miss.h).  On x86_64,
# rflags.c counts the contexts stopped by a timer interrupt whose saved
# RFLAGS has RF set, on the host and in a guest booted from the test
# kernel of TREE (default the tree of make check); then, on either arch,
# misses.c counts the calls, each from a new thread, that an execute
# breakpoint let pass, out of N (default 40000).  Prints one line per
# count and exits 0 when the x86_64 result is the one README.md
# documents: no RF on the host, RF in every interrupted context of the
# guest.

set -euo pipefail
. "$(dirname "$0")/../../lib/lib.sh"

arch=${1:-x86_64}
tree=${2:-$CACHE/trees/check}
n=${3:-40000}
work=$CACHE/qemu-tcg
mkdir -p "$work"
arch_vars "$arch"

inroot "${CROSS}gcc" -O2 -Wall -static -pthread -o "$work/misses-$arch" \
	"$TOP/check/qemu-tcg/misses.c"
cmd="$work/misses-$arch $n"
if [ "$arch" = x86_64 ]; then
	inroot gcc -O2 -Wall -static -o "$work/rflags" \
		"$TOP/check/qemu-tcg/rflags.c"
	cmd="$work/rflags; $cmd"
fi
out=$("$TOP/pipeline/run.sh" "$arch" "$tree" 900 "$cmd" |
	grep -E '^(timer-interrupted|calls)' || true)
echo "$out" | sed "s/^/$arch guest: /"
[ "$arch" = x86_64 ] || exit 0
# The host's flags, where the host is x86_64 too
[ "$(uname -m)" = x86_64 ] || die "the host is not x86_64"
host=$("$work/rflags")
echo "host: $host"
all='^timer-interrupted contexts: ([0-9]+), with RF set: \1$'
[[ $host =~ RF\ set:\ 0$ ]] && echo "$out" | grep -qE "$all"
