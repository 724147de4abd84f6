// SPDX-License-Identifier: GPL-2.0
/*
 * A sleepable uprobe program that takes the user stack of its task with
 * both helpers: the stacks must come back without the walk faulting user
 * memory in.  On its second call it also asks for the deferred stack, the
 * control of sleepable_stack.c.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define USER_STACK_DEPTH 32

extern int bpf_unwind_user_request(__u64 *cookie, __u64 flags) __ksym;

char LICENSE[] SEC("license") = "GPL";

int target_tgid;
int calls;
long stack_ret, task_stack_ret;
__u64 stack[USER_STACK_DEPTH], task_stack[USER_STACK_DEPTH];
int request_ret = -1;
__u64 cookie;

SEC("uprobe.s")
int probed_stack(struct pt_regs *ctx)
{
	int n;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	n = __sync_fetch_and_add(&calls, 1);
	if (n == 0) {
		stack_ret = bpf_get_stack(ctx, stack, sizeof(stack),
					  BPF_F_USER_STACK);
		task_stack_ret = bpf_get_task_stack(bpf_get_current_task_btf(),
						    task_stack,
						    sizeof(task_stack),
						    BPF_F_USER_STACK);
	} else if (n == 1) {
		request_ret = bpf_unwind_user_request(&cookie, 0);
	}
	return 0;
}
