// SPDX-License-Identifier: GPL-2.0
/* The program for perf-audit.sh: main -> run -> the library, for a while. */
#include <stdlib.h>
#include <time.h>

void work_outer(unsigned long n);

static volatile unsigned long run_sink;

__attribute__((noinline)) static void run(unsigned long n)
{
	work_outer(n);
	run_sink++;
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 3);

	while (time(NULL) < end)
		run(100000);
	return 0;
}
