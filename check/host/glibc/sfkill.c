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
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#define PR_ADD_SFRAME		82
#define PR_REMOVE_SFRAME	83

int main(int argc, char **argv)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 6),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 4),
		/* The low word of the option (little-endian) */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_ADD_SFRAME, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_REMOVE_SFRAME, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(insns) / sizeof(insns[0]),
		.filter = insns,
	};

	if (argc < 2) {
		fprintf(stderr, "usage: sfkill PROGRAM ARGS...\n");
		return 127;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		perror("sfkill: seccomp");
		return 127;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
