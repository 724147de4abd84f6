// SPDX-License-Identifier: GPL-2.0
/*
 * busy: one process of the system-wide benchmark (bench/bench.sh).
 *
 *	busy DEPTH SECONDS
 *
 * Calls a stack of DEPTH + 1 distinct functions spread over the four
 * libraries of bench/spread.h, again and again for SECONDS, with a little
 * work at the bottom, and prints how many times it went down the stack:
 * its throughput.  bench/bench.sh builds it twice, with frame pointers
 * and with SFrame but no frame pointers, and runs many copies of both at
 * once, profiled system-wide and not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spread.h"

static volatile unsigned long sink;

static int leaf(void)
{
	unsigned int i;

	for (i = 0; i < 2000; i++)
		sink += i;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct spread sp = { .leaf = leaf };
	unsigned long rounds = 0;
	double end;
	int depth, i;

	if (argc != 3) {
		fprintf(stderr, "usage: busy DEPTH SECONDS\n");
		return 2;
	}
	depth = atoi(argv[1]);
	if (depth < 0 || depth >= NR_SPREAD) {
		fprintf(stderr, "busy: DEPTH must be below %d\n", NR_SPREAD);
		return 2;
	}
	for (i = 0; i < NR_SPREAD; i++)
		sp.fn[i] = spread_order[i];

	end = now() + atof(argv[2]);
	do {
		for (i = 0; i < 16; i++)
			sp.fn[0](&sp, depth);
		rounds += 16;
	} while (now() < end);
	printf("%lu\n", rounds);
	return 0;
}
