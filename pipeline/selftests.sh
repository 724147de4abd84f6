#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests.sh ARCH TREE - build TREE's sframe selftests for ARCH on the
# host (cross-compiled for arm64), against the uapi headers of TREE's
# ARCH kernel build, so that the guest only runs them.

. "$(dirname "$0")/../lib/lib.sh"

arch=${1:?usage: selftests.sh ARCH TREE}
tree=$(cd "${2:?}" && pwd)
kout=$(kbuild_dir "$arch" "$tree")

arch_vars "$arch"
karch=$KARCH cross=$CROSS

cd "$tree" || exit
inroot make -s O="$kout" ARCH=$karch CROSS_COMPILE=$cross headers
inroot make -s -C tools/testing/selftests TARGETS=sframe O="$kout" \
	ARCH=$karch CROSS_COMPILE=$cross \
	KHDR_INCLUDES="-isystem $kout/usr/include"

# The toolchain root's binutils emit SFrame V3: a program built as a skip
# script (check_sframe_cc.sh found no SFrame) means the probe or the root
# broke, which would otherwise only show as skipped tests.
for f in "$kout"/kselftest/sframe/*; do
	head -c 10 "$f" | grep -qax '#!/bin/sh' &&
	grep -qa '^echo "1\.\.0 # SKIP' "$f" &&
		die "$(basename "$f") was built as a skip script: $(sed -n 2p "$f")"
done

# The programs of the project's guest tests (check/guest/), likewise; the
# BPF ones against the BTF of this kernel and the libbpf of the guest.
# The glibc tests are built if pipeline/glibc.sh has built that glibc.
glibc=$("$TOP/pipeline/glibc.sh" "$arch" --installed) || glibc=
[ -n "$glibc" ] ||
	rm -rf "$kout/guest-tests/glibc" "$kout/guest-tests/perf-oracle/glibc"
inroot make -s -C "$TOP/check/guest" O="$kout/guest-tests" CROSS_COMPILE=$cross \
	KHDR_INCLUDES="-isystem $kout/usr/include" GLIBC="$glibc" \
	SELFTESTS="$tree/tools/testing/selftests/sframe" \
	VMLINUX="$kout/vmlinux" LIBBPF_SYSROOT="$LIBBPF_SYSROOT" \
	SRCARCH="$SRCARCH" TRIPLET="$TRIPLET" \
	LDSO="$LDSO" BRANCH_PROTECTION="$BRANCH_PROTECTION"
# and bpf-profile (userspace/bpf-profile), for the stacks of a stock
# program (check/guest/stock-consumers.sh).
inroot make -s -C "$TOP/userspace/bpf-profile" O="$kout/guest-tests/bpf-profile" \
	CROSS_COMPILE=$cross VMLINUX="$kout/vmlinux" LIBBPF_SYSROOT="$LIBBPF_SYSROOT" \
	SRCARCH="$SRCARCH" TRIPLET="$TRIPLET"
# SFrame tables made from the .eh_frame of the guest root's own, stock
# programs and the libraries they load (check/guest/stock-tables.sh), by
# userspace/eh2sframe on the host, into a build-id directory.
e2s=$(eh2sframe_build all)
tables=$kout/guest-tests/sframe-tables
rm -rf "$tables"
lib=usr/lib/$TRIPLET
# The root's python3 (python3.14 in sid now) and its _posixshmem module
# (its link is read, not followed: an absolute one names the root's file)
py=$(readlink "$GUEST_ROOT/usr/bin/python3") ||
	die "$GUEST_ROOT/usr/bin/python3 is no link to a python3.N"
py=${py##*/}
mods=("$GUEST_ROOT/usr/lib/$py/lib-dynload/_posixshmem.cpython-"*"-$TRIPLET.so")
[ ${#mods[@]} = 1 ] && [ -f "${mods[0]}" ] ||
	die "not one _posixshmem module of $py in $GUEST_ROOT: ${mods[*]}"
shm=${mods[0]#"$GUEST_ROOT"/}
stock=("usr/bin/$py" usr/bin/bash usr/bin/perl "$lib/$LDSO"
	"$lib/libc.so.6" "$lib/libm.so.6" "$lib/libz.so.1" "$lib/libexpat.so.1"
	"$lib/libtinfo.so.6" "$lib/libcrypt.so.1" "$shm")
# and of the program whose .sframe section describes only its start-up
# code (Debian sid built some with --gsframe for a while) that
# stock-tables.sh runs: x86_64's cpio, arm64's make.  The module prefers
# the table, which describes more.  A root without it fails here, in
# eh2sframe, not later as chains that are not whole.
case $arch in
x86_64)	stock+=(usr/bin/cpio) ;;
arm64)	stock+=(usr/bin/make) ;;
esac
inroot "$e2s/eh2sframe" -d "$tables" "${stock[@]/#/$GUEST_ROOT/}" \
	> "$kout/guest-tests/sframe-tables.txt" ||
	die "eh2sframe could not make the stock programs' tables"
# The x86_64 guest runs on the toolchain root, where eh2sframe was built:
# userspace/distro/sframe-tables runs it there (check/guest/distro-tables.sh).
rm -f "$kout/guest-tests/eh2sframe"
[ "$arch" != x86_64 ] || cp "$e2s/eh2sframe" "$kout/guest-tests/"
# and the tables of the glibc test programs built without SFrame, or with
# a partial section, or not a PIE, which the dynamic linker of
# userspace/glibc looks up (check/guest/glibc-chains.sh), and of the
# library without SFrame that glibc/registrar opens
# (check/guest/glibc-registrar.sh)
if [ -n "$glibc" ]; then
	rm -rf "$kout/guest-tests/glibc/tables/.build-id"
	inroot "$e2s/eh2sframe" -d "$kout/guest-tests/glibc/tables" \
		"$kout/guest-tests/glibc/tables/chains" \
		"$kout/guest-tests/glibc/partial/chains" \
		"$kout/guest-tests/glibc/nopie/chains" \
		"$kout/guest-tests/glibc/libnosf.so" > /dev/null ||
		die "eh2sframe could not make the tables of glibc/{tables,partial,nopie}/chains and glibc/libnosf.so"
fi
# test_progs of selftests/bpf with the series' tests only
# (check/guest/selftests-bpf.sh)
"$TOP/pipeline/selftests-bpf.sh" "$arch" "$tree"
