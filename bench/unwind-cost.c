// SPDX-License-Identifier: GPL-2.0
/*
 * unwind-cost: what a deferred user stack unwind costs per frame, with
 * SFrame and with frame pointers, on the same stacks of the same binary.
 *
 * The program is built with frame pointers and with SFrame.  It opens a
 * perf event on itself that samples every page fault with a deferred
 * user callchain (what "perf record --call-graph fp,defer" asks for),
 * recurses DEPTH frames deep, and there times batches of first touches
 * of fresh pages: each touch faults, each fault is a sample, and each
 * return to user space after it unwinds the whole stack.  Three kinds of
 * batch, interleaved so that drift hits them alike:
 *
 *	off	the event disabled: the fault alone
 *	fp	the program's own SFrame registration removed (PR_REMOVE_SFRAME):
 *		the kernel walks the frame pointers
 *	sframe	the registration back (PR_ADD_SFRAME): the kernel uses SFrame
 *
 * The unwind costs fp - off and sframe - off per fault; their growth
 * with DEPTH is the cost per frame.  Every deferred callchain of a batch
 * is read back and must hold at least DEPTH frames: a walk that stopped
 * early would look cheap.
 *
 *	unwind-cost [DEPTH...]		(default 8 32 128)
 *
 * Prints one line per depth and mode: median ns per fault and the
 * unwind's share, then the per-frame slopes.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../tests/guest/lib/self-sframe.h"
#include "callchain.h"


#define PAGE		4096UL
#define BATCH		200		/* faults per timed batch */
#define ROUNDS		15		/* batches per mode and depth */
#define RING_PAGES	512		/* 2 MiB of ring buffer */
#define MAX_DEPTHS	8

enum { OFF, FP, SFRAME, NR_MODES };
static const char *const mode_name[NR_MODES] = { "off", "fp", "sframe" };

static struct prctl_sframe self_arg;
static int perf_fd;
static struct perf_event_mmap_page *ring;
static unsigned long min_frames;	/* shortest deferred chain seen */
static unsigned long nr_chains;

static double median[MAX_DEPTHS][NR_MODES];

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void set_sframe(int on)
{
	if (prctl(on ? PR_ADD_SFRAME : PR_REMOVE_SFRAME, &self_arg,
		  sizeof(self_arg), 0, 0) && errno != EEXIST && errno != ENOENT)
		die(on ? "PR_ADD_SFRAME" : "PR_REMOVE_SFRAME");
}

static void open_event(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.exclude_callchain_kernel = 1,
		.defer_callchain = 1,
		.defer_output = 1,
		.sample_max_stack = 500,
	};
	size_t len = (RING_PAGES + 1) * PAGE;

	perf_fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (perf_fd < 0)
		die("perf_event_open (is kernel.perf_event_max_stack >= 500?)");
	ring = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, perf_fd, 0);
	if (ring == MAP_FAILED)
		die("mmap of the ring buffer");
}

/* Read and drop what the batch wrote; note the shortest deferred chain. */
static void drain(void)
{
	static struct callchain cc;
	int ret;

	while (!(ret = callchain_next(ring, (RING_PAGES + 1) * PAGE, &cc))) {
		if (!nr_chains++ || cc.nr < min_frames)
			min_frames = cc.nr;
	}
	if (ret != -ENOENT)
		die("reading the ring buffer");
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ns per fault of one batch of first touches, with the event on or off. */
static __attribute__((__noinline__)) double batch(int mode)
{
	volatile char *p;
	double t;
	int i;

	p = mmap(NULL, BATCH * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	madvise((void *)p, BATCH * PAGE, MADV_NOHUGEPAGE);
	if (mode != OFF)
		ioctl(perf_fd, PERF_EVENT_IOC_ENABLE, 0);
	t = now_ns();
	for (i = 0; i < BATCH; i++)
		p[i * PAGE] = 1;
	t = now_ns() - t;
	ioctl(perf_fd, PERF_EVENT_IOC_DISABLE, 0);
	munmap((void *)p, BATCH * PAGE);
	drain();
	return t / BATCH;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static volatile int sink;

/* The stack under test: DEPTH frames of this, then the batches. */
static __attribute__((__noinline__)) void descend(int depth, int slot)
{
	double t[NR_MODES][ROUNDS];
	int r, m;

	if (depth > 0) {
		descend(depth - 1, slot);
		sink++;		/* no tail call: a real frame */
		return;
	}
	for (r = 0; r < ROUNDS; r++) {
		for (m = 0; m < NR_MODES; m++) {
			if (m != OFF)
				set_sframe(m == SFRAME);
			nr_chains = 0;
			t[m][r] = batch(m);
			if (m != OFF && nr_chains < BATCH) {
				fprintf(stderr, "%s: %lu deferred callchains for %d faults\n",
					mode_name[m], nr_chains, BATCH);
				exit(1);
			}
		}
	}
	for (m = 0; m < NR_MODES; m++) {
		qsort(t[m], ROUNDS, sizeof(double), cmp_double);
		median[slot][m] = t[m][ROUNDS / 2];
	}
}

int main(int argc, char **argv)
{
	int depths[MAX_DEPTHS] = { 8, 32, 128 };
	int n = 3, i, m;

	if (argc > 1) {
		n = argc - 1 < MAX_DEPTHS ? argc - 1 : MAX_DEPTHS;
		for (i = 0; i < n; i++)
			depths[i] = atoi(argv[i + 1]);
	}
	if (self_sframe(&self_arg)) {
		fprintf(stderr, "no PT_GNU_SFRAME: build with -Wa,--gsframe\n");
		return 1;
	}
	open_event();

	printf("%-6s %-7s %12s %12s %10s\n", "depth", "mode", "ns/fault",
	       "unwind ns", "min chain");
	descend(0, 0);		/* warm-up */
	for (i = 0; i < n; i++) {
		min_frames = 0;
		nr_chains = 0;
		descend(depths[i], i);
		for (m = 0; m < NR_MODES; m++)
			printf("%-6d %-7s %12.0f %12.0f\n", depths[i],
			       mode_name[m], median[i][m],
			       median[i][m] - median[i][OFF]);
		printf("%-6d %-7s %36lu\n", depths[i], "chains", min_frames);
		if (min_frames < (unsigned long)depths[i]) {
			fprintf(stderr, "a deferred chain at depth %d has only %lu frames\n",
				depths[i], min_frames);
			return 1;
		}
	}
	if (n > 1) {
		int a = 0, b = n - 1;
		double d = depths[b] - depths[a];
		double fp = (median[b][FP] - median[b][OFF] -
			     median[a][FP] + median[a][OFF]) / d;
		double sf = (median[b][SFRAME] - median[b][OFF] -
			     median[a][SFRAME] + median[a][OFF]) / d;

		printf("per frame, depth %d to %d: fp %.1f ns, sframe %.1f ns, sframe/fp %.2f\n",
		       depths[a], depths[b], fp, sf, fp > 0 ? sf / fp : 0);
	}
	return 0;
}
