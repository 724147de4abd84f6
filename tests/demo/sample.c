// SPDX-License-Identifier: GPL-2.0
/*
 * A small CPU-bound program with a known call structure for the demo:
 * main -> run -> stage_N -> work -> mix, about 2 seconds of work under
 * QEMU TCG.  Every frame of a sample should lead back to main.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

static unsigned long __attribute__((noinline)) mix(unsigned long x)
{
	for (int i = 0; i < 64; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

static unsigned long __attribute__((noinline)) work(unsigned long seed, int n)
{
	unsigned long x = seed;

	for (int i = 0; i < n; i++)
		x ^= mix(x + i);
	return x;
}

static unsigned long __attribute__((noinline)) stage_a(int n)
{
	return work(1, n) + 1;
}

static unsigned long __attribute__((noinline)) stage_b(int n)
{
	return stage_a(n / 2) + work(2, n / 2);
}

static unsigned long __attribute__((noinline)) stage_c(int n)
{
	return stage_b(n / 2) + work(3, n / 2);
}

static void __attribute__((noinline)) run(int rounds, int n)
{
	for (int r = 0; r < rounds; r++)
		sink += stage_c(n);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;

	run(rounds, 2000);
	printf("%lu\n", sink);
	return 0;
}
