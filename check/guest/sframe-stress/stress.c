// SPDX-License-Identifier: GPL-2.0
/*
 * stress SECONDS [SEED]: hostile .sframe sections, registered and unwound
 * through for a while.
 *
 * Each round takes the program's own .sframe section and makes a copy of
 * it in fresh memory: unchanged, with a few bytes changed, cut short,
 * with random bytes after the header, or all random.  It removes the
 * program's registration and registers the copy for the program's text
 * with PR_ADD_SFRAME, which accepts or refuses it.  Then it recurses to a
 * random depth and touches fresh pages there, while a perf event samples
 * its page faults with deferred user callchains: the kernel unwinds
 * through whatever the copy says.  Some rounds unmap the copy while it
 * is registered.  Finally it removes the copy, which must work if it was
 * accepted, unless the kernel found it corrupt while unwinding and
 * dropped it.
 *
 * The kernel may refuse a section or fall back to frame pointers; it must
 * not warn, oops, leak or hang, which the guest test checks in the kernel
 * log afterwards.  Prints what it did; fails if it could not do it, if
 * not a single deferred callchain arrived, or if the unchanged copies
 * were refused.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <linux/perf_event.h>
#include <linux/sframe.h>
#include <linux/sframe_types.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../lib/self-sframe.h"
#include "callchain.h"


#define PAGE		4096UL
#define RING_PAGES	64

enum { SAME, FLIP, CUT, NOISE, RANDOM, UNMAP, NR_KINDS };
static const char *const kind_name[NR_KINDS] = {
	"unchanged", "bytes changed", "cut short", "noise after header",
	"random", "unmapped while registered",
};

static struct prctl_sframe self;
static struct perf_event_mmap_page *ring;
static unsigned long nr_chains;
static uint64_t rnd_state;
static volatile char sink;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void open_event(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.exclude_callchain_kernel = 1,
		.defer_callchain = 1,
		.defer_output = 1,
	};
	int fd;

	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		die("perf_event_open");
	ring = mmap(NULL, (RING_PAGES + 1) * PAGE, PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED)
		die("mmap of the ring buffer");
}

/* Count the deferred callchains in the ring buffer and drop everything. */
static void drain(void)
{
	static struct callchain cc;
	int ret;

	while (!(ret = callchain_next(ring, (RING_PAGES + 1) * PAGE, &cc)))
		nr_chains++;
	if (ret != -ENOENT)
		die("reading the ring buffer");
}

/* Fault in fresh pages DEPTH frames down: every fault is a sample. */
static __attribute__((__noinline__)) void descend(int depth)
{
	char *p;
	int i;

	if (depth > 0) {
		descend(depth - 1);
		sink++;		/* not a tail call */
		return;
	}
	p = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	for (i = 0; i < 8; i++)
		p[i * PAGE] = (char)i;
	munmap(p, 8 * PAGE);
}

/* A copy of the section in fresh memory, spoiled as KIND says. */
static unsigned char *make_copy(int kind, size_t *size, size_t *map)
{
	unsigned char *sec;
	size_t i, n;

	*size = self.sframe_size;
	*map = (*size + PAGE - 1) & ~(PAGE - 1);
	sec = mmap(NULL, *map, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sec == MAP_FAILED)
		die("mmap");
	memcpy(sec, (void *)self.sframe_addr, *size);
	switch (kind) {
	case FLIP:
		n = 1 + rnd() % 8;
		for (i = 0; i < n; i++)
			sec[rnd() % *size] ^= 1 << (rnd() % 8);
		break;
	case CUT:
		*size = 1 + rnd() % *size;
		break;
	case NOISE:
	case RANDOM:
		for (i = kind == NOISE ? sizeof(struct sframe_header) : 0;
		     i < *size; i++)
			sec[i] = rnd();
		break;
	}
	return sec;
}

int main(int argc, char **argv)
{
	unsigned long rounds = 0, accepted[NR_KINDS] = {}, tried[NR_KINDS] = {};
	unsigned long refused[NR_KINDS] = {}, dropped[NR_KINDS] = {};
	struct prctl_sframe arg;
	size_t size, map;
	unsigned char *sec;
	time_t end;
	int kind, k;

	if (argc < 2) {
		fprintf(stderr, "usage: %s SECONDS [SEED]\n", argv[0]);
		return 2;
	}
	end = time(NULL) + atoi(argv[1]);
	rnd_state = argc > 2 ? strtoull(argv[2], NULL, 0) : (uint64_t)time(NULL);
	rnd_state |= 1;
	printf("seed %#llx\n", (unsigned long long)rnd_state);

	if (self_sframe(&self)) {
		fprintf(stderr, "no PT_GNU_SFRAME or text in this program\n");
		return 1;
	}
	open_event();

	while (time(NULL) < end) {
		kind = rounds++ % NR_KINDS;
		sec = make_copy(kind, &size, &map);
		if (prctl(PR_REMOVE_SFRAME, &self, sizeof(self), 0, 0) &&
		    errno != ENOENT)
			die("PR_REMOVE_SFRAME of the program");
		arg = self;
		arg.sframe_addr = (uintptr_t)sec;
		arg.sframe_size = size;
		tried[kind]++;
		if (prctl(PR_ADD_SFRAME, &arg, sizeof(arg), 0, 0)) {
			refused[kind]++;
			munmap(sec, map);
			continue;
		}
		accepted[kind]++;
		if (kind == UNMAP)
			munmap(sec, map);
		descend(rnd() % 64);
		drain();
		/* The kernel drops a section that it found corrupt. */
		if (prctl(PR_REMOVE_SFRAME, &arg, sizeof(arg), 0, 0)) {
			if (errno != ENOENT || kind == SAME)
				die("PR_REMOVE_SFRAME of an accepted section");
			dropped[kind]++;
		}
		if (kind != UNMAP)
			munmap(sec, map);
	}
	if (prctl(PR_ADD_SFRAME, &self, sizeof(self), 0, 0) && errno != EEXIST)
		die("PR_ADD_SFRAME of the program");

	printf("%lu rounds, %lu deferred callchains\n", rounds, nr_chains);
	for (k = 0; k < NR_KINDS; k++)
		printf("  %-26s %6lu tried, %6lu refused, %6lu accepted, %6lu of them dropped\n",
		       kind_name[k], tried[k], refused[k], accepted[k],
		       dropped[k]);
	if (!nr_chains) {
		fprintf(stderr, "no deferred callchain arrived\n");
		return 1;
	}
	if (accepted[SAME] != tried[SAME] || !tried[SAME]) {
		fprintf(stderr, "unchanged copies were refused\n");
		return 1;
	}
	return 0;
}
