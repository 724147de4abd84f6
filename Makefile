# SPDX-License-Identifier: GPL-2.0
#
# SFrame user space unwinding for Linux: the pipeline around patches/.
# See README.md.

ARCH ?= x86_64
SHELL := /bin/bash

.PHONY: check check-fast check-debug demo bench fuzz toolchain base tree export kernel selftests \
	run clean help

help:
	@sed -n '/^## /s/^## //p' README.md

check:
	@scripts/check.sh full

check-fast:
	@scripts/check.sh fast

check-debug:
	@scripts/check.sh debug

demo:
	@scripts/demo.sh

bench:
	@scripts/bench.sh

fuzz:
	@scripts/fuzz.sh

toolchain:
	@scripts/toolchain.sh

base:
	@scripts/fetch-base.sh

tree: toolchain
	@scripts/tree.sh

export:
	@scripts/export.sh

kernel: toolchain
	@scripts/kernel.sh $(ARCH) build/linux

selftests: toolchain
	@scripts/selftests.sh $(ARCH) build/linux

# make run ARCH=arm64 CMD='uname -a': a command in a guest of build/linux.
CMD ?= uname -a
export CMD
run:
	@CMD="$$CMD" scripts/vm.sh $(ARCH) build/linux 600 "$$CMD"

clean:
	rm -rf out
