// SPDX-License-Identifier: GPL-2.0
/*
 * A sleepable uprobe program that takes the user stack of its task: the
 * stack must come back without the walk faulting user memory in
 * (sleepable_stack.c).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define USER_STACK_DEPTH 32

char LICENSE[] SEC("license") = "GPL";

int target_tgid;
int calls;
long stack_ret;
__u64 stack[USER_STACK_DEPTH];

SEC("uprobe.s")
int probed_stack(struct pt_regs *ctx)
{
	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	stack_ret = bpf_get_stack(ctx, stack, sizeof(stack), BPF_F_USER_STACK);
	__sync_fetch_and_add(&calls, 1);
	return 0;
}
