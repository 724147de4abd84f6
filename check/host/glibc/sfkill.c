// SPDX-License-Identifier: GPL-2.0
/*
 * sfkill PROGRAM ARGS...: run PROGRAM under a seccomp filter that kills
 * the process (SIGSYS) at its first prctl(PR_ADD_SFRAME) or
 * prctl(PR_REMOVE_SFRAME), as a sandbox whose policy kills on unknown
 * prctl() options.  The filter is inherited across exec, so whether
 * PROGRAM survives tells whether its dynamic linker made such a call.
 * Exits 127 if the filter cannot be installed or PROGRAM not run.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../include/sframe-filter.h"

int main(int argc, char **argv)
{
	int err;

	if (argc < 2) {
		fprintf(stderr, "usage: sfkill PROGRAM ARGS...\n");
		return 127;
	}
	err = sframe_prctl_filter(SECCOMP_RET_KILL_PROCESS);
	if (err) {
		fprintf(stderr, "sfkill: seccomp: %s\n", strerror(-err));
		return 127;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
