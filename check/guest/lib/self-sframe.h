/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The program's own .sframe section and text, as a dynamic linker would
 * give them to PR_ADD_SFRAME: for the guest tests and the benchmarks that
 * register them, built against the series' uapi headers and with the
 * selftests' directory (tools/testing/selftests/sframe of the tree) on
 * the include path, for sframe_object.h.
 */
#ifndef SELF_SFRAME_H
#define SELF_SFRAME_H

#include <string.h>
#include <linux/sframe.h>

#include "sframe_object.h"

/*
 * Fill @arg with the program's PT_GNU_SFRAME segment and its executable
 * PT_LOAD segment.  Returns 0, or -1 if the program has either not.
 */
static inline int self_sframe(struct prctl_sframe *arg)
{
	struct sframe_object prog = { .name = NULL };

	memset(arg, 0, sizeof(*arg));
	if (!sframe_object_find(&prog))
		return -1;
	arg->sframe_addr = prog.sframe;
	arg->sframe_size = prog.sframe_size;
	arg->text_addr = prog.text;
	arg->text_size = prog.text_size;
	return 0;
}

#endif /* SELF_SFRAME_H */
