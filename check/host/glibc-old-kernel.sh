#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The glibc of userspace/glibc on a kernel without the series: the host's.
# Its ld.so calls PR_ADD_SFRAME for every object with .sframe (libc.so.6
# among them), the kernel refuses the unknown prctl(), and the program
# (check/guest/glibc/registrar, built by make check for the x86_64
# guest) runs as with any glibc.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/lib/lib.sh"

tree=${1:?usage: $0 TREE (the check tree, docs/check-tree.md)}
prog=$(kbuild_dir x86_64 "$tree")/guest-tests/glibc/registrar
[ -x "$prog" ] || die "$prog missing: make check builds it with the x86_64 selftests"
echo "host kernel: $(uname -r)"
inroot "$prog" --old-kernel
