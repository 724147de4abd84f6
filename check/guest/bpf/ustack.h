/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF programs of ustack.bpf.c tell ustack.c, through a ring
 * buffer: a record per event of the task under test, with the cookie of
 * the deferred user stack it asked for and the stack bpf_get_stack()
 * gave it there, and a record per deferred user stack delivered.
 */
#ifndef USTACK_H
#define USTACK_H

#define USTACK_MAX	64

enum ustack_kind {
	USTACK_REQUEST = 1,	/* an event: a request, and bpf_get_stack() */
	USTACK_DEFERRED,	/* a deferred user stack, delivered */
};

/* The programs that make requests */
enum ustack_source {
	SRC_KSYSCALL = 1,	/* kprobe on a system call */
	SRC_TRACEPOINT,		/* syscalls:sys_enter_* */
	SRC_UPROBE,
	SRC_UPROBE_SLEEPABLE,
	SRC_PAGE_FAULT,		/* perf_event program, page-fault samples */
	SRC_TIMER,		/* perf_event program, cpu-clock samples */
	SRC_DELIVERY,		/* the tp_btf program */
};

struct ustack_rec {
	__u32 kind;
	__u32 source;
	__u32 tgid;
	__s32 ret;		/* of the first request */
	__s32 ret_again;	/* of a second request, in the same event */
	__s32 nr;		/* frames in ips, or what bpf_get_stack() returned */
	__s32 stackid;		/* of bpf_get_stackid(), in the stack map */
	__u32 pad;
	__u64 cookie;
	__u64 cookie_again;	/* of the second request */
	__u64 ip;		/* the user IP of a page-fault sample */
	__u64 ips[USTACK_MAX];
};

#endif /* USTACK_H */
