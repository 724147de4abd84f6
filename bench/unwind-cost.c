// SPDX-License-Identifier: GPL-2.0
/*
 * unwind-cost: what a deferred user stack unwind costs per frame, with
 * SFrame and with frame pointers, on the same stacks of the same binary.
 *
 * The program and its libraries are built with frame pointers and with
 * SFrame.  It opens a perf event on itself that samples every page fault
 * with a deferred user callchain (what "perf record --call-graph
 * fp,defer" asks for), builds a stack DEPTH frames deep, and there times
 * batches of first touches of fresh pages: each touch faults, each fault
 * is a sample, and each return to user space after it unwinds the whole
 * stack.  The stack is either a recursion, where every frame has the same
 * return address, or with -s a chain of distinct functions spread over
 * four shared objects (spread.h).  Kinds of batch, interleaved so that
 * drift hits them alike:
 *
 *	off		the event disabled: the fault alone
 *	fp		the SFrame registrations of the program and its
 *			libraries removed (PR_REMOVE_SFRAME): the kernel
 *			walks the frame pointers
 *	sframe		the registrations back (PR_ADD_SFRAME): the kernel
 *			uses SFrame; after the first fault of a batch, the
 *			per-task lookup cache holds the stack (warm)
 *	off-cold	as off, with the program's registration removed and
 *			added again before each touch
 *	sframe-cold	as sframe, with the same: each change of the
 *			registry invalidates the cache, so every lookup
 *			of every walk misses it (cold)
 *
 * The unwind costs fp - off, sframe - off and sframe-cold - off-cold per
 * fault; their growth with DEPTH is the cost per frame.  Every deferred
 * callchain of a batch is read back and must hold at least DEPTH frames:
 * a walk that stopped early would look cheap.
 *
 *	unwind-cost [-s] [-H] [DEPTH...]  (default 8 32 128; with -s 16 64 127)
 *
 * -H handles a signal first, as most programs do: the kernel's walks
 * then compare every frame that SFrame does not describe with the
 * handler's restorer (kernel/unwind/user.c).
 *
 * Prints one line per depth and mode: median ns per fault and the
 * unwind's share, then the per-frame slopes.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
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

#include "../check/guest/lib/self-sframe.h"
#include "callchain.h"
#include "spread.h"

#define PAGE		4096UL
#define BATCH		200		/* faults per timed batch */
#define ROUNDS		15		/* batches per mode and depth */
#define RING_PAGES	512		/* 2 MiB of ring buffer */
#define MAX_DEPTHS	8

enum { OFF, FP, SFRAME, OFF_COLD, SFRAME_COLD, NR_MODES };
static const char *const mode_name[NR_MODES] = {
	"off", "fp", "sframe", "off-cold", "sframe-cold"
};

/* The program's registration first, then its libraries'. */
static struct prctl_sframe regs[1 + NR_SPREAD_LIBS];
static int nr_regs;
static struct spread spread;
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

static void set_one(struct prctl_sframe *arg, int on)
{
	if (prctl(on ? PR_ADD_SFRAME : PR_REMOVE_SFRAME, arg, sizeof(*arg),
		  0, 0) && errno != EEXIST && errno != ENOENT)
		die(on ? "PR_ADD_SFRAME" : "PR_REMOVE_SFRAME");
}

static void set_sframe(int on)
{
	int i;

	for (i = 0; i < nr_regs; i++)
		set_one(&regs[i], on);
}

/* The registrations of the program and of the spread libraries. */
static void find_sframe(void)
{
	struct sframe_object obj;
	char name[32];
	int i;

	if (self_sframe(&regs[0])) {
		fprintf(stderr, "no PT_GNU_SFRAME: build with -Wa,--gsframe\n");
		exit(1);
	}
	nr_regs = 1;
	for (i = 0; i < NR_SPREAD_LIBS; i++) {
		snprintf(name, sizeof(name), "/libspread%d.so", i);
		obj.name = name;
		if (!sframe_object_find(&obj)) {
			fprintf(stderr, "libspread%d.so: no .sframe\n", i);
			exit(1);
		}
		regs[nr_regs++] = (struct prctl_sframe){
			.sframe_addr = obj.sframe,
			.sframe_size = obj.sframe_size,
			.text_addr = obj.text,
			.text_size = obj.text_size,
		};
	}
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

/*
 * ns per fault of one batch of first touches, with the event on or off;
 * in the cold modes, the registry changes before each touch.
 */
static __attribute__((__noinline__)) double batch(int mode)
{
	int cold = mode == OFF_COLD || mode == SFRAME_COLD;
	volatile char *p;
	double t;
	int i;

	p = mmap(NULL, BATCH * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	madvise((void *)p, BATCH * PAGE, MADV_NOHUGEPAGE);
	if (mode != OFF && mode != OFF_COLD)
		ioctl(perf_fd, PERF_EVENT_IOC_ENABLE, 0);
	t = now_ns();
	for (i = 0; i < BATCH; i++) {
		if (cold) {
			set_one(&regs[0], 0);
			set_one(&regs[0], 1);
		}
		p[i * PAGE] = 1;
	}
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
static int cur_slot;

/* At the bottom of the stack under test: the batches of every mode. */
static __attribute__((__noinline__)) int measure(void)
{
	double t[NR_MODES][ROUNDS];
	int r, m;

	for (r = 0; r < ROUNDS; r++) {
		for (m = 0; m < NR_MODES; m++) {
			set_sframe(m != FP);
			nr_chains = 0;
			t[m][r] = batch(m);
			if (m != OFF && m != OFF_COLD && nr_chains < BATCH) {
				fprintf(stderr, "%s: %lu deferred callchains for %d faults\n",
					mode_name[m], nr_chains, BATCH);
				exit(1);
			}
		}
	}
	for (m = 0; m < NR_MODES; m++) {
		qsort(t[m], ROUNDS, sizeof(double), cmp_double);
		median[cur_slot][m] = t[m][ROUNDS / 2];
	}
	return 0;
}

static void on_signal(int sig)
{
}

/*
 * -H: handle a signal, as most programs do, so that the kernel's walks
 * have a restorer to compare each frame that SFrame does not describe
 * with.  Without a handler, they have none.
 */
static void handle_signal(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	if (sigaction(SIGUSR2, &sa, NULL)) {
		perror("sigaction");
		exit(1);
	}
}

/* The recursion: DEPTH frames of this, then the batches. */
static __attribute__((__noinline__)) void descend(int depth)
{
	if (depth > 0) {
		descend(depth - 1);
		sink++;		/* no tail call: a real frame */
		return;
	}
	measure();
}

/* DEPTH frames of the spread stack for @slot, then the batches. */
static void run(int spreading, int depth, int slot)
{
	cur_slot = slot;
	if (spreading)
		sink += spread.fn[0](&spread, depth);
	else
		descend(depth);
}

/* Per-frame cost of @mode over @base, from the first depth to the last. */
static double slope(const int *depths, int n, int mode, int base)
{
	return (median[n - 1][mode] - median[n - 1][base] -
		median[0][mode] + median[0][base]) /
	       (depths[n - 1] - depths[0]);
}

int main(int argc, char **argv)
{
	int depths[MAX_DEPTHS] = { 8, 32, 128 };
	int n = 3, i, m, spreading = 0, arg = 1;

	for (; arg < argc && argv[arg][0] == '-'; arg++) {
		if (!strcmp(argv[arg], "-s")) {
			spreading = 1;
			depths[0] = 16;
			depths[1] = 64;
			depths[2] = NR_SPREAD - 1;
		} else if (!strcmp(argv[arg], "-H")) {
			handle_signal();
		} else {
			fprintf(stderr, "usage: unwind-cost [-s] [-H] [DEPTH...]\n");
			return 1;
		}
	}
	if (argc > arg) {
		n = argc - arg < MAX_DEPTHS ? argc - arg : MAX_DEPTHS;
		for (i = 0; i < n; i++)
			depths[i] = atoi(argv[arg + i]);
	}
	for (i = 0; spreading && i < n; i++) {
		if (depths[i] < 0 || depths[i] >= NR_SPREAD) {
			fprintf(stderr, "-s: depths from 0 to %d\n", NR_SPREAD - 1);
			return 1;
		}
	}
	memcpy(spread.fn, spread_order, sizeof(spread.fn));
	spread.leaf = measure;
	find_sframe();
	open_event();

	printf("%-6s %-11s %12s %12s %10s\n", "depth", "mode", "ns/fault",
	       "unwind ns", "min chain");
	run(spreading, 0, 0);	/* warm-up */
	for (i = 0; i < n; i++) {
		min_frames = 0;
		nr_chains = 0;
		run(spreading, depths[i], i);
		for (m = 0; m < NR_MODES; m++)
			printf("%-6d %-11s %12.0f %12.0f\n", depths[i],
			       mode_name[m], median[i][m], median[i][m] -
			       median[i][m >= OFF_COLD ? OFF_COLD : OFF]);
		printf("%-6d %-11s %36lu\n", depths[i], "chains", min_frames);
		if (min_frames < (unsigned long)depths[i]) {
			fprintf(stderr, "a deferred chain at depth %d has only %lu frames\n",
				depths[i], min_frames);
			return 1;
		}
	}
	if (n > 1) {
		double fp = slope(depths, n, FP, OFF);
		double sf = slope(depths, n, SFRAME, OFF);
		double cold = slope(depths, n, SFRAME_COLD, OFF_COLD);

		printf("per frame, depth %d to %d: fp %.1f ns, sframe %.1f ns, sframe/fp %.2f, sframe-cold %.1f ns, sframe-cold/fp %.2f\n",
		       depths[0], depths[n - 1], fp, sf, fp > 0 ? sf / fp : 0,
		       cold, fp > 0 ? cold / fp : 0);
	}
	return 0;
}
