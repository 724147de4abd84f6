# SPDX-License-Identifier: GPL-2.0
#
# Rules for libbpf programs, included by the Makefiles that build them
# (check/guest, userspace/bpf-profile) for the architecture that SRCARCH
# (the kernel's: x86, arm64) and TRIPLET (the C library's:
# x86_64-linux-gnu, aarch64-linux-gnu) name, as config/arch/ARCH.sh
# says, into $(O)/bpf:
#
#	$(O)/bpf/vmlinux.h	the types of the kernel under test, from the
#				BTF of its VMLINUX
#	$(O)/bpf/NAME.skel.h	the libbpf skeleton of SRCDIR/NAME.bpf.c
#
# and the flags to build and link their loaders with: BPF_CFLAGS,
# BPF_LIBS.  libbpf is the one of the guest's root (LIBBPF_SYSROOT: the
# arm64 guest root; empty for x86_64, whose guest runs in the toolchain
# root), its headers copied into $(O)/bpf/include.

VMLINUX ?=
LIBBPF_SYSROOT ?=
BPF_SRCDIR ?= .
# Required only by the rules that use them: a Makefile that includes
# this one builds its other targets without them.
SRCARCH ?= $(error SRCARCH= is required (config/arch/ARCH.sh))
TRIPLET ?= $(error TRIPLET= is required (config/arch/ARCH.sh))
BPF_LIBDIR = $(LIBBPF_SYSROOT)/usr/lib/$(TRIPLET)
BPF_CFLAGS := -I$(O)/bpf -I$(O)/bpf/include -I$(BPF_SRCDIR)
BPF_LIBS = $(BPF_LIBDIR)/libbpf.so.1 -Wl,-rpath-link,$(BPF_LIBDIR)

ifneq ($(VMLINUX),)
$(O)/bpf/vmlinux.h: $(VMLINUX)
	@mkdir -p $(@D)
	bpftool btf dump file $< format c > $@.tmp && mv $@.tmp $@
else
$(O)/bpf/vmlinux.h:
	@echo "VMLINUX= (a kernel built with BTF) is required for $@" >&2; exit 1
endif

$(O)/bpf/include/bpf/libbpf.h: $(LIBBPF_SYSROOT)/usr/include/bpf/libbpf.h
	@mkdir -p $(@D)
	cp $(<D)/*.h $(@D)/

# vmlinux.h declares the anonymous members of the kernel's structures,
# which clang warns about.
$(O)/bpf/%.bpf.o: $(BPF_SRCDIR)/%.bpf.c $(O)/bpf/vmlinux.h \
		  $(O)/bpf/include/bpf/libbpf.h
	clang -g -O2 -Wall -Wno-missing-declarations -target bpf \
		-D__TARGET_ARCH_$(SRCARCH) -I$(O)/bpf -I$(O)/bpf/include \
		-I$(BPF_SRCDIR) -c -o $@ $<

$(O)/bpf/%.skel.h: $(O)/bpf/%.bpf.o
	bpftool gen skeleton $< > $@.tmp && mv $@.tmp $@

.SECONDARY:
