// SPDX-License-Identifier: GPL-2.0
/*
 * Call chains through the C library: a qsort() comparison function, a
 * thread function, an atexit() handler and a signal handler each stop at
 * a hardware breakpoint that takes a deferred user callchain, and the
 * chain is compared frame for frame with libgcc's DWARF unwinder
 * (_Unwind_Backtrace, linked statically: it reads .eh_frame, not SFrame)
 * run at the same place.  Every frame outside the program, up to the
 * outermost one (_start, or the clone3() of the thread), is in the C
 * library, so a complete chain needs the library's SFrame, registered by
 * the dynamic linker.
 *
 * Prints KTAP: one result per chain; with --report, each result is ok
 * and says how many frames matched (the run against a C library without
 * SFrame, for comparison).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <unwind.h>

#include "callchain.h"
#include "../../include/breakpoint-miss.h"

#define TRACE_MAX	128

struct trace {
	int nr;
	uint64_t ips[TRACE_MAX];
};

enum { QSORT, THREAD, SIGNAL, ATEXIT, NR_CHAINS };

static const char *const names[NR_CHAINS] = {
	"qsort", "thread", "signal", "atexit",
};

static bool report;
static int nr_done;

/*
 * The breakpoint: the top of every deferred chain taken here.  Its
 * return address, the second entry of the chain, is the one frame that
 * the kernel finds in a register on arm64 and on the stack on x86_64.
 */
static uint64_t volatile hit_return;

__attribute__((noipa)) void hit(void)
{
	hit_return = (uintptr_t)__builtin_return_address(0);
}

static _Unwind_Reason_Code one_frame(struct _Unwind_Context *ctx, void *data)
{
	struct trace *t = data;
	int before;

	uint64_t ip = _Unwind_GetIPInfo(ctx, &before);

	/* The outermost frame's caller is 0. */
	if (!ip || t->nr == TRACE_MAX)
		return _URC_END_OF_STACK;
	t->ips[t->nr++] = ip;
	return _URC_NO_REASON;
}

/* The oracle: [in collect(), in probe(), the caller of probe(), ...]. */
__attribute__((noipa)) static void collect(struct trace *t)
{
	t->nr = 0;
	_Unwind_Backtrace(one_frame, t);
	/* Not a tail call: collect() keeps its frame. */
	__asm__ volatile("" ::: "memory");
}

static bool in_libc(uint64_t ip)
{
	Dl_info info;

	return dladdr((void *)(uintptr_t)ip, &info) && info.dli_fname &&
	       strstr(info.dli_fname, "/libc.so");
}

extern char _start[];

/*
 * Did the oracle reach the outermost frame, rather than stop at code
 * without DWARF?  The main thread's chains end in the program's _start,
 * right after its call into the C library; a thread's end in the C
 * library, in the clone3() that started start_thread().
 */
static bool outermost(const struct trace *t, int which)
{
	uint64_t last = t->ips[t->nr - 1];

	if (which == THREAD)
		return t->nr >= 2 && in_libc(last) && in_libc(t->ips[t->nr - 2]);
	return last > (uintptr_t)_start && last - (uintptr_t)_start < 64;
}

/*
 * Called from the function whose chain is checked: take the oracle, then
 * the deferred chain at hit(), and compare them.  The deferred chain is
 * [hit, in probe(), the caller of probe(), ...]: from the caller on, it
 * must equal the oracle, and the caller's frame is also the return
 * address that the compiler gives.  A breakpoint that the emulator let
 * pass is taken again (breakpoint-miss.h).
 */
__attribute__((noipa)) static int probe(struct callchain_event *ev, int which)
{
	uint64_t caller = (uintptr_t)__builtin_return_address(0);
	struct callchain cc;
	struct trace t;
	uint64_t want[TRACE_MAX + 2];
	int err, i, n, from, take, matched = 0, libc = 0;
	bool missed;

	collect(&t);
	for (take = 1; ; take++) {
		breakpoint_drop_hit(ev, take);
		hit();
		breakpoint_drop_record(ev);
		err = callchain_read(ev, &cc);
		if (!breakpoint_missed(ev, err) || take == BREAKPOINT_TAKES)
			break;
		/* Not the kernel's doing: breakpoint-miss.h */
		printf("# %s: the breakpoint at hit() did not fire, taken "
		       "again\n", names[which]);
		callchain_close(ev);
		err = callchain_open(ev, (void *)hit);
		if (err) {
			printf("not ok %d %s # cannot open the breakpoint "
			       "event: %s\n", which + 1, names[which],
			       strerror(-err));
			return 1;
		}
	}
	missed = err == -ENOENT && breakpoint_not_hit(ev);
	callchain_close(ev);
	if (missed) {
		printf("not ok %d %s # the breakpoint at hit() did not fire, "
		       "%d %s\n", which + 1, names[which], take,
		       take > 1 ? "tries" : "try");
		return 1;
	}
	if (err) {
		printf("not ok %d %s # no deferred callchain: %s\n", which + 1,
		       names[which], strerror(-err));
		return 1;
	}
	/*
	 * The oracle's frames from the caller of probe() on, after those of
	 * collect() and probe(), make the chain that the deferred one must
	 * be from its third entry on.
	 */
	for (from = 0; from < t.nr && t.ips[from] != caller; from++)
		;
	n = t.nr - from;
	want[0] = (uintptr_t)hit;
	want[1] = hit_return;
	memcpy(&want[2], &t.ips[from], n * sizeof(want[0]));
	for (i = 0; i < n && i + 2 < (int)cc.nr; i++) {
		if (cc.ips[i + 2] != want[i + 2])
			break;
		matched++;
		libc += in_libc(cc.ips[i + 2]);
	}
	if (report) {
		printf("ok %d %s # %d of %d frames, %d in libc\n", which + 1,
		       names[which], matched, n, libc);
		return 0;
	}
	if (!t.nr || !outermost(&t, which)) {
		printf("not ok %d %s # the DWARF unwinder stopped short of the "
		       "outermost frame\n", which + 1, names[which]);
		return 1;
	}
	if (n > 0 && cc.nr >= 3 && cc.ips[0] == want[0] &&
	    cc.ips[1] == want[1] && matched == n &&
	    cc.nr == (uint64_t)n + 2 && libc > 0) {
		printf("ok %d %s # %d frames, %d in libc\n", which + 1,
		       names[which], n, libc);
		return 0;
	}
	printf("# %s: %d of %d frames match, %d in libc; deferred chain "
	       "against the DWARF unwinder's:\n", names[which], matched, n, libc);
	fflush(stdout);
	callchain_print(&cc, want, n + 2);
	printf("not ok %d %s\n", which + 1, names[which]);
	return 1;
}

static int failed;

/* Sample hit() in this thread, for the chain @which. */
static int start(struct callchain_event *ev, int which)
{
	int err = callchain_open(ev, (void *)hit);

	if (err)
		printf("not ok %d %s # cannot open the breakpoint event: %s\n",
		       which + 1, names[which], strerror(-err));
	return err;
}

/* qsort(): the comparison function is called from the library. */
static struct callchain_event qsort_ev;
static int compared;

__attribute__((noipa)) static int compare(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (!compared++)
		failed |= probe(&qsort_ev, QSORT);
	return (x > y) - (x < y);
}

__attribute__((noipa)) static void sort_some(void)
{
	int v[64];

	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	if (start(&qsort_ev, QSORT))
		failed = 1;
	else
		qsort(v, 64, sizeof(v[0]), compare);
}

/* A thread: its function is called by start_thread(). */
__attribute__((noipa)) static void *worker(void *arg)
{
	struct callchain_event ev;

	if (start(&ev, THREAD))
		return (void *)1L;
	return (void *)(long)probe(&ev, THREAD);
}

/*
 * A signal handler: the chain goes through the kernel's signal frame.
 * probe() is not async-signal-safe (stdio, dladdr(), the DWARF unwinder
 * takes the loader's lock): the signal comes from raise(), synchronously,
 * while main() holds no lock.
 */
static struct callchain_event signal_ev;

__attribute__((noipa)) static void handler(int sig)
{
	failed |= probe(&signal_ev, SIGNAL);
}

/* An atexit() handler, called by exit() after main() returned. */
static struct callchain_event atexit_ev;

__attribute__((noipa)) static void at_exit(void)
{
	int rc = probe(&atexit_ev, ATEXIT);

	fflush(stdout);
	_exit(failed | rc);
}

int main(int argc, char **argv)
{
	pthread_t thread;
	void *ret;

	report = argc > 1 && !strcmp(argv[1], "--report");
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%d\n", NR_CHAINS);

	sort_some();

	if (pthread_create(&thread, NULL, worker, NULL) ||
	    pthread_join(thread, &ret)) {
		printf("not ok %d %s # no thread\n", THREAD + 1, names[THREAD]);
		failed = 1;
	} else {
		failed |= ret != NULL;
	}

	if (signal(SIGUSR1, handler) == SIG_ERR) {
		printf("not ok %d %s # no handler\n", SIGNAL + 1, names[SIGNAL]);
		failed = 1;
	} else if (start(&signal_ev, SIGNAL)) {
		failed = 1;
	} else if (raise(SIGUSR1)) {
		printf("not ok %d %s # raise() failed\n", SIGNAL + 1,
		       names[SIGNAL]);
		failed = 1;
	}

	if (start(&atexit_ev, ATEXIT))
		return 1;
	if (atexit(at_exit)) {
		printf("not ok %d %s # atexit() failed\n", ATEXIT + 1,
		       names[ATEXIT]);
		return 1;
	}
	return failed;
}
