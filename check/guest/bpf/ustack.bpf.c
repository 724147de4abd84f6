// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF side of ustack.c: programs of each type that can ask for the
 * user stack of the task under test, and the program that receives the
 * deferred stacks.  Each event asks twice, to see that the requests of
 * one entry into the kernel share one cookie and one walk, and takes the
 * stacks bpf_get_stack() and bpf_get_stackid() give there, with frame
 * pointers only, in a sleepable program too.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "ustack.h"

extern int bpf_unwind_user_request(__u64 *cookie, __u64 flags) __ksym;
/* Where the series has it; bpf_probe_read_kernel() of ips otherwise */
extern int bpf_unwind_user_get_stack(__u64 *buf, __u32 buf__sz,
				     __u64 flags) __ksym __weak;

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 256);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, USTACK_MAX * sizeof(__u64));
} stacks SEC(".maps");

/* Set by ustack.c before it attaches anything */
__u32 target_tgid;

/* Records that found no room in the ring buffer */
__u64 lost;

static __always_inline bool is_target(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_tgid;
}

static __always_inline int on_event(void *ctx, __u32 source, __u64 ip)
{
	struct ustack_rec *r;
	long n;

	if (!is_target())
		return 0;
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&lost, 1);
		return 0;
	}
	r->kind = USTACK_REQUEST;
	r->source = source;
	r->tgid = target_tgid;
	r->ip = ip;
	r->ret = bpf_unwind_user_request(&r->cookie, 0);
	r->ret_again = bpf_unwind_user_request(&r->cookie_again, 0);
	n = bpf_get_stack(ctx, r->ips, sizeof(r->ips), BPF_F_USER_STACK);
	r->nr = n < 0 ? n : n / sizeof(r->ips[0]);
	if (source != SRC_UPROBE_SLEEPABLE)
		r->stackid = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	else
		r->stackid = -1;
	bpf_ringbuf_submit(r, 0);
	return 0;
}

SEC("ksyscall/getppid")
int ksyscall_getppid(struct pt_regs *ctx)
{
	return on_event(ctx, SRC_KSYSCALL, 0);
}

SEC("ksyscall/exit_group")
int ksyscall_exit_group(struct pt_regs *ctx)
{
	return on_event(ctx, SRC_KSYSCALL, 0);
}

SEC("ksyscall/read")
int ksyscall_read(struct pt_regs *ctx)
{
	return on_event(ctx, SRC_KSYSCALL, 0);
}

SEC("tp/syscalls/sys_enter_getppid")
int tp_getppid(void *ctx)
{
	return on_event(ctx, SRC_TRACEPOINT, 0);
}

SEC("uprobe")
int uprobe_site(struct pt_regs *ctx)
{
	return on_event(ctx, SRC_UPROBE, 0);
}

SEC("uprobe.s")
int uprobe_site_sleepable(struct pt_regs *ctx)
{
	return on_event(ctx, SRC_UPROBE_SLEEPABLE, 0);
}

SEC("perf_event")
int page_fault(struct bpf_perf_event_data *ctx)
{
	return on_event(ctx, SRC_PAGE_FAULT, PT_REGS_IP(&ctx->regs));
}

SEC("tp_btf/bpf_user_stack_tp")
int BPF_PROG(deliver, __u64 cookie, const unsigned long *ips, unsigned int nr)
{
	struct ustack_rec *r;
	__u32 n = nr;
	int len;

	if (!is_target())
		return 0;
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&lost, 1);
		return 0;
	}
	r->kind = USTACK_DEFERRED;
	r->source = SRC_DELIVERY;
	r->tgid = target_tgid;
	r->cookie = cookie;
	/* A request from here is one of the same entry: answered already */
	r->ret = bpf_unwind_user_request(&r->cookie_again, 0);
	if (bpf_ksym_exists(bpf_unwind_user_get_stack)) {
		len = bpf_unwind_user_get_stack(r->ips, sizeof(r->ips), 0);
		r->nr = len < 0 ? -1 : len / (int)sizeof(r->ips[0]);
		bpf_ringbuf_submit(r, 0);
		return 0;
	}
	if (n > USTACK_MAX)
		n = USTACK_MAX;
	r->nr = n;
	if (bpf_probe_read_kernel(r->ips, n * sizeof(r->ips[0]), ips))
		r->nr = -1;
	bpf_ringbuf_submit(r, 0);
	return 0;
}
