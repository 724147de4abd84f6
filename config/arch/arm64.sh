# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # read by the scripts that source it
#
# Every fact of arm64 that the pipeline, the tests, the demo and the
# bench use, sourced by arch_vars (lib/lib.sh), which documents each name.
# The kernel's configuration for it is config/arm64.config, the guest
# root's packages config/guest-arm64.pkgs.

# The kernel and its cross tools, from the toolchain root.
KARCH=arm64
SRCARCH=arm64
CROSS=aarch64-linux-gnu-
IMAGE=arch/arm64/boot/Image

# The guest runs in a root of its own (pipeline/toolchain.sh), whose
# libbpf the guest programs link with.  QEMU's "max" CPU, for pointer
# authentication, with QEMU's implementation-defined algorithm, which
# is faster to emulate than QARMA; without SVE, which no test uses.
GUEST_ROOT=$AROOT
QEMU_OPTS="-cpu max,sve=off,pauth-impdef=on"
LIBBPF_SYSROOT=$AROOT

# User space.
TRIPLET=aarch64-linux-gnu
LDSO=ld-linux-aarch64.so.1
ELF_MACHINE=EM_AARCH64
BRANCH_PROTECTION=-mbranch-protection=standard

# Bit 0 of the fuzzers' options byte (tools/testing/sframe/fuzz.c,
# userspace/eh2sframe/fuzz.c): 1 for arm64.
FUZZ_ARCH=1

# The corpus's (check/corpus.sh) own kinds of code: return addresses
# signed by pointer authentication, with key A and with key B.
CORPUS_LUA_CFLAGS=-mbranch-protection=standard
CORPUS_ZSTD_CFLAGS=-mbranch-protection=pac-ret
CORPUS_BZ_CFLAGS=-mbranch-protection=pac-ret+b-key

# make bench's guest measures times on the architected timer.
BENCH_CLOCKSOURCE=arch_sys_counter
BENCH_APPEND=
BENCH_KHZ_PARAM=
