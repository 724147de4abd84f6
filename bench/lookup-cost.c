// SPDX-License-Identifier: GPL-2.0
/*
 * lookup-cost: the kernel's SFrame decoder (kernel/unwind/sframe_decode.c,
 * built in user space by tools/testing/sframe as decoder-x86.o) timed natively:
 * how one lookup's cost grows with the number of FDEs of a section.
 *
 *	lookup-cost FILE [LOOKUPS]
 *
 * FILE is an x86_64 shared object with a .sframe section; LOOKUPS PCs
 * (default 1000000), spread over its text by a fixed pseudo-random
 * sequence, are looked up one after another, as the kernel looks them
 * up: narrowed by the index it makes of a section (sc_decoder.lookup).
 * Prints ns per lookup, and the copies from "user memory" per lookup with
 * the bytes they copy (the decoder's copy_from_user() calls, which the
 * shim of tools/testing/sframe counts).  Under callgrind, lookups() alone is
 * the cost of the lookups: run with --toggle-collect=lookups.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define BIAS	0x7f0000000000UL

/* What the decoder's uaccess shim reads: the section, at its address. */
const unsigned char *sframe_umem;
unsigned long sframe_umem_start, sframe_umem_end;
unsigned long sframe_umem_copies, sframe_umem_bytes;
static unsigned long faults;

void sframe_umem_fault(unsigned long addr, unsigned long size)
{
	faults++;
}

static unsigned long text_start, text_end;

static int load(const char *file)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	size_t shstrndx;
	Elf_Data *data;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(file, O_RDONLY);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".text")) {
			text_start = BIAS + shdr.sh_addr;
			text_end = text_start + shdr.sh_size;
		} else if (!strcmp(name, ".sframe")) {
			data = elf_getdata(scn, NULL);
			if (!data || data->d_size != shdr.sh_size)
				return -1;
			sframe_umem = malloc(shdr.sh_size);
			if (!sframe_umem)
				return -1;
			memcpy((void *)sframe_umem, data->d_buf, shdr.sh_size);
			sframe_umem_start = BIAS + shdr.sh_addr;
			sframe_umem_end = sframe_umem_start + shdr.sh_size;
		}
	}
	return sframe_umem && text_end ? 0 : -1;
}

static __attribute__((noinline)) unsigned long
lookups(void *sec, const unsigned long *ips, unsigned long n)
{
	unsigned long i, ok = 0;

	for (i = 0; i < n; i++)
		ok += !sc_decoder_x86.lookup(sec, ips[i]);
	return ok;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 1000000;
	unsigned long *ips, i, x = 12345, ok, copies, bytes;
	struct timespec t0, t1;
	void *sec;
	double ns;
	int err;

	if (argc < 2 || load(argv[1])) {
		fprintf(stderr, "usage: lookup-cost FILE [LOOKUPS] (FILE: x86_64 ELF with .text and .sframe)\n");
		return 2;
	}
	sec = sc_decoder_x86.open(sframe_umem_start, sframe_umem_end, &err);
	if (!sec) {
		fprintf(stderr, "%s: the decoder refuses the section: %d\n",
			argv[1], err);
		return 1;
	}
	ips = malloc(n * sizeof(*ips));
	if (!ips)
		return 1;
	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		ips[i] = text_start + (x >> 11) % (text_end - text_start);
	}
	copies = sframe_umem_copies;
	bytes = sframe_umem_bytes;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ok = lookups(sec, ips, n);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	copies = sframe_umem_copies - copies;
	bytes = sframe_umem_bytes - bytes;
	ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
	printf("%s: %lu lookups, %lu found, %.1f ns per lookup, %.2f copies of %.1f bytes per lookup\n",
	       argv[1], n, ok, ns / n, (double)copies / n, (double)bytes / n);
	if (faults || ok * 10 < n * 9) {
		fprintf(stderr, "%s: %lu reads outside the section, %lu of %lu found\n",
			argv[1], faults, ok, n);
		return 1;
	}
	sc_decoder_x86.close(sec);
	return 0;
}
