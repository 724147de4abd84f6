#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests-bpf.sh ARCH TREE - build test_progs of TREE's selftests/bpf
# with the series' tests only (BPF_TESTS), for TREE's ARCH kernel build,
# into KOUT/selftests-bpf/out, where the guest runs it
# (check/guest/selftests-bpf.sh).
#
# All of selftests/bpf (some 900 programs, bpftool, the test modules, the
# three other runners) takes longer to build than all of make check may.
# selftests/bpf's own Makefile builds test_progs from whatever
# prog_tests/*.c and progs/*.c it finds, so it runs here on a copy of the
# tree's tools/ (and the few other directories it reads) that keeps only
# the series' tests and the BPF programs they name.  Left out, on the
# command line: the test modules (the test kernels have no modules), the
# helper programs of other tests, the USDT objects and libarena, and the
# light and linked skeletons, whose programs are gone.  bpftool is the
# toolchain root's: the in-tree one needs llvm-strip, which the root has
# not.  The copy keeps its files' times, so that make rebuilds only what
# changed.

. "$(dirname "$0")/../lib/lib.sh"

arch=${1:?usage: selftests-bpf.sh ARCH TREE}
tree=$(cd "${2:?}" && pwd)
kout=$(kbuild_dir "$arch" "$tree")
arch_vars "$arch"

# The prog_tests of the series
BPF_TESTS=(unwind_user_request)

src=$kout/selftests-bpf/src
out=$kout/selftests-bpf/out
st=$src/tools/testing/selftests/bpf

rm -rf "$src"
mkdir -p "$src" "$out"
# The tree's files, with new ones not committed yet (a tree being worked
# on), without its build products
(cd "$tree" && git ls-files -z -co --exclude-standard -- tools kernel/bpf \
	scripts arch/x86/include/uapi arch/arm64/include/uapi |
	xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' - |
	tar --null --no-recursion -T - -c) | tar -x -C "$src" ||
	die "cannot copy $tree's selftests/bpf"

# The tests, and the programs they name as skeletons or objects
keep_tests=() keep_progs=()
for t in "${BPF_TESTS[@]}"; do
	[ -e "$st/prog_tests/$t.c" ] || die "no prog_tests/$t.c in $tree"
	keep_tests+=(! -name "$t.c")
	while read -r p; do
		keep_progs+=(! -name "$p.c")
	done < <(grep -ohE '[A-Za-z0-9_]+\.(skel\.h|bpf\.o)' "$st/prog_tests/$t.c" |
		 sed -E 's/\.(skel\.h|bpf\.o)$//' | sort -u)
done
find "$st/prog_tests" -name '*.c' "${keep_tests[@]}" -delete
find "$st/progs" -name '*.c' "${keep_progs[@]}" -delete

# test_progs.c and the helpers it and the series' tests link with: the
# list of the Makefile without the USDT objects and libarena.
sources="test_progs.c cgroup_helpers.c trace_helpers.c network_helpers.c
	testing_helpers.c btf_helpers.c cap_helpers.c unpriv_helpers.c
	sysctl_helpers.c netlink_helpers.c jit_disasm_helpers.c io_helpers.c
	test_loader.c xsk.c disasm.c disasm_helpers.c json_writer.c
	verification_cert.h flow_dissector_load.h ip_check_defrag_frags.h
	bpftool_helpers.c"
cross=()
if [ -n "$CROSS" ]; then
	# libelf and zlib of the guest root, by links of their own: -L of
	# its library directory would pick its libc.so script, whose paths
	# the toolchain root has not.
	libs=$kout/selftests-bpf/libs
	mkdir -p "$libs"
	ln -sf "$GUEST_ROOT/usr/lib/$TRIPLET/libelf.so.1" "$libs/libelf.so"
	ln -sf "$GUEST_ROOT/usr/lib/$TRIPLET/libz.so.1" "$libs/libz.so"
	ldflags="-L$libs -Wl,-rpath-link,$GUEST_ROOT/usr/lib/$TRIPLET"
	cross=(ARCH="$KARCH" CROSS_COMPILE="$CROSS" EXTRA_LDFLAGS="$ldflags")
	export LDFLAGS=$ldflags
fi
inroot make -s -C "$st" -j"$JOBS" "${cross[@]}" OUTPUT="$out" \
	VMLINUX_BTF="$kout/vmlinux" KHDR_INCLUDES="-isystem $kout/usr/include" \
	SKIP_DOCS=1 SKIP_LLVM=1 \
	BPFTOOL=/usr/sbin/bpftool TRUNNER_BPFTOOL=/usr/sbin/bpftool \
	TEST_KMODS= TRUNNER_EXTRA_FILES= \
	LSKELS= LSKELS_SIGNED= LSKELS_EXTRA= LINKED_SKELS= \
	TRUNNER_EXTRA_SOURCES="$(echo $sources)" test_progs ||
	die "cannot build test_progs for $arch"
