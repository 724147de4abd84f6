// SPDX-License-Identifier: GPL-2.0
/*
 * The shared library of perf-oracle.sh, built with SFrame and registered
 * by the LD_AUDIT module: stops in it, and calls back into the program.
 */
#include "stops.h"

__attribute__((noinline)) int lib_leaf(int x)
{
	STOP();
	return x + 1;
}

__attribute__((noinline)) int lib_call(int (*cb)(int), int x)
{
	int r = cb(x) + lib_leaf(x);

	STOP();
	return r;
}
