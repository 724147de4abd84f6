// SPDX-License-Identifier: GPL-2.0
/*
 * stale-code FILE [ROUNDS] - does QEMU TCG run stale code after a device
 * writes new code into guest memory behind its back?
 *
 * TCG caches translated code per guest physical page and drops it when
 * a vCPU, or a device emulated inside QEMU, writes to the page.  A
 * vhost-user device such as virtiofsd writes guest memory from another
 * process, and TCG is not told.  This program makes that happen on one
 * page: it writes a function returning 1 into an executable anonymous
 * page and calls it (TCG translates it), then reads a function returning
 * 2 over it with O_DIRECT from a file in DIR, so that the file system's
 * device writes the page, and calls it again.  Repeated ROUNDS times
 * (default 200), alternating the two functions.
 *
 * Prints "fresh" and exits 0 when every call ran the code last written,
 * prints "stale N/ROUNDS" and exits 1 otherwise, exits 4 when FILE cannot
 * be read with O_DIRECT.  On real hardware and under KVM the answer is
 * "fresh" whatever the file system; see check/qemu-tcg/README.md.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

#if defined(__x86_64__)
/* mov $N, %eax; ret */
static const uint8_t code1[] = { 0xb8, 1, 0, 0, 0, 0xc3 };
static const uint8_t code2[] = { 0xb8, 2, 0, 0, 0, 0xc3 };
#elif defined(__aarch64__)
/* mov w0, #N; ret */
static const uint32_t code1[] = { 0x52800020, 0xd65f03c0 };
static const uint32_t code2[] = { 0x52800040, 0xd65f03c0 };
#else
#error "x86_64 or arm64 only"
#endif

static int run(uint8_t *page)
{
	int (*fn)(void) = (int (*)(void))page;

	__builtin___clear_cache((char *)page, (char *)page + PAGE);
	return fn();
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 200;
	uint8_t *page;
	int fd, i, stale = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE [ROUNDS]\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0) {
		printf("SKIP: %s: no O_DIRECT open\n", argv[1]);
		return 4;
	}
	page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (page == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	for (i = 0; i < rounds; i++) {
		/* A vCPU writes the page: TCG sees it. */
		memset(page, 0, PAGE);
		memcpy(page, code1, sizeof(code1));
		if (run(page) != 1) {
			printf("a CPU write was not seen: unexpected\n");
			return 2;
		}
		/* The file system's device writes the same page. */
		if (pread(fd, page, PAGE, 0) != PAGE) {
			if (i == 0) {
				printf("SKIP: %s: no O_DIRECT read\n", argv[1]);
				return 4;
			}
			perror("pread");
			return 2;
		}
		if (memcmp(page, code2, sizeof(code2))) {
			printf("%s does not start with the expected code\n",
			       argv[1]);
			return 2;
		}
		if (run(page) != 2)
			stale++;
	}
	if (stale) {
		printf("stale %d/%d\n", stale, rounds);
		return 1;
	}
	printf("fresh %d/%d\n", rounds, rounds);
	return 0;
}
