// SPDX-License-Identifier: GPL-2.0
/*
 * bpf-profile: sample the user stacks of a command with BPF, as bcc's
 * profile tool does, but with deferred user stacks: the stacks are walked
 * when the task returns to user space, with SFrame where it has it, so
 * that a program built without frame pointers gives whole stacks.
 *
 *	bpf-profile [-F HZ] [-o FILE] COMMAND [ARG...]
 *	bpf-profile [-F HZ] [-o FILE] -p PID -d SECONDS
 *
 * Runs COMMAND, samples every CPU HZ times a second of its time (cpu-clock,
 * user mode only), as bcc's profile does, keeps the samples of COMMAND's
 * threads, and writes to FILE (standard output by default).  With -p, it
 * samples the process PID, which runs already, for SECONDS seconds or
 * until it exits.  It writes:
 *
 *	# a comment line with the counts
 *	maps:
 *	START END PATH		(each file mapping of the command, in hex)
 *	stacks:
 *	COUNT IP IP ...		(each distinct stack, innermost first)
 *
 * demo/bpf-profile-report.py names the frames and draws the flame graph.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/fs.h>
#include <linux/perf_event.h>
#include <linux/types.h>

#include <bpf/libbpf.h>

#include "profile.h"
#include "profile.skel.h"

struct stack {
	uint64_t count;
	int nr;
	uint64_t ips[PROFILE_MAX_FRAMES];
};

/* Samples whose stack has not come yet, by cookie */
#define MAX_PENDING 64
static struct { uint64_t cookie, count; } pending[MAX_PENDING];
static int nr_pending;

static struct stack *stacks;
static size_t nr_stacks, max_stacks;
static uint64_t samples, unmatched, failed, dropped;

static char *maps;
static size_t maps_len;

static int on_rec(void *ctx, void *data, size_t size)
{
	const struct profile_rec *r = data;
	uint64_t count = 0;
	int i;

	if (size < sizeof(*r))
		return 0;
	if (r->kind == PROFILE_SAMPLE) {
		samples++;
		if (!r->cookie) {
			failed++;
			return 0;
		}
		for (i = 0; i < nr_pending; i++) {
			if (pending[i].cookie == r->cookie) {
				pending[i].count++;
				return 0;
			}
		}
		if (nr_pending == MAX_PENDING) {
			/* The oldest never got its stack */
			unmatched += pending[0].count;
			memmove(pending, pending + 1,
				--nr_pending * sizeof(pending[0]));
		}
		pending[nr_pending].cookie = r->cookie;
		pending[nr_pending++].count = 1;
		return 0;
	}

	for (i = 0; i < nr_pending; i++) {
		if (pending[i].cookie == r->cookie) {
			count = pending[i].count;
			memmove(pending + i, pending + i + 1,
				(--nr_pending - i) * sizeof(pending[0]));
			break;
		}
	}
	if (!count)
		return 0;
	if (r->nr < 0) {
		dropped += count;
		return 0;
	}
	if (nr_stacks == max_stacks) {
		size_t n = max_stacks ? 2 * max_stacks : 1024;
		struct stack *s = realloc(stacks, n * sizeof(*s));

		if (!s) {
			dropped += count;
			return 0;
		}
		stacks = s;
		max_stacks = n;
	}
	stacks[nr_stacks].count = count;
	stacks[nr_stacks].nr = r->nr;
	memcpy(stacks[nr_stacks].ips, r->ips, r->nr * sizeof(r->ips[0]));
	nr_stacks++;
	return 0;
}

/*
 * Keep the file mappings of @pid as they were last seen whole.  They are
 * asked for one at a time with PROCMAP_QUERY rather than read from the
 * text of /proc/PID/maps: stdio reads that file a page at a time, and a
 * read() after the process has dropped its address space returns 0, not
 * an error, so that a process exiting between two reads left the first
 * page (its program's mappings, without its libraries) as if it were
 * all.  The ioctl fails with ESRCH then, and a walk that fails is
 * dropped.  Mappings can still change between two calls, as between two
 * reads of the file; what this keeps is each mapping as it was at one
 * moment of the walk, and all of them, in order.
 */
static void save_maps(pid_t pid)
{
	char path[64], name[PATH_MAX], *buf = NULL;
	struct procmap_query q;
	__u64 addr = 0;
	size_t len = 0;
	int fd, err;
	FILE *out;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	out = open_memstream(&buf, &len);
	if (!out) {
		close(fd);
		return;
	}
	for (;;) {
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA |
				PROCMAP_QUERY_FILE_BACKED_VMA;
		q.query_addr = addr;
		q.vma_name_addr = (uintptr_t)name;
		q.vma_name_size = sizeof(name);
		if (ioctl(fd, PROCMAP_QUERY, &q)) {
			/* ENOENT: no file mapping above @addr */
			err = errno == ENOENT ? 0 : errno;
			break;
		}
		if (q.vma_name_size)
			fprintf(out, "%llx %llx %s\n", (unsigned long long)q.vma_start,
				(unsigned long long)q.vma_end, name);
		addr = q.vma_end;
	}
	close(fd);
	fclose(out);
	if (err == ENOTTY) {
		static bool told;

		if (!told)
			fprintf(stderr, "bpf-profile: no PROCMAP_QUERY in this kernel (before 6.11): the profile names no files\n");
		told = true;
	}
	if (!err && len) {
		free(maps);
		maps = buf;
		maps_len = len;
	} else {
		free(buf);
	}
}

static int cmp_stack(const void *a, const void *b)
{
	const struct stack *x = a, *y = b;

	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	return memcmp(x->ips, y->ips, x->nr * sizeof(x->ips[0]));
}

static void write_profile(FILE *out, const char *cmd, int hz,
			  uint64_t lost)
{
	size_t i, j, distinct = 0;

	qsort(stacks, nr_stacks, sizeof(stacks[0]), cmp_stack);
	for (i = 0; i < nr_stacks; i = j) {
		for (j = i + 1; j < nr_stacks && !cmp_stack(&stacks[i], &stacks[j]); j++)
			stacks[i].count += stacks[j].count;
		distinct++;
	}
	for (i = 0; i < (size_t)nr_pending; i++)
		unmatched += pending[i].count;

	fprintf(out, "# bpf-profile %s: %llu samples at %d Hz, %zu distinct stacks; without a stack: %llu not requested, %llu not delivered, %llu unreadable; %llu records lost\n",
		cmd, (unsigned long long)samples, hz, distinct,
		(unsigned long long)failed, (unsigned long long)unmatched,
		(unsigned long long)dropped, (unsigned long long)lost);
	fprintf(out, "maps:\n");
	if (maps_len)
		fwrite(maps, 1, maps_len, out);
	fprintf(out, "stacks:\n");
	for (i = 0; i < nr_stacks; i = j) {
		uint64_t count = stacks[i].count;

		for (j = i + 1; j < nr_stacks && !cmp_stack(&stacks[i], &stacks[j]); j++)
			;
		fprintf(out, "%llu", (unsigned long long)count);
		for (int k = 0; k < stacks[i].nr; k++)
			fprintf(out, " %llx", (unsigned long long)stacks[i].ips[k]);
		fputc('\n', out);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: bpf-profile [-F HZ] [-o FILE] COMMAND [ARG...]\n"
			"       bpf-profile [-F HZ] [-o FILE] -p PID -d SECONDS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int opt, hz = 499, go[2], execed[2], status = 0, cpu, nr_cpus;
	int seconds = 0;
	pid_t target = 0;
	char name[32];
	struct timespec now;
	time_t end;
	struct bpf_link *on_stack = NULL, **on_sample;
	struct profile_bpf *skel;
	struct ring_buffer *rb;
	const char *output = NULL;
	FILE *out = stdout;
	pid_t pid;
	char c;

	while ((opt = getopt(argc, argv, "+F:o:p:d:")) != -1) {
		switch (opt) {
		case 'F':
			hz = atoi(optarg);
			break;
		case 'o':
			output = optarg;
			break;
		case 'p':
			target = atoi(optarg);
			break;
		case 'd':
			seconds = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (hz <= 0 || (target ? optind < argc || target < 0 || seconds <= 0 :
			       optind >= argc || seconds))
		usage();

	/* execed: closed by the exec, for the first maps to be COMMAND's */
	if (pipe(go) || pipe2(execed, O_CLOEXEC))
		return perror("pipe"), 1;
	nr_cpus = libbpf_num_possible_cpus();
	on_sample = calloc(nr_cpus > 0 ? nr_cpus : 1, sizeof(*on_sample));
	if (nr_cpus <= 0 || !on_sample)
		return fprintf(stderr, "cannot count the CPUs\n"), 1;
	if (target) {
		pid = target;
		snprintf(name, sizeof(name), "pid %d", target);
		save_maps(pid);
		if (!maps_len)
			return fprintf(stderr, "no mappings of process %d\n", target), 1;
		goto load;
	}
	pid = fork();
	if (pid < 0)
		return perror("fork"), 1;
	if (!pid) {
		/* Start once the profiler is attached */
		close(go[1]);
		close(execed[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		close(go[0]);
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		if (write(execed[1], "x", 1) != 1)
			_exit(126);
		_exit(127);
	}
	close(go[0]);
	close(execed[1]);

load:
	skel = profile_bpf__open_and_load();
	if (!skel) {
		perror("loading profile.bpf.o");
		goto kill;
	}
	skel->bss->target_tgid = pid;
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_rec, NULL,
			      NULL);
	on_stack = bpf_program__attach(skel->progs.stack);
	if (!rb || !on_stack) {
		perror("attaching");
		goto kill;
	}
	attr.sample_freq = hz;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
				 PERF_FLAG_FD_CLOEXEC);

		/* A possible CPU may be offline */
		if (fd < 0 && errno == ENODEV)
			continue;
		if (fd >= 0)
			on_sample[cpu] = bpf_program__attach_perf_event(skel->progs.sample, fd);
		if (!on_sample[cpu]) {
			perror("sampling");
			goto kill;
		}
	}
	if (target) {
		/* For SECONDS, or until the process is gone. */
		clock_gettime(CLOCK_MONOTONIC, &now);
		end = now.tv_sec + seconds;
		while (!kill(pid, 0)) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec >= end)
				break;
			save_maps(pid);
			ring_buffer__poll(rb, 100);
		}
		ring_buffer__consume(rb);
		goto write;
	}
	if (write(go[1], "g", 1) != 1)
		goto kill;
	close(go[1]);
	if (read(execed[0], &c, 1) != 0) {
		fprintf(stderr, "%s: exec failed\n", argv[optind]);
		goto kill;
	}

	/* Run until the command exits, keeping its maps as they were. */
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		save_maps(pid);
		ring_buffer__poll(rb, 100);
	}
	ring_buffer__consume(rb);

write:

	if (output) {
		out = fopen(output, "w");
		if (!out)
			return perror(output), 1;
	}
	write_profile(out, target ? name : argv[optind], hz, skel->bss->lost);
	if (out != stdout)
		fclose(out);
	for (cpu = 0; cpu < nr_cpus; cpu++)
		bpf_link__destroy(on_sample[cpu]);
	bpf_link__destroy(on_stack);
	ring_buffer__free(rb);
	profile_bpf__destroy(skel);
	/* A process sampled not once: gone, or never on a CPU. */
	if (target)
		return samples ? 0 : 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;

kill:
	if (target)
		return 1;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 1;
}
