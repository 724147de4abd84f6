# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # read by the scripts that source it
#
# Every fact of x86_64 that the pipeline, the tests, the demo and the
# bench use, sourced by arch_vars (lib/lib.sh), which documents each name.
# The kernel's configuration for it is config/x86_64.config.

# The kernel and its cross tools: none, the toolchain root is x86_64.
KARCH=x86_64
SRCARCH=x86
CROSS=
IMAGE=arch/x86/boot/bzImage

# The guest runs in the toolchain root itself.
GUEST_ROOT=$ROOT
QEMU_OPTS=
LIBBPF_SYSROOT=

# User space.
TRIPLET=x86_64-linux-gnu
LDSO=ld-linux-x86-64.so.2
ELF_MACHINE=EM_X86_64
BRANCH_PROTECTION=

# Bit 0 of the fuzzers' options byte (tools/testing/sframe/fuzz.c,
# userspace/eh2sframe/fuzz.c): 0 for x86_64.
FUZZ_ARCH=0

# The corpus's (check/corpus.sh) own kinds of code: stack realignment
# (flex FDEs) for Lua, AVX2 machines for zstd and bzip2.
CORPUS_LUA_CFLAGS=-mstackrealign
CORPUS_ZSTD_CFLAGS=-march=x86-64-v3
CORPUS_BZ_CFLAGS=-march=x86-64-v3

# make bench's guest measures times only on this clocksource (4 ms
# jiffies would be all the resolution).  Under a loaded host, the
# clocksource watchdog would give up the TSC (BENCH_APPEND keeps it) and
# the PIT calibration of the TSC can fail: bench.sh gives the host's
# rate in kHz, which is what TCG's TSC counts, as BENCH_KHZ_PARAM.
BENCH_CLOCKSOURCE=tsc
BENCH_APPEND=tsc=reliable
BENCH_KHZ_PARAM=tsc_early_khz
