// SPDX-License-Identifier: GPL-2.0
/*
 * misses N: N times, a new thread opens an execute breakpoint event on
 * hit(), calls hit() once and reads how many hits the event counted.
 * Prints how many calls the breakpoint let pass.
 */
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noipa)) static void hit(void)
{
	sink++;
}

/* 0 if the breakpoint counted the call, 1 if not, 2 on an error. */
static void *one_call(void *arg)
{
	struct perf_event_attr attr;
	uint64_t count = 0;
	long ret = 2;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_type = HW_BREAKPOINT_X;
	attr.bp_addr = (unsigned long)hit;
	attr.bp_len = sizeof(long);
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return (void *)ret;
	if (!ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		hit();
		if (!ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) &&
		    read(fd, &count, sizeof(count)) == sizeof(count))
			ret = count != 1;
	}
	close(fd);
	return (void *)ret;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000, missed = 0;

	for (long i = 0; i < n; i++) {
		pthread_t thread;
		void *ret;

		int err = pthread_create(&thread, NULL, one_call, NULL);

		if (!err)
			err = pthread_join(thread, &ret);
		if (err) {
			fprintf(stderr, "misses: %s\n", strerror(err));
			return 1;
		}
		if ((long)ret == 2) {
			fprintf(stderr, "misses: cannot use a breakpoint event\n");
			return 1;
		}
		missed += (long)ret;
	}
	printf("calls: %ld, missed by the breakpoint: %ld\n", n, missed);
	return 0;
}
