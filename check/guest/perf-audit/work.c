// SPDX-License-Identifier: GPL-2.0
/* A library for perf-audit.sh: where the samples are taken. */
volatile unsigned long work_sink;

__attribute__((noinline)) void work_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		work_sink += i;
}

__attribute__((noinline)) void work_outer(unsigned long n)
{
	work_spin(n);
	work_sink++;
}
