/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stop points for perf-oracle.sh: STOP() writes to a page that nobody has
 * touched yet, so the write faults and perf's page-faults event takes a
 * sample exactly at that instruction.  Each thread has its own pages.
 */
#ifndef STOPS_H
#define STOPS_H

extern char *stop_region;
extern __thread unsigned long stop_next;

#define STOP_PAGE	4096UL
#define STOP()		(stop_region[stop_next++ * STOP_PAGE] = 1)

#endif
