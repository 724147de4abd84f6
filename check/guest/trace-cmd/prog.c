// SPDX-License-Identifier: GPL-2.0
/*
 * A call chain for trace-cmd: main -> tc_outer -> tc_mid -> tc_leaf, which
 * calls getppid() from a known address (the selftests' syscall_site.h),
 * five times.  Prints the user stack each call must give, innermost
 * first, from the frame that enters the kernel to the one in main(), as
 * offsets in this program's file (what ftrace/user_unwind_stack records),
 * and its pid:
 *
 *   want OFFSET OFFSET OFFSET OFFSET
 *   pid PID
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscall_site.h"

#define noipa	__attribute__((noipa))
#define KEEP()	asm volatile("" ::: "memory")
#define RA()	((uint64_t)(uintptr_t)__builtin_return_address(0))

static uint64_t want[4], probe;

noipa void tc_leaf(void)
{
	want[1] = RA();
	syscall_site(SYS_getppid, 0, 0, 0, &probe, &want[0]);
}

noipa void tc_mid(void)
{
	want[2] = RA();
	tc_leaf();
	KEEP();
}

noipa void tc_outer(void)
{
	want[3] = RA();
	tc_mid();
	KEEP();
}

/* The offset in its file of an address of this program: -1 if none */
static uint64_t file_offset(uint64_t addr)
{
	uint64_t start, end, pgoff, off = -1;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64,
			   &start, &end, &pgoff) == 3 &&
		    start <= addr && addr < end) {
			off = addr - start + pgoff;
			break;
		}
	}
	if (f)
		fclose(f);
	return off;
}

/* Not a constant: one call site in main(), not five unrolled */
static volatile int rounds = 5;

int main(void)
{
	for (int i = 0; i < rounds; i++)
		tc_outer();
	printf("want");
	for (int i = 0; i < 4; i++)
		printf(" %#" PRIx64, file_offset(want[i]));
	printf("\npid %d\n", getpid());
	return 0;
}
