// SPDX-License-Identifier: GPL-2.0
/*
 * A sampling profiler of one process with deferred user stacks: each
 * sample asks for the user stack of the task and records the cookie; the
 * stack is recorded with the same cookie when the task returns to user
 * space, walked with SFrame or frame pointers.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "profile.h"

extern int bpf_unwind_user_request(__u64 *cookie, __u64 flags) __ksym;

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} events SEC(".maps");

__u32 target_tgid;
__u64 lost;

static __always_inline struct profile_rec *reserve(__u32 kind)
{
	struct profile_rec *r;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return NULL;
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&lost, 1);
		return NULL;
	}
	r->kind = kind;
	r->nr = 0;
	return r;
}

SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	struct profile_rec *r = reserve(PROFILE_SAMPLE);

	if (!r)
		return 0;
	if (bpf_unwind_user_request(&r->cookie, 0) < 0)
		r->cookie = 0;
	bpf_ringbuf_submit(r, 0);
	return 0;
}

SEC("tp_btf/bpf_user_stack_tp")
int BPF_PROG(stack, __u64 cookie, const unsigned long *ips, unsigned int nr)
{
	struct profile_rec *r = reserve(PROFILE_STACK);
	__u32 n = nr;

	if (!r)
		return 0;
	if (n > PROFILE_MAX_FRAMES)
		n = PROFILE_MAX_FRAMES;
	r->cookie = cookie;
	r->nr = n;
	if (bpf_probe_read_kernel(r->ips, n * sizeof(r->ips[0]), ips))
		r->nr = -1;
	bpf_ringbuf_submit(r, 0);
	return 0;
}
