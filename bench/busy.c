// SPDX-License-Identifier: GPL-2.0
/*
 * busy: one process of the system-wide benchmark (bench/bench.sh).
 *
 *	busy DEPTH SECONDS DIR
 *
 * Calls a stack of DEPTH + 1 distinct functions spread over the four
 * libraries of bench/spread.h, again and again for SECONDS, with a little
 * work at the bottom, and prints how many times it went down the stack:
 * its throughput.  It starts once DIR/go exists, after it made
 * DIR/ready-PID, so that all copies run over the same time, however long
 * each took to start.  bench/bench.sh builds it twice, with frame pointers
 * and with SFrame but no frame pointers, and runs many copies of both at
 * once, profiled system-wide and not.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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
	const struct timespec poll = { .tv_nsec = 10 * 1000 * 1000 };
	struct spread sp = { .leaf = leaf };
	char ready[PATH_MAX], go[PATH_MAX];
	unsigned long rounds = 0;
	double end;
	int depth, i;
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: busy DEPTH SECONDS DIR\n");
		return 2;
	}
	depth = atoi(argv[1]);
	if (depth < 0 || depth >= NR_SPREAD) {
		fprintf(stderr, "busy: DEPTH must be below %d\n", NR_SPREAD);
		return 2;
	}
	for (i = 0; i < NR_SPREAD; i++)
		sp.fn[i] = spread_order[i];

	snprintf(ready, sizeof(ready), "%s/ready-%d", argv[3], (int)getpid());
	snprintf(go, sizeof(go), "%s/go", argv[3]);
	f = fopen(ready, "w");
	if (!f) {
		perror(ready);
		return 1;
	}
	fclose(f);
	while (access(go, F_OK))
		nanosleep(&poll, NULL);

	end = now() + atof(argv[2]);
	do {
		for (i = 0; i < 16; i++)
			sp.fn[0](&sp, depth);
		rounds += 16;
	} while (now() < end);
	printf("%lu\n", rounds);
	return 0;
}
