// SPDX-License-Identifier: GPL-2.0
/*
 * Programs the verifier must refuse, each loaded alone by ustack.c, which
 * checks what the verifier says.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

extern int bpf_unwind_user_request(__u64 *cookie, __u64 flags) __ksym;

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} hash SEC(".maps");

/* A packet is no task: no user stack to ask for */
SEC("socket")
int socket_request(struct __sk_buff *skb)
{
	__u64 cookie;

	return bpf_unwind_user_request(&cookie, 0);
}

/* The cookie is 8 bytes */
SEC("kprobe")
int cookie_too_small(struct pt_regs *ctx)
{
	__u32 cookie[2] = { 0, 0 };

	return bpf_unwind_user_request((__u64 *)((char *)cookie + 4), 0);
}

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 64 * sizeof(__u64));
} stacks SEC(".maps");

/* bpf_get_stackid() stores stacks in a stack trace map only */
SEC("uprobe.s")
int stackid_hash_map(struct pt_regs *ctx)
{
	return bpf_get_stackid(ctx, &hash, BPF_F_USER_STACK);
}

/* and a sleepable program has no stack trace map */
SEC("uprobe.s")
int stackid_sleepable(struct pt_regs *ctx)
{
	return bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
}

/* An iterator runs for the task reading it, whose stack means nothing */
SEC("iter/task")
int iter_request(struct bpf_iter__task *ctx)
{
	__u64 cookie;

	return bpf_unwind_user_request(&cookie, 0);
}
