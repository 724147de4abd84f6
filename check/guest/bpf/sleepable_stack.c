// SPDX-License-Identifier: GPL-2.0
/*
 * A sleepable BPF program must take a user stack without faulting user
 * memory in: it runs under rcu_read_lock_trace(), and a fault on a file
 * that never answers (FUSE, NFS) would hold up the RCU tasks trace grace
 * periods of every sleepable program on the system, for as long as the
 * file takes.  The first version of the BPF series walked with SFrame and
 * faults there (bpf_get_stack() in sleepable uprobe programs,
 * bpf_get_task_stack() of the current task in any sleepable program);
 * this test fails on it.
 *
 * The review that found this also named lsm.s programs on file_mprotect,
 * which runs under mmap_write_lock(), where such a fault would wait for
 * the task's own lock.  The verifier refuses that attachment
 * ("bpf_lsm_file_mprotect is not sleepable"): file_mprotect, like the
 * other hooks called under the mmap lock (mmap_addr, vm_enough_memory),
 * is not in kernel/bpf/bpf_lsm.c's sleepable_lsm_hooks.
 * Nor do the test kernels have the function tracer that LSM programs
 * attach with.  So the program is a uprobe.s one, at the entry of a
 * function of this program.
 *
 * The task registers an .sframe section whose FDE index is on a page
 * that userfaultfd keeps out of memory, and whose thread answers every
 * fault on it and counts it: a walk that reads the index gets its data,
 * and is counted.  (A page dropped from the page cache would need I/O,
 * which a guest on 9p does not make certain.)  The section is made here,
 * one FDE for this program's text, placed so that its header ends where
 * the missing page begins; the program is built without .sframe of its
 * own.  The stack the program took must start at the probed function.
 *
 * A walk that never read the section would pass too: the child's second
 * call has the program ask for the deferred stack, whose walk may fault,
 * and that walk must fault the page in.
 *
 * A child registers the section and calls the probed function; the
 * parent attaches the program to the child and waits TIMEOUT seconds.
 * Prints KTAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/prctl.h>
#include <linux/sframe.h>
#include <linux/userfaultfd.h>

#include <bpf/libbpf.h>

#include "kselftest.h"
#include "sleepable_stack.skel.h"

#define TIMEOUT	60	/* seconds for the probed call: it takes milliseconds */
#define noinline	__attribute__((noinline))

long sleepable_stack_probed(long arg);

#if defined(__x86_64__)
#define SFRAME_ABI	3	/* SFRAME_ABI_AMD64_ENDIAN_LITTLE */
#define FIXED_RA	(-8)
#elif defined(__aarch64__)
#define SFRAME_ABI	2	/* SFRAME_ABI_AARCH64_ENDIAN_LITTLE */
#define FIXED_RA	0
#endif

static long page;

/* The function the program probes; it returns its argument. */
noinline long sleepable_stack_probed(long arg)
{
	asm volatile("" : "+r"(arg));
	return arg;
}

static void put16(unsigned char *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/*
 * The section, V3 with PC-relative starts: a header of 28 bytes at @hdr
 * (the end of a present page), and in @tail, the page after it, one FDE
 * for the text [@text, @text + @size) and its FRE (CFA = SP + 8: x86_64's
 * rule at a function's entry; wrong on arm64, which only the deferred
 * walk of the control reads, and whose frames the test does not check).
 */
static void make_sframe(unsigned char *hdr, unsigned char *tail,
			uintptr_t tail_addr, uintptr_t text, size_t size)
{
	hdr[0] = 0xe2;			/* magic 0xdee2 */
	hdr[1] = 0xde;
	hdr[2] = 3;			/* version */
	hdr[3] = 0x1 | 0x4;		/* FDE_SORTED, FDE_FUNC_START_PCREL */
	hdr[4] = SFRAME_ABI;
	hdr[5] = 0;			/* no fixed FP offset */
	hdr[6] = (unsigned char)FIXED_RA;
	hdr[7] = 0;			/* no auxiliary header */
	put32(hdr + 8, 1);		/* FDEs */
	put32(hdr + 12, 1);		/* FREs */
	put32(hdr + 16, 5 + 4 + 1 + 1);	/* FRE sub-section bytes */
	put32(hdr + 20, 0);		/* FDE index right after the header */
	put32(hdr + 24, 16);		/* FREs after the one FDE */

	/* The FDE: start relative to its own field, size, FRE offset */
	put64(tail, text - tail_addr);
	put32(tail + 8, size);
	put32(tail + 12, 0);
	/* Its attributes: 1 FRE, 4-byte FRE starts, PC-inc, default type */
	put16(tail + 16, 1);
	tail[18] = 2;
	tail[19] = 0;
	tail[20] = 0;
	/* The FRE: from the start, SP-based, one 1-byte word: CFA = SP + 8 */
	put32(tail + 21, 0);
	tail[25] = 0x1 | 1 << 1;
	tail[26] = 8;
}

/* This program's executable mapping, from /proc/self/maps */
static int own_text(uintptr_t *start, size_t *size)
{
	uintptr_t here = (uintptr_t)sleepable_stack_probed, lo, hi;
	char line[512], perms[5];
	FILE *f = fopen("/proc/self/maps", "re");
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 &&
		    perms[2] == 'x' && here >= lo && here < hi) {
			*start = lo;
			*size = hi - lo;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

struct monitor {
	int uffd;
	unsigned char *page_data;
	int faults;			/* atomic: the main thread reads it */
};

static int faults(struct monitor *m)
{
	return __atomic_load_n(&m->faults, __ATOMIC_ACQUIRE);
}

/* Answer every fault on the missing page with its contents. */
static void *monitor(void *arg)
{
	struct monitor *m = arg;
	struct uffd_msg msg;

	for (;;) {
		struct pollfd pfd = { .fd = m->uffd, .events = POLLIN };
		struct uffdio_copy copy = { 0 };

		if (poll(&pfd, 1, -1) < 0 ||
		    read(m->uffd, &msg, sizeof(msg)) != sizeof(msg))
			return NULL;
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		__atomic_add_fetch(&m->faults, 1, __ATOMIC_RELEASE);
		copy.dst = msg.arg.pagefault.address & ~(page - 1);
		copy.src = (uintptr_t)m->page_data;
		copy.len = page;
		ioctl(m->uffd, UFFDIO_COPY, &copy);
	}
}

/*
 * The child: its section, then two probed calls when told to: in the
 * first the program takes the stack; in the second it also asks for the
 * deferred stack, whose walk may fault and must read the section (the
 * control: the section is the one a walk of this text uses).  Exit
 * status: 0 both calls returned, the first without a fault on the
 * section and the second with one; 2 the setup failed, 3 the program's
 * walk faulted the section in, 5 the deferred walk did not read it
 * (messages on stderr).
 */
static int child(int ready, int go)
{
	struct uffdio_register reg = { 0 };
	struct uffdio_api api = { .api = UFFD_API };
	static struct monitor m;
	struct prctl_sframe ps = { 0 };
	unsigned char *area;
	uintptr_t text;
	pthread_t thread;
	size_t size;
	char c;

	if (own_text(&text, &size)) {
		fprintf(stderr, "no executable mapping of this program\n");
		return 2;
	}
	area = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	m.page_data = aligned_alloc(page, page);
	if (area == MAP_FAILED || !m.page_data)
		return 2;
	memset(area, 0, 2 * page);
	make_sframe(area + page - 28, area + page, (uintptr_t)area + page,
		    text, size);

	/* Registered whole, whatever registration reads of it */
	ps.sframe_addr = (uintptr_t)area + page - 28;
	ps.sframe_size = 28 + 16 + 11;
	ps.text_addr = text;
	ps.text_size = size;
	if (prctl(PR_ADD_SFRAME, &ps, sizeof(ps), 0, 0)) {
		fprintf(stderr, "PR_ADD_SFRAME: %s\n", strerror(errno));
		return 2;
	}

	/* Then the page with the FDE index is taken away, for userfaultfd */
	memcpy(m.page_data, area + page, page);
	if (madvise(area + page, page, MADV_DONTNEED)) {
		fprintf(stderr, "MADV_DONTNEED: %s\n", strerror(errno));
		return 2;
	}
	m.uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (m.uffd < 0 || ioctl(m.uffd, UFFDIO_API, &api)) {
		fprintf(stderr, "userfaultfd: %s\n", strerror(errno));
		return 2;
	}
	reg.range.start = (uintptr_t)area + page;
	reg.range.len = page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(m.uffd, UFFDIO_REGISTER, &reg) ||
	    pthread_create(&thread, NULL, monitor, &m)) {
		fprintf(stderr, "UFFDIO_REGISTER: %s\n", strerror(errno));
		return 2;
	}

	if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 1)
		return 2;
	if (sleepable_stack_probed(7) != 7) {
		fprintf(stderr, "the probed function returned a wrong value\n");
		return 2;
	}
	/* Only a walk that reads the section can have faulted its page */
	if (faults(&m)) {
		fprintf(stderr, "the sleepable program's walk faulted the FDE index in (%d faults)\n",
			faults(&m));
		return 3;
	}
	/* The deferred walk ran on the way back from the probe */
	if (sleepable_stack_probed(8) != 8) {
		fprintf(stderr, "the probed function returned a wrong value\n");
		return 2;
	}
	if (!faults(&m)) {
		fprintf(stderr, "the deferred walk did not read the FDE index: the section is not the one this text is unwound with\n");
		return 5;
	}
	return 0;
}

int main(void)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts,
		    .func_name = "sleepable_stack_probed");
	int to_parent[2], to_child[2], status = -1, ret;
	struct sleepable_stack_bpf *skel;
	struct bpf_link *link;
	char exe[PATH_MAX], c;
	struct pollfd pfd;
	unsigned long top, task_top;
	ssize_t len;
	pid_t pid;

	ksft_print_header();
	ksft_set_plan(1);
	page = sysconf(_SC_PAGESIZE);
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		ksft_exit_fail_msg("/proc/self/exe: %s\n", strerror(errno));
	exe[len] = 0;

	skel = sleepable_stack_bpf__open_and_load();
	if (!skel)
		ksft_exit_fail_msg("cannot load sleepable_stack.bpf.o\n");
	if (pipe(to_parent) || pipe(to_child))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));

	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid)
		_exit(child(to_parent[1], to_child[0]));

	if (read(to_parent[0], &c, 1) != 1) {
		waitpid(pid, &status, 0);
		ksft_exit_fail_msg("the child's setup failed (status %#x)\n",
				   status);
	}
	skel->bss->target_tgid = pid;
	link = bpf_program__attach_uprobe_opts(skel->progs.probed_stack, pid,
					       exe, 0, &opts);
	if (!link) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		ksft_exit_fail_msg("uprobe on sleepable_stack_probed(): %s\n",
				   strerror(errno));
	}

	/* The child exits when the call returns; its pipe then closes */
	close(to_parent[1]);
	if (write(to_child[1], "g", 1) != 1)
		ksft_exit_fail_msg("cannot start the child\n");
	pfd.fd = to_parent[0];
	pfd.events = POLLIN;
	do
		ret = poll(&pfd, 1, TIMEOUT * 1000);
	while (ret < 0 && errno == EINTR);
	if (ret == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		ksft_test_result_fail("uprobe.s: the probed call did not return in %d s\n",
				      TIMEOUT);
		bpf_link__destroy(link);
		sleepable_stack_bpf__destroy(skel);
		ksft_finished();
	}
	waitpid(pid, &status, 0);
	/* At a function's entry, the first frame is the function */
	top = skel->bss->stack[0];
	task_top = skel->bss->task_stack[0];
	ksft_print_msg("the program ran %d times; bpf_get_stack() returned %ld, bpf_get_task_stack() %ld, first frames %#lx and %#lx (sleepable_stack_probed() at %p); the deferred request %d; child status %#x\n",
		       skel->bss->calls, skel->bss->stack_ret,
		       skel->bss->task_stack_ret, top, task_top,
		       sleepable_stack_probed, skel->data->request_ret, status);
	ksft_test_result(WIFEXITED(status) && !WEXITSTATUS(status) &&
			 skel->bss->calls == 2 &&
			 skel->bss->stack_ret >= (long)sizeof(__u64) &&
			 skel->bss->task_stack_ret >= (long)sizeof(__u64) &&
			 top == (uintptr_t)sleepable_stack_probed &&
			 task_top == (uintptr_t)sleepable_stack_probed &&
			 skel->data->request_ret == 0,
			 "uprobe.s: the user stack, without faults\n");
	bpf_link__destroy(link);
	sleepable_stack_bpf__destroy(skel);
	ksft_finished();
}
