// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-mem: kernel memory per registered .sframe section.  Registers a
 * copy of the program's own section for COUNT one-page text ranges with
 * PR_ADD_SFRAME (what a dynamic linker does per library), and reads the
 * slab usage of /proc/meminfo before, after (once RCU has freed what the
 * maple tree allocated ahead and did not use), and after removing them
 * all: the registration's structure and its share of the maple tree's
 * nodes.
 *
 *	sframe-mem [COUNT]	(default 2000; the limit is 4096 per process)
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "../check/guest/lib/self-sframe.h"


static struct prctl_sframe self;

/* Slab: of /proc/meminfo, in bytes. */
static long slab(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 2000;
	long page = sysconf(_SC_PAGESIZE), i;
	struct prctl_sframe arg;
	long before, after, gone;
	char *text, *copy;

	if (self_sframe(&self)) {
		fprintf(stderr, "no PT_GNU_SFRAME: build with -Wa,--gsframe\n");
		return 1;
	}
	copy = mmap(NULL, self.sframe_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	text = mmap(NULL, count * page, PROT_READ | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (copy == MAP_FAILED || text == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memcpy(copy, (void *)self.sframe_addr, self.sframe_size);
	arg = (struct prctl_sframe){
		.sframe_addr = (uintptr_t)copy,
		.sframe_size = self.sframe_size,
		.text_size = page,
	};

	sync();
	before = slab();
	for (i = 0; i < count; i++) {
		arg.text_addr = (uintptr_t)text + i * page;
		if (prctl(PR_ADD_SFRAME, &arg, sizeof(arg), 0, 0)) {
			perror("PR_ADD_SFRAME");
			return 1;
		}
	}
	/*
	 * The maple tree allocates nodes ahead of an insertion and frees
	 * those it did not use after an RCU grace period: let them go, as
	 * below, so that only what the registrations hold is counted.
	 */
	usleep(200000);
	after = slab();
	arg.text_addr = 0;
	arg.text_size = 0;
	if (prctl(PR_REMOVE_SFRAME, &arg, sizeof(arg), 0, 0)) {
		perror("PR_REMOVE_SFRAME");
		return 1;
	}
	/* Freed after an RCU grace period: give it a moment. */
	usleep(200000);
	gone = slab();
	printf("%ld registrations: slab +%ld bytes, %.0f bytes each; after removal %+ld bytes\n",
	       count, after - before, (double)(after - before) / count,
	       gone - before);
	return 0;
}
