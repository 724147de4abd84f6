# SPDX-License-Identifier: GPL-2.0
#
# SFrame user space unwinding for Linux: the pipeline around patches/.
# See README.md.

ARCH ?= x86_64
SHELL := /bin/bash

.PHONY: check check-fast check-debug demo bench fuzz toolchain base tree export kernel selftests \
	run test list clean help

help:
	@echo 'make demo         build the patched kernel, boot it, profile a program with perf'
	@echo 'make check        every test: series, checkpatch, bisect, both kernels booted, tests'
	@echo 'make check-fast   make check without bisect, x86_64 only, shorter host tests'
	@echo 'make check-debug  selftests and guest tests on a KASAN/lockdep/kmemleak x86_64 kernel'
	@echo 'make bench        per-frame and per-lookup costs (bench/results.md)'
	@echo 'make fuzz         fuzz the decoder (FUZZ_TIME seconds)'
	@echo 'make toolchain    the Debian sid toolchain root and the arm64 guest root'
	@echo 'make base         fetch and verify the pinned Linux base'
	@echo 'make tree         build/linux: the base with every topic of patches/ applied'
	@echo 'make export       build/linux back into patches/'
	@echo 'make kernel       build/linux'"'"'s kernel for ARCH (x86_64 or arm64)'
	@echo 'make selftests    build/linux'"'"'s sframe selftests for ARCH'
	@echo 'make run          a command (CMD) in a guest of build/linux'"'"'s kernel for ARCH'
	@echo 'make test         only the tests named like T (a glob), on build/linux for ARCH'
	@echo 'make list         the tests named like T (default: all), and what each asserts'
	@echo 'make clean        remove out/'

check:
	@check/check.sh full

check-fast:
	@check/check.sh fast

check-debug:
	@check/check.sh debug

demo:
	@demo/demo.sh

bench:
	@bench/bench.sh

fuzz:
	@fuzz/fuzz.sh

toolchain:
	@pipeline/toolchain.sh

base:
	@pipeline/base.sh

tree: toolchain
	@pipeline/tree.sh

export:
	@pipeline/export.sh

kernel: toolchain
	@pipeline/kernel.sh $(ARCH) build/linux

selftests: toolchain
	@pipeline/selftests.sh $(ARCH) build/linux

# make run ARCH=arm64 CMD='uname -a': a command in a guest of build/linux.
CMD ?= uname -a
export CMD
run:
	@CMD="$$CMD" pipeline/run.sh $(ARCH) build/linux 600 "$$CMD"

# make test T='stock-*' ARCH=arm64: only those tests (check/test.sh), on
# build/linux after make kernel and make selftests for ARCH.
T ?=
export T
test:
	@[ -n "$$T" ] || { echo "make test T=GLOB: which tests? (check/test.sh)"; exit 2; }
	@check/test.sh -a $(ARCH) -- "$$T"

# make list [T=GLOB]: the tests, and what each asserts (check/test.sh -l).
list:
	@check/test.sh -l -- "$${T:-*}"

clean:
	rm -rf out
