// SPDX-License-Identifier: GPL-2.0
/*
 * unwind-cost: what a deferred user stack unwind costs per frame, with
 * SFrame (registered by the process, or tables attached to the files) and
 * with frame pointers, on the same stacks of the same binary.
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
 *	fp-cold		as fp, with the program's registration added and
 *			removed again before each touch: what the cold
 *			batches' changes of the registry cost a walk that
 *			has nothing to look up
 *	sframe-cold	as sframe, with the program's registration removed
 *			and added again before each touch: each change of
 *			the registry invalidates the cache, so every lookup
 *			of every walk misses it (cold)
 *	attached	the registrations removed, and the same sections
 *			attached to the files instead (PR_ATTACH_SFRAME):
 *			the kernel uses its own copy of each table
 *	attached-cold	as attached, with the registry changed before each
 *			touch as in fp-cold
 *
 * The answers of attached tables are never cached per task: attached and
 * attached-cold differ by what fp-cold adds to fp.  The tables are
 * attached for those two modes only, so that fp stays the frame-pointer
 * walk, and are detached at exit.  On a kernel without PR_ATTACH_SFRAME,
 * or without CAP_PERFMON, the attached modes are left out.
 *
 * The unwind costs per fault are each mode less off (less off-cold for
 * the cold modes); their growth with DEPTH is the cost per frame.  Every
 * deferred callchain of a batch is read back and must hold at least DEPTH
 * frames: a walk that stopped early would look cheap.
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
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdbool.h>
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

enum { OFF, FP, SFRAME, OFF_COLD, FP_COLD, SFRAME_COLD, ATTACHED,
       ATTACHED_COLD, NR_MODES };
static const char *const mode_name[NR_MODES] = {
	"off", "fp", "sframe", "off-cold", "fp-cold", "sframe-cold",
	"attached", "attached-cold"
};

static bool is_cold(int mode)
{
	return mode == OFF_COLD || mode == FP_COLD || mode == SFRAME_COLD ||
	       mode == ATTACHED_COLD;
}

static bool is_attached(int mode)
{
	return mode == ATTACHED || mode == ATTACHED_COLD;
}

/* Are the sections registered while the batch runs? */
static bool is_registered(int mode)
{
	return mode == OFF || mode == SFRAME || mode == OFF_COLD ||
	       mode == SFRAME_COLD;
}

static bool is_off(int mode)
{
	return mode == OFF || mode == OFF_COLD;
}

/* The program's registration first, then its libraries'. */
static struct prctl_sframe regs[1 + NR_SPREAD_LIBS];
static int nr_regs;
/* The same sections, to attach to the objects' files. */
static struct sframe_attach attach_args[1 + NR_SPREAD_LIBS];
static bool attached, can_attach;
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

struct object_file {
	const char *name;	/* as for struct sframe_object */
	char path[PATH_MAX];
	uint64_t bias;
	bool found;
};

static int object_file_phdrs(struct dl_phdr_info *info, size_t size,
			     void *data)
{
	struct object_file *obj = data;
	bool self = !info->dlpi_name[0];

	if (obj->name ? !strstr(info->dlpi_name, obj->name) : !self)
		return 0;
	snprintf(obj->path, sizeof(obj->path), "%s",
		 self ? "/proc/self/exe" : info->dlpi_name);
	obj->bias = info->dlpi_addr;
	obj->found = true;
	return 1;
}

/*
 * The argument of PR_ATTACH_SFRAME that attaches the section of
 * registration @i to the file of the object @name: the section as loaded
 * is the table, and its link-time address is where it would be without
 * the load bias.
 */
static void find_file(int i, const char *name)
{
	struct object_file obj = { .name = name };
	int fd;

	dl_iterate_phdr(object_file_phdrs, &obj);
	if (!obj.found) {
		fprintf(stderr, "%s: not loaded\n", name ? name : "the program");
		exit(1);
	}
	fd = open(obj.path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(obj.path);
	attach_args[i] = (struct sframe_attach){
		.fd = fd,
		.format = SFRAME_FORMAT_SFRAME,
		.table_addr = regs[i].sframe_addr,
		.table_size = regs[i].sframe_size,
		.table_vaddr = regs[i].sframe_addr - obj.bias,
	};
}

/* Detach the table of registration @i's file: 0, or an errno. */
static int detach_one(int i)
{
	/* A detach names the file and the format, nothing else. */
	struct sframe_attach arg = {
		.fd = attach_args[i].fd,
		.format = attach_args[i].format,
	};

	return prctl(PR_DETACH_SFRAME, &arg, sizeof(arg), 0, 0) ? errno : 0;
}

/* Attach the sections to the files, or detach them. */
static void set_attached(bool on)
{
	int i;

	if (attached == on)
		return;
	/* Even half attached, the exit handler detaches what it can. */
	attached = on;
	for (i = 0; i < nr_regs; i++) {
		if (on ? prctl(PR_ATTACH_SFRAME, &attach_args[i],
			       sizeof(attach_args[i]), 0, 0) : detach_one(i))
			die(on ? "PR_ATTACH_SFRAME" : "PR_DETACH_SFRAME");
	}
}

/* An attached table is the whole system's: never leave one behind. */
static void detach_at_exit(void)
{
	int i;

	if (!attached)
		return;
	attached = false;
	for (i = 0; i < nr_regs; i++)
		detach_one(i);
}

/*
 * Can the program attach tables?  Not on a kernel without
 * PR_ATTACH_SFRAME (EINVAL), nor without CAP_PERFMON (EPERM).  Tables
 * that a run killed before its exit handler left are detached first.
 */
static bool probe_attach(void)
{
	int i, err;

	for (i = 0; i < nr_regs; i++) {
		err = detach_one(i);
		if (err == EINVAL || err == EPERM)
			return false;
		if (err && err != ENOENT)
			die("PR_DETACH_SFRAME");
	}
	atexit(detach_at_exit);
	return true;
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
	find_file(0, NULL);
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
		find_file(nr_regs - 1, name);
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
	bool cold = is_cold(mode);
	volatile char *p;
	double t;
	int i;

	p = mmap(NULL, BATCH * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	madvise((void *)p, BATCH * PAGE, MADV_NOHUGEPAGE);
	if (!is_off(mode))
		ioctl(perf_fd, PERF_EVENT_IOC_ENABLE, 0);
	t = now_ns();
	for (i = 0; i < BATCH; i++) {
		/* Leave the registry as it was: attached has none. */
		if (cold) {
			set_one(&regs[0], !is_registered(mode));
			set_one(&regs[0], is_registered(mode));
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
	double t[NR_MODES][ROUNDS] = {};
	int r, m;

	for (r = 0; r < ROUNDS; r++) {
		for (m = 0; m < NR_MODES; m++) {
			if (is_attached(m) && !can_attach)
				continue;
			set_sframe(is_registered(m));
			set_attached(is_attached(m));
			nr_chains = 0;
			t[m][r] = batch(m);
			if (!is_off(m) && nr_chains < BATCH) {
				fprintf(stderr, "%s: %lu deferred callchains for %d faults\n",
					mode_name[m], nr_chains, BATCH);
				exit(1);
			}
		}
	}
	set_attached(false);
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
	can_attach = probe_attach();
	if (!can_attach)
		fprintf(stderr, "PR_ATTACH_SFRAME refused: no attached modes\n");
	open_event();

	printf("%-6s %-11s %12s %12s %10s\n", "depth", "mode", "ns/fault",
	       "unwind ns", "min chain");
	run(spreading, 0, 0);	/* warm-up */
	for (i = 0; i < n; i++) {
		min_frames = 0;
		nr_chains = 0;
		run(spreading, depths[i], i);
		for (m = 0; m < NR_MODES; m++)
			if (can_attach || !is_attached(m))
				printf("%-6d %-11s %12.0f %12.0f\n", depths[i],
			       mode_name[m], median[i][m], median[i][m] -
			       median[i][is_cold(m) ? OFF_COLD : OFF]);
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
		double fpc = slope(depths, n, FP_COLD, OFF_COLD);
		double at = slope(depths, n, ATTACHED, OFF);
		double atc = slope(depths, n, ATTACHED_COLD, OFF_COLD);

		printf("per frame, depth %d to %d: fp %.1f ns, sframe %.1f ns, sframe/fp %.2f, sframe-cold %.1f ns, sframe-cold/fp %.2f\n",
		       depths[0], depths[n - 1], fp, sf, fp > 0 ? sf / fp : 0,
		       cold, fp > 0 ? cold / fp : 0);
		printf("fp-cold per frame, depth %d to %d: %.1f ns\n",
		       depths[0], depths[n - 1], fpc);
		if (can_attach)
			printf("attached per frame, depth %d to %d: attached %.1f ns, attached/fp %.2f, attached-cold %.1f ns, attached-cold/fp %.2f\n",
			       depths[0], depths[n - 1], at,
			       fp > 0 ? at / fp : 0, atc,
			       fp > 0 ? atc / fp : 0);
	}
	return 0;
}
