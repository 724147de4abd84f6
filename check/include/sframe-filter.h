/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A seccomp filter on the SFrame prctl() options, as a sandbox whose
 * policy does not know them installs: the tests of the dynamic linker's
 * registration (check/host/glibc/sfkill.c, check/guest/glibc/registrar.c)
 * use it to see whether ld.so made such a call.
 */
#ifndef SFRAME_FILTER_H
#define SFRAME_FILTER_H

#include <errno.h>
#include <stddef.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#ifndef PR_ADD_SFRAME
#define PR_ADD_SFRAME		82
#define PR_REMOVE_SFRAME	83
#endif

#if defined(__x86_64__)
#define SFRAME_FILTER_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SFRAME_FILTER_ARCH	AUDIT_ARCH_AARCH64
#endif

/*
 * Make prctl(PR_ADD_SFRAME) and prctl(PR_REMOVE_SFRAME) of this thread
 * and of the children and programs it starts end in @action (a
 * SECCOMP_RET_* value, with its data); other calls are allowed.  A filter
 * cannot be removed.  Returns 0 or -errno.
 */
static inline int sframe_prctl_filter(unsigned int action)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SFRAME_FILTER_ARCH, 0, 6),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 4),
		/* The low word of the option, on these little-endian arches */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_ADD_SFRAME, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_REMOVE_SFRAME, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(insns) / sizeof(insns[0]),
		.filter = insns,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) ?
	       -errno : 0;
}

#endif /* SFRAME_FILTER_H */
