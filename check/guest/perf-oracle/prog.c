// SPDX-License-Identifier: GPL-2.0
/*
 * The program of perf-oracle.sh: stop points (stops.h) in frames of
 * different shapes (leaf, variable-size frame, recursion, big frames
 * whose first touch faults on the stack, calls through the SFrame
 * library and back), run by the main thread or by N threads:
 *
 *	prog [NTHREADS]
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "stops.h"

#define PAGES_PER_THREAD	1024UL

char *stop_region;
__thread unsigned long stop_next;

int lib_call(int (*cb)(int), int x);

static volatile int sink;

__attribute__((noinline)) static int leaf(int x)
{
	STOP();
	return x * 3;
}

/* A variable-size frame: the compiler addresses it from a frame register. */
__attribute__((noinline)) static int vla(int n)
{
	volatile char buf[n];

	buf[0] = (char)n;
	STOP();
	buf[n - 1] = leaf(n);
	return buf[0] + buf[n - 1];
}

__attribute__((noinline)) static int recurse(int depth)
{
	int r;

	if (!depth)
		return leaf(depth);
	r = recurse(depth - 1);
	STOP();
	return r + 1;
}

/*
 * 1.5 KiB of locals per level: touching them grows the stack, page by
 * page, at stores in the frames of different levels.
 */
__attribute__((noinline)) static int big(int depth)
{
	volatile char buf[1536];

	for (unsigned int i = 0; i < sizeof(buf); i += 512)
		buf[i] = (char)i;
	if (depth)
		buf[1] = big(depth - 1);
	return buf[1];
}

__attribute__((noinline)) static int callback(int x)
{
	STOP();
	return vla(x + 16);
}

__attribute__((noinline)) static void run(void)
{
	for (int i = 0; i < 4; i++) {
		sink += leaf(i);
		sink += vla(64 + i * 100);
		sink += recurse(8 + i);
		sink += lib_call(callback, i);
	}
	sink += big(12);
}

static unsigned long slots;

__attribute__((noinline)) static void *worker(void *arg)
{
	stop_next = __atomic_fetch_add(&slots, 1, __ATOMIC_RELAXED) *
		    PAGES_PER_THREAD;
	run();
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	pthread_t t[8];

	if (n > 8)
		return 2;
	/* At a fixed place: the same fault addresses whatever else is mapped. */
	stop_region = mmap((void *)0x200000000000UL,
			   9 * PAGES_PER_THREAD * STOP_PAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
			   MAP_FIXED_NOREPLACE, -1, 0);
	if (stop_region == MAP_FAILED)
		return 1;
	/* One fault per page, not one per huge page. */
	madvise(stop_region, 9 * PAGES_PER_THREAD * STOP_PAGE, MADV_NOHUGEPAGE);
	if (!n) {
		worker(NULL);
		return 0;
	}
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
