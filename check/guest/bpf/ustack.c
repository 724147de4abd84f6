// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks of BPF programs, checked frame for frame against a call
 * chain that records its own call sites: main -> bt_outer -> bt_mid ->
 * bt_leaf, which enters the kernel from a known address, by a system call
 * (the selftests' syscall_site.h) or by a page fault.
 *
 * For each program type (kprobe on a system call, tracepoint, uprobe,
 * sleepable uprobe, perf_event at page faults), the deferred user stack
 * that bpf_unwind_user_request() asked for must be the chain, and the
 * requests of one entry into the kernel must share one cookie and one
 * stack.  bpf_get_stack(BPF_F_USER_STACK) and bpf_get_stackid() (which
 * sleepable programs cannot use: no stack trace maps there) give what
 * they did before the series (frame pointers only, sleepable programs
 * included), reported, not checked.  A task that exits
 * in the chain, or is killed in it, gets one answer per cookie.  What the
 * verifier refuses is tested in selftests/bpf (unwind_user_request).
 *
 * Built twice by check/guest/Makefile: without frame pointers, with
 * SFrame (the programs the series is for), and with frame pointers
 * (fp/).  Prints KTAP.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <linux/types.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kselftest.h"
#include "callchain.h"
#include "syscall_site.h"
#include "ustack.h"
#include "ustack.skel.h"

#define noipa	__attribute__((noipa))
#define KEEP()	asm volatile("" ::: "memory")
#define RA()	((uint64_t)(uintptr_t)__builtin_return_address(0))

#define NR_WANT	4
#define MAX_RECS 256

enum op_kind { OP_SYSCALL, OP_FAULT };

struct op {
	enum op_kind kind;
	long nr, a0, a1, a2;
	void *page;
};

/* Set by the chain as it runs: the stack an entry from bt_leaf gives */
static uint64_t want[NR_WANT];
static uint64_t probe;		/* the nop before the system call */

/* Touch @p from a known address, set in *@site. */
static __always_inline void fault_site(void *p, uint64_t *site)
{
#if defined(__x86_64__)
	asm volatile("lea	1f(%%rip), %[site]\n\t"
		     "1:	movb	$1, (%[p])"
		     : [site] "=&r"(*site) : [p] "r"(p) : "memory");
#elif defined(__aarch64__)
	asm volatile("adr	%[site], 1f\n\t"
		     "1:	strb	wzr, [%[p]]"
		     : [site] "=&r"(*site) : [p] "r"(p) : "memory");
#endif
}

noipa void bt_leaf(struct op *op)
{
	want[1] = RA();
	if (op->kind == OP_FAULT)
		fault_site(op->page, &want[0]);
	else
		syscall_site(op->nr, op->a0, op->a1, op->a2, &probe, &want[0]);
}

noipa void bt_mid(struct op *op)
{
	want[2] = RA();
	bt_leaf(op);
	KEEP();
}

noipa void bt_outer(struct op *op)
{
	want[3] = RA();
	bt_mid(op);
	KEEP();
}

noipa void run_syscall(long nr, long a0, long a1, long a2)
{
	struct op op = { .kind = OP_SYSCALL, .nr = nr, .a0 = a0, .a1 = a1,
			 .a2 = a2 };

	bt_outer(&op);
}

/* The chain, entering the kernel by a page fault on a new page. */
noipa int run_fault(void)
{
	struct op op = { .kind = OP_FAULT };

	op.page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (op.page == MAP_FAILED)
		return -errno;
	bt_outer(&op);
	munmap(op.page, 4096);
	return 0;
}

static struct ustack_bpf *skel;
static struct ring_buffer *rb;
static struct ustack_rec recs[MAX_RECS];
static int nr_recs, dropped;
static uint64_t want_syscall[NR_WANT], want_fault[NR_WANT], want_probe[NR_WANT];

static int on_rec(void *ctx, void *data, size_t size)
{
	if (size < sizeof(recs[0]) || nr_recs >= MAX_RECS)
		dropped++;
	else
		memcpy(&recs[nr_recs++], data, sizeof(recs[0]));
	return 0;
}

static void reset(pid_t tgid)
{
	ring_buffer__consume(rb);
	nr_recs = 0;
	dropped = 0;
	skel->bss->target_tgid = tgid;
}

static const char *const source_name[] = {
	[SRC_KSYSCALL] = "kprobe", [SRC_TRACEPOINT] = "tracepoint",
	[SRC_UPROBE] = "uprobe", [SRC_UPROBE_SLEEPABLE] = "uprobe.s",
	[SRC_PAGE_FAULT] = "perf_event", [SRC_DELIVERY] = "tp_btf",
};

static void to_callchain(const struct ustack_rec *r, struct callchain *cc)
{
	cc->nr = r->nr > 0 ? r->nr : 0;
	memcpy(cc->ips, r->ips, cc->nr * sizeof(cc->ips[0]));
}

/* How many frames of @w, from the first, @r has at the same places. */
static int frames_right(const struct ustack_rec *r, const uint64_t *w)
{
	struct callchain cc;
	int bad;

	to_callchain(r, &cc);
	bad = callchain_mismatch(&cc, w, NR_WANT);
	return bad < 0 ? NR_WANT : bad;
}

static void print_stack(const struct ustack_rec *r, const uint64_t *w)
{
	struct callchain cc;

	to_callchain(r, &cc);
	callchain_print(&cc, w, NR_WANT);
}

/* The stack of @stackid in the stack map, in @ips; its frames, or -1. */
static int stackid_frames(int stackid, __u64 *ips)
{
	__u32 id = stackid;
	int n;

	if (stackid < 0 ||
	    bpf_map_lookup_elem(bpf_map__fd(skel->maps.stacks), &id, ips))
		return -1;
	for (n = 0; n < USTACK_MAX && ips[n]; n++)
		;
	return n;
}

/* The deferred stacks delivered with @cookie, and the last one of them. */
static int deferred_for(uint64_t cookie, const struct ustack_rec **last)
{
	int i, n = 0;

	for (i = 0; i < nr_recs; i++) {
		if (recs[i].kind == USTACK_DEFERRED && recs[i].cookie == cookie) {
			*last = &recs[i];
			n++;
		}
	}
	return n;
}

/*
 * Check the requests recorded since reset(), of the sources in @mask:
 * at least @min events (those of a page fault only if at @w[0]), each
 * with a cookie, both requests of an event with the same cookie, the
 * first request of an entry 0 and every later one 1, and for each cookie
 * exactly one deferred stack, which is @w.  Reports bpf_get_stack()'s
 * stack at the first event of each source; checks it only if
 * @sync_exact.
 */
static bool check_requests(const char *name, unsigned int mask, int min,
			   const uint64_t *w, bool sync_exact)
{
	int i, j, events = 0, good = 0;
	bool seen[SRC_DELIVERY + 1] = { false };
	const struct ustack_rec *d;

	for (i = 0; i < nr_recs; i++) {
		const struct ustack_rec *r = &recs[i];
		bool first = true, ok;

		if (r->kind != USTACK_REQUEST || !(mask & (1u << r->source)))
			continue;
		if (r->source == SRC_PAGE_FAULT && r->ip != w[0])
			continue;
		events++;
		for (j = 0; j < i; j++)
			if (recs[j].kind == USTACK_REQUEST &&
			    recs[j].cookie == r->cookie)
				first = false;
		/* A request from the delivery itself: answered already */
		ok = r->cookie && r->cookie_again == r->cookie &&
		     r->ret == (first ? 0 : 1) && r->ret_again == 1 &&
		     deferred_for(r->cookie, &d) == 1 && d->ret == 1;
		if (!ok) {
			ksft_print_msg("%s: %s event %d: ret %d/%d cookie %#llx/%#llx, %d stacks, %d in the delivery\n",
				       name, source_name[r->source], events,
				       r->ret, r->ret_again,
				       (unsigned long long)r->cookie,
				       (unsigned long long)r->cookie_again,
				       deferred_for(r->cookie, &d),
				       deferred_for(r->cookie, &d) ? d->ret : 0);
			continue;
		}
		if (frames_right(d, w) != NR_WANT) {
			ksft_print_msg("%s: %s event %d: deferred stack:\n",
				       name, source_name[r->source], events);
			print_stack(d, w);
			continue;
		}
		if (!seen[r->source]) {
			struct ustack_rec id = { 0 };
			int by_id;

			id.nr = stackid_frames(r->stackid, id.ips);
			by_id = frames_right(&id, w);
			seen[r->source] = true;
			ksft_print_msg("%s: %s: bpf_get_stack() %d of %d frames right (%d returned), bpf_get_stackid() %d (%d), deferred %d of %d\n",
				       name, source_name[r->source],
				       frames_right(r, w), NR_WANT, r->nr,
				       by_id, id.nr, NR_WANT, NR_WANT);
		}
		if (sync_exact && frames_right(r, w) != NR_WANT) {
			ksft_print_msg("%s: %s event %d: bpf_get_stack():\n",
				       name, source_name[r->source], events);
			print_stack(r, w);
			continue;
		}
		good++;
	}
	if (events < min || good != events || dropped ||
	    skel->bss->lost) {
		ksft_print_msg("%s: %d events (%d at least), %d right, %d records dropped, %llu lost\n",
			       name, events, min, good, dropped,
			       (unsigned long long)skel->bss->lost);
		return false;
	}
	return true;
}

/* A kprobe on getppid() and the syscalls:sys_enter_getppid tracepoint:
 * two programs, four requests per entry. */
static void test_syscall(void)
{
	struct bpf_link *kp, *tp;
	bool ok = false;
	int i;

	reset(getpid());
	kp = bpf_program__attach_ksyscall(skel->progs.ksyscall_getppid,
					  "getppid", NULL);
	tp = bpf_program__attach(skel->progs.tp_getppid);
	if (kp && tp) {
		for (i = 0; i < 5; i++)
			run_syscall(SYS_getppid, 0, 0, 0);
		ring_buffer__consume(rb);
		ok = check_requests("syscall",
				    1u << SRC_KSYSCALL | 1u << SRC_TRACEPOINT,
				    10, want_syscall, false);
	} else {
		ksft_print_msg("syscall: attach: %s\n", strerror(errno));
	}
	bpf_link__destroy(kp);
	bpf_link__destroy(tp);
	ksft_test_result(ok, "syscall\n");
}

/* A uprobe on the nop before the system call, sleepable or not. */
static void test_uprobe(bool sleepable)
{
	struct bpf_program *prog = sleepable ?
		skel->progs.uprobe_site_sleepable : skel->progs.uprobe_site;
	const char *name = sleepable ? "uprobe_sleepable" : "uprobe";
	unsigned long off;
	struct bpf_link *l = NULL;
	char path[256];
	bool ok = false;
	int i;

	reset(getpid());
	if (callchain_file_offset((void *)(uintptr_t)probe, path, sizeof(path),
				  &off))
		ksft_print_msg("%s: no file mapped at %#llx\n", name,
			       (unsigned long long)probe);
	else
		l = bpf_program__attach_uprobe(prog, false, getpid(), path, off);
	if (l) {
		for (i = 0; i < 3; i++)
			run_syscall(SYS_getppid, 0, 0, 0);
		ring_buffer__consume(rb);
		ok = check_requests(name,
				    1u << (sleepable ? SRC_UPROBE_SLEEPABLE :
							SRC_UPROBE),
				    3, want_probe, false);
	} else {
		ksft_print_msg("%s: attach: %s\n", name, strerror(errno));
	}
	bpf_link__destroy(l);
	ksft_test_result(ok, "%s\n", name);
}

/* A perf_event program on the page faults of this process. */
static void test_page_fault(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
	};
	struct bpf_link *l = NULL;
	bool ok = false;
	int fd, i;

	reset(getpid());
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		ksft_print_msg("page_fault: perf_event_open: %s\n",
			       strerror(errno));
	else
		l = bpf_program__attach_perf_event(skel->progs.page_fault, fd);
	if (l) {
		for (i = 0; i < 3; i++)
			run_fault();
		ring_buffer__consume(rb);
		ok = check_requests("page_fault", 1u << SRC_PAGE_FAULT, 3,
				    want_fault, false);
	} else if (fd >= 0) {
		ksft_print_msg("page_fault: attach: %s\n", strerror(errno));
	}
	bpf_link__destroy(l);
	if (fd >= 0)
		close(fd);
	ksft_test_result(ok, "page_fault\n");
}

/*
 * Wait up to @secs seconds of the monotonic clock for a request of
 * @tgid: counted by the clock, not by polls, which a wake-up ends early.
 */
static bool wait_request(pid_t tgid, int secs)
{
	struct timespec now, end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += secs;
	do {
		ring_buffer__poll(rb, 10);
		for (int i = 0; i < nr_recs; i++)
			if (recs[i].kind == USTACK_REQUEST &&
			    recs[i].tgid == (__u32)tgid)
				return true;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	return false;
}

/*
 * A child that never returns to user space from its last entry: one
 * that calls exit_group() in the chain, and one killed while it sleeps in
 * read() in the chain.  Each request is answered once, from the exit
 * path: the whole chain after exit_group(), at most the frame of the
 * system call after SIGKILL, as the walk stops at a fatal signal.  (The
 * series delivers them on the way out, as it does for perf and ftrace:
 * a request is never left without its answer.)
 */
static void test_exit(bool killed)
{
	const char *name = killed ? "killed" : "exit";
	struct bpf_program *prog = killed ? skel->progs.ksyscall_read :
					    skel->progs.ksyscall_exit_group;
	int go[2], block[2], status, i, requests = 0;
	const struct ustack_rec *d = NULL;
	struct bpf_link *l;
	bool ok = false;
	pid_t pid;
	char c;

	if (pipe(go) || pipe(block)) {
		ksft_test_result_fail("%s: pipe: %s\n", name, strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(block[1]);
		/* Not read(): the test of a kill has a kprobe on it */
		struct pollfd pfd = { .fd = go[0], .events = POLLIN };

		if (poll(&pfd, 1, -1) != 1)
			_exit(2);
		if (killed)
			run_syscall(SYS_read, block[0], (long)&c, 1);
		else
			run_syscall(SYS_exit_group, 0, 0, 0);
		_exit(3);
	}
	close(go[0]);
	close(block[0]);
	reset(pid);
	l = killed ? bpf_program__attach_ksyscall(prog, "read", NULL) :
		     bpf_program__attach_ksyscall(prog, "exit_group", NULL);
	if (!l)
		ksft_print_msg("%s: attach: %s\n", name, strerror(errno));
	if (write(go[1], "g", 1) != 1)
		ksft_print_msg("%s: write: %s\n", name, strerror(errno));
	if (killed) {
		if (!wait_request(pid, 60))
			ksft_print_msg("%s: no request in 60 s\n", name);
		kill(pid, SIGKILL);
	}
	waitpid(pid, &status, 0);
	ring_buffer__consume(rb);
	bpf_link__destroy(l);
	close(go[1]);
	close(block[1]);

	for (i = 0; i < nr_recs; i++) {
		if (recs[i].kind != USTACK_REQUEST)
			continue;
		requests++;
		if (deferred_for(recs[i].cookie, &d) != 1) {
			ksft_print_msg("%s: %d stacks for cookie %#llx\n", name,
				       deferred_for(recs[i].cookie, &d),
				       (unsigned long long)recs[i].cookie);
			d = NULL;
			break;
		}
	}
	/*
	 * The delivery's own request: after exit_group(), from the exit
	 * path, too late; after SIGKILL, from the task work that the
	 * signal code runs before it exits, in the same entry.
	 */
	if (requests == 1 && d && d->ret != (killed ? 1 : -EINVAL)) {
		ksft_print_msg("%s: a request from the delivery got %d\n",
			       name, d->ret);
	} else if (requests == 1 && d) {
		/*
		 * After the system call, or at it where the architecture
		 * rewinds an interrupted one for a restart (arm64).
		 */
		if (killed)
			ok = d->nr == 0 ||
			     (d->nr == 1 && d->ips[0] > probe &&
			      d->ips[0] <= want_syscall[0]);
		else
			ok = frames_right(d, want_syscall) == NR_WANT;
		ksft_print_msg("%s: %d frames delivered after the %s\n", name,
			       d->nr, killed ? "kill" : "exit");
		if (!ok)
			print_stack(d, want_syscall);
	} else {
		ksft_print_msg("%s: %d requests, %d records, status %#x\n",
			       name, requests, nr_recs, status);
	}
	ksft_test_result(ok, "%s\n", name);
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int main(void)
{
	struct bpf_link *deliver;
	int err;

	ksft_print_header();
	ksft_set_plan(6);
	libbpf_set_print(quiet);

	/* The stacks each kind of entry from the chain must give */
	run_syscall(SYS_getppid, 0, 0, 0);
	memcpy(want_syscall, want, sizeof(want));
	memcpy(want_probe, want, sizeof(want));
	want_probe[0] = probe;
	if (run_fault())
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	memcpy(want_fault, want, sizeof(want));

	skel = ustack_bpf__open_and_load();
	if (!skel)
		ksft_exit_fail_msg("loading ustack.bpf.o: %s\n", strerror(errno));
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_rec, NULL,
			      NULL);
	if (!rb)
		ksft_exit_fail_msg("ring buffer: %s\n", strerror(errno));
	skel->bss->target_tgid = getpid();
	deliver = bpf_program__attach(skel->progs.deliver);
	err = deliver ? 0 : -errno;
	if (err)
		ksft_exit_fail_msg("attaching to bpf_user_stack_tp: %s\n",
				   strerror(-err));

	test_syscall();
	test_uprobe(false);
	test_uprobe(true);
	test_page_fault();
	test_exit(false);
	test_exit(true);

	bpf_link__destroy(deliver);
	ring_buffer__free(rb);
	ustack_bpf__destroy(skel);
	ksft_finished();
}
