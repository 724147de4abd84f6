/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A breakpoint that the emulator let pass.  QEMU's TCG, emulating x86,
 * saves RFLAGS with RF set when a hardware interrupt stops user code
 * (exception_is_fault() in its target/i386/tcg/seg_helper.c takes every
 * vector it does not list for a fault); the hardware saves the RF that
 * the code ran with, 0.  If the interrupt comes just as the code reaches
 * an instruction breakpoint, the IRET back sets RF and the breakpoint
 * lets that instruction pass: the breakpoint event counts nothing, and
 * there is no sample and no deferred callchain to read.
 * check/qemu-tcg/breakpoints.sh shows both (see check/qemu-tcg/README.md):
 * RF in the flags of every timer-interrupted context of a guest, in none
 * on the host, and breakpoints missed, about one in 40,000 calls made by
 * a new thread.
 *
 * On x86, a test that takes a chain with a breakpoint (callchain_open())
 * may take it again when, and only when, callchain_read() found no
 * deferred chain and the event counted no hit: then no code of the
 * kernel's unwinding ran, and nothing that the test checks was wrong.  It
 * says so, and gives up after BREAKPOINT_TAKES tries.  Elsewhere (arm64
 * has no RF, and its guests missed none) a miss is a failure.
 *
 * BREAKPOINT_DROP in the environment breaks a take on purpose, so that a
 * test can see both ways: "first" makes the first try miss (taken again),
 * "record" throws the deferred chain of every try away after its hit (no
 * deferred callchain: a failure, never taken again).
 */
#ifndef BREAKPOINT_MISS_H
#define BREAKPOINT_MISS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>

#include "callchain.h"

#define BREAKPOINT_TAKES	3

/* Whether @ev's breakpoint counted no hit.  Call it before closing @ev. */
static inline bool breakpoint_not_hit(const struct callchain_event *ev)
{
	uint64_t count;

	return read(ev->fd, &count, sizeof(count)) == sizeof(count) &&
	       !count;
}

/*
 * Whether callchain_read() gave @err for @ev because the emulator let
 * the breakpoint pass, and the chain may be taken again.
 */
static inline bool breakpoint_missed(const struct callchain_event *ev,
				     int err)
{
#if defined(__x86_64__)
	return err == -ENOENT && breakpoint_not_hit(ev);
#else
	return false;
#endif
}

static inline bool breakpoint_drop_is(const char *how)
{
	const char *drop = getenv("BREAKPOINT_DROP");

	return drop && !strcmp(drop, how);
}

/* Call before try @take hits: BREAKPOINT_DROP=first makes try 1 miss. */
static inline void breakpoint_drop_hit(const struct callchain_event *ev,
				       int take)
{
	if (take == 1 && breakpoint_drop_is("first"))
		ioctl(ev->fd, PERF_EVENT_IOC_DISABLE, 0);
}

/* Call after the hit: BREAKPOINT_DROP=record reads its chain away. */
static inline void breakpoint_drop_record(struct callchain_event *ev)
{
	struct callchain cc;

	if (breakpoint_drop_is("record"))
		callchain_next(ev->ring, ev->ring_size, &cc);
}

#endif /* BREAKPOINT_MISS_H */
