#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's SFrame decoder (kernel/unwind/sframe_decode.c, built in
# user space by tools/testing/sframe) must give the same rules as libsframe at every
# PC of a corpus of real code built with -Wa,--gsframe for x86_64 and
# aarch64 (check/corpus.sh: lua, zlib, bzip2, zstd, mbedtls, pcre2
# from Debian's sources) and of the selftest programs that check.sh built
# for both architectures.  The tree's checker takes them as FILES=, with
# -f for the corpus's lists of files.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/lib/lib.sh"

# The arches whose selftests check.sh built: make check-fast builds x86_64's only.
host_test_args "$@"
out=$CACHE/corpus/out

"$top/check/corpus.sh" "$out"

files=(-f "$out/x86_64/files.txt" -f "$out/aarch64/files.txt")
for arch in "${arches[@]}"; do
	sel=$(kbuild_dir "$arch" "$tree")/kselftest/sframe
	[ -d "$sel" ] || die "no $arch selftests in $sel: run check.sh"
	for f in "$sel"/*; do
		# budget's deep_run() has 65535 FREs: comparing each of its
		# PCs reads them all, some 4 billion reads for two
		# architectures, minutes for push/pop rules that the corpus
		# has everywhere.
		[ "$(basename "$f")" != budget ] || continue
		if is_elf "$f"; then
			files+=("$f")
		fi
	done
done

inroot make -s -C "$tree/tools/testing/sframe" check FILES="${files[*]}"
