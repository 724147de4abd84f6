// SPDX-License-Identifier: GPL-2.0
/*
 * The dynamic linker as the registrar of .sframe sections, without an
 * LD_AUDIT module: run against the glibc of userspace/glibc, whose ld.so
 * calls PR_ADD_SFRAME for each object it maps and PR_REMOVE_SFRAME
 * before dlclose() unmaps one, and registers the tables made for
 * libraries without SFrame data (libnosf.so's, in tables/ next to it).
 *
 * With --old-kernel, on a kernel without SFrame registration (the host's):
 * the prctl() fails, and the program loads, calls and unloads its
 * libraries as on any kernel.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>

#include "../kselftest_harness.h"
#include "../../include/sframe-filter.h"
#include "callchain.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME		0x6474e554
#endif

int libsf(int x);

struct sframe_arg {
	uint64_t flags;
	uint64_t sframe_addr;
	uint64_t sframe_size;
	uint64_t text_addr;
	uint64_t text_size;
};

static int sframe_prctl(int option, struct sframe_arg *arg)
{
	return prctl(option, arg, sizeof(*arg), 0, 0) ? -errno : 0;
}

struct object {
	const char *name;	/* a part of its path */
	struct sframe_arg arg;	/* its section and first text range */
	int texts;		/* its executable PT_LOADs */
	bool found;
};

static int find_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct object *obj = data;
	const ElfW(Phdr) *ph;

	if (!info->dlpi_name || !strstr(info->dlpi_name, obj->name))
		return 0;
	obj->found = true;
	for (ph = info->dlpi_phdr; ph < &info->dlpi_phdr[info->dlpi_phnum]; ph++) {
		if (ph->p_type == PT_GNU_SFRAME) {
			obj->arg.sframe_addr = info->dlpi_addr + ph->p_vaddr;
			obj->arg.sframe_size = ph->p_memsz;
		} else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
			   !obj->texts++) {
			obj->arg.text_addr = info->dlpi_addr + ph->p_vaddr;
			obj->arg.text_size = ph->p_memsz;
		}
	}
	return 1;
}

/* The loaded object whose path has @name, or NULL. */
static struct object *find(struct object *obj, const char *name)
{
	memset(obj, 0, sizeof(*obj));
	obj->name = name;
	dl_iterate_phdr(find_one, obj);
	return obj->found ? obj : NULL;
}

/* Is it registered?  Adding it again finds it there. */
static int registered(struct object *obj)
{
	return sframe_prctl(PR_ADD_SFRAME, &obj->arg);
}

static int call_lib(void *dl, const char *fn)
{
	int (*f)(int) = (int (*)(int))dlsym(dl, fn);

	return f ? f(4) : -1;
}

/*
 * Count the events of @pid (0: this thread), from its next exec() on if
 * @on_exec.
 */
static int count_event(const char *event, const char *filter, pid_t pid,
		       bool on_exec)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.exclude_hv = 1,
	};
	char path[96];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path),
		 "/sys/kernel/tracing/events/syscalls/%s/id", event);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (fscanf(f, "%llu", &attr.config) != 1)
		attr.config = -1ULL;
	fclose(f);
	attr.disabled = on_exec;
	attr.enable_on_exec = on_exec;
	fd = syscall(__NR_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* Count this thread's prctl(@option) calls. */
static int count_prctl(int option)
{
	char filter[32];

	snprintf(filter, sizeof(filter), "option == %d", option);
	return count_event("sys_enter_prctl", filter, 0, false);
}

/* Count this thread's prctl() calls that return @ret. */
static int count_prctl_ret(int ret)
{
	char filter[32];

	snprintf(filter, sizeof(filter), "ret == %d", ret);
	return count_event("sys_exit_prctl", filter, 0, false);
}

static long counted(int fd)
{
	uint64_t n;

	return read(fd, &n, sizeof(n)) == sizeof(n) ? (long)n : -1;
}

/*
 * The objects that ld.so mapped at start: the C library (built with
 * SFrame) and the program's library.  The program, ld.so and the vDSO are
 * the kernel's; all of them are registered before main() runs.
 */
TEST(at_start)
{
	const char *const names[] = { "libc.so.6", "libsf.so", "ld-linux" };
	struct object obj;

	if (!kernel_has("sframe_prctl"))
		SKIP(return, "no SFrame registration in this kernel");
	ASSERT_EQ(13, libsf(4));
	for (int i = 0; i < 3; i++) {
		ASSERT_NE(NULL, find(&obj, names[i])) TH_LOG("%s not loaded", names[i]);
		ASSERT_NE(0, obj.arg.sframe_addr) TH_LOG("%s has no .sframe", names[i]);
		EXPECT_EQ(-EEXIST, registered(&obj)) TH_LOG("%s", names[i]);
	}
}

/*
 * dlopen() registers; dlclose() removes: its one PR_REMOVE_SFRAME
 * succeeds, so the registration was still there for ld.so to remove
 * (the kernel would also drop it at the unmapping).
 */
TEST(dlopen_dlclose)
{
	struct object obj;
	int removed;
	void *dl;

	if (!kernel_has("sframe_prctl"))
		SKIP(return, "no SFrame registration in this kernel");
	dl = dlopen("libsf-dl.so", RTLD_NOW);
	ASSERT_NE(NULL, dl) TH_LOG("%s", dlerror());
	ASSERT_NE(NULL, find(&obj, "libsf-dl.so"));
	ASSERT_NE(0, obj.arg.sframe_addr);
	EXPECT_EQ(13, call_lib(dl, "libsf_dl"));
	EXPECT_EQ(-EEXIST, registered(&obj));

	removed = count_prctl_ret(0);
	ASSERT_LE(0, removed) TH_LOG("no prctl() syscall tracepoint: %s",
				     strerror(-removed));
	ASSERT_EQ(0, dlclose(dl));
	EXPECT_EQ(1, counted(removed));
	EXPECT_EQ(NULL, find(&obj, "libsf-dl.so"));
}

/*
 * The calls ld.so makes, counted by the syscall tracepoint of prctl(),
 * filtered on the option: one PR_ADD_SFRAME per executable PT_LOAD of a
 * library with SFrame, one PR_REMOVE_SFRAME at its dlclose(), and no
 * call at all for a library without SFrame.
 */

TEST(calls)
{
	int adds, removes, texts;
	struct object obj;
	void *sf, *nosf;

	if (!kernel_has("sframe_prctl"))
		SKIP(return, "no SFrame registration in this kernel");
	adds = count_prctl(PR_ADD_SFRAME);
	removes = count_prctl(PR_REMOVE_SFRAME);
	ASSERT_LE(0, adds) TH_LOG("no prctl() syscall tracepoint: %s", strerror(-adds));
	ASSERT_LE(0, removes);

	nosf = dlopen("libnosf.so", RTLD_NOW);
	ASSERT_NE(NULL, nosf) TH_LOG("%s", dlerror());
	ASSERT_NE(NULL, find(&obj, "libnosf.so"));
	ASSERT_EQ(0, obj.arg.sframe_addr);
	EXPECT_EQ(0, counted(adds));

	sf = dlopen("libsf-dl.so", RTLD_NOW);
	ASSERT_NE(NULL, sf) TH_LOG("%s", dlerror());
	ASSERT_NE(NULL, find(&obj, "libsf-dl.so"));
	texts = obj.texts;
	ASSERT_LT(0, texts);
	EXPECT_EQ(texts, counted(adds));
	EXPECT_EQ(0, counted(removes));

	ASSERT_EQ(0, dlclose(sf));
	EXPECT_EQ(1, counted(removes));
	ASSERT_EQ(0, dlclose(nosf));
	EXPECT_EQ(texts, counted(adds));
	EXPECT_EQ(1, counted(removes));
}

/*
 * A kernel that refuses the registration changes nothing for the
 * program: here the process's registrations are at the kernel's cap
 * (ENOSPC), filled with the C library's section for pages of their own.
 * (A kernel without the series refuses with EINVAL:
 * check/host/glibc-old-kernel.sh runs --old-kernel on the host's.)
 */
TEST(refused)
{
	long page = sysconf(_SC_PAGESIZE);
	struct object libc, obj;
	size_t size = 4097 * page;
	int i, refusals, ret = 0;
	char *text;
	void *dl;

	if (!kernel_has("sframe_prctl"))
		SKIP(return, "no SFrame registration in this kernel");
	ASSERT_NE(NULL, find(&libc, "libc.so.6"));
	text = mmap(NULL, size, PROT_READ | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, text);
	libc.arg.text_size = page;
	for (i = 0; i < 4097 && !ret; i++) {
		libc.arg.text_addr = (uintptr_t)text + i * page;
		ret = registered(&libc);
	}
	ASSERT_EQ(-ENOSPC, ret);

	/* ld.so asks, once per executable segment, and is refused. */
	refusals = count_prctl_ret(-ENOSPC);
	ASSERT_LE(0, refusals);
	for (i = 0; i < 2; i++) {
		dl = dlopen("libsf-dl.so", RTLD_NOW);
		ASSERT_NE(NULL, dl) TH_LOG("%s", dlerror());
		ASSERT_NE(NULL, find(&obj, "libsf-dl.so"));
		EXPECT_EQ((i + 1) * obj.texts, counted(refusals));
		EXPECT_EQ(13, call_lib(dl, "libsf_dl"));
		ASSERT_EQ(0, dlclose(dl));
	}
	EXPECT_EQ(13, libsf(4));
}

/*
 * Make prctl(PR_ADD_SFRAME) and prctl(PR_REMOVE_SFRAME) fail with @err
 * for this thread and its children, as a sandbox's seccomp filter that
 * returns an error for options it does not know.  A filter cannot be
 * removed: the harness runs each test in a child of its own.
 */
static int refuse_sframe_prctl(int err)
{
	return sframe_prctl_filter(SECCOMP_RET_ERRNO | err);
}

/*
 * A seccomp filter installed after start that returns an error (not one
 * that kills): dlopen(), the library's code and dlclose() work, and each
 * load still asks, once per executable segment, since a refusal is about
 * one object.  The kernel never sees the calls: they are counted on the
 * syscall's exit, with the filter's error.
 */
TEST(seccomp_errno)
{
	struct object obj;
	int refusals, i;
	void *dl;

	if (!kernel_has("sframe_prctl"))
		SKIP(return, "no SFrame registration in this kernel");
	ASSERT_EQ(0, refuse_sframe_prctl(EPERM));
	refusals = count_prctl_ret(-EPERM);
	ASSERT_LE(0, refusals) TH_LOG("no prctl() syscall tracepoint: %s",
				      strerror(-refusals));
	for (i = 0; i < 2; i++) {
		dl = dlopen("libsf-dl.so", RTLD_NOW);
		ASSERT_NE(NULL, dl) TH_LOG("%s", dlerror());
		ASSERT_NE(NULL, find(&obj, "libsf-dl.so"));
		EXPECT_EQ(13, call_lib(dl, "libsf_dl"));
		/* Not registered, so not removed: no PR_REMOVE_SFRAME. */
		ASSERT_EQ(0, dlclose(dl));
		EXPECT_EQ((i + 1) * obj.texts, counted(refusals));
	}
	EXPECT_EQ(-EPERM, registered(&obj));
}

/*
 * A filter inherited at exec, which returns ENOSYS (what sandboxes return
 * most) for the options: ld.so asks the kernel once, with a structure
 * that the kernel could not read, takes the error for "no registration
 * in this process", and makes no other call, neither for the libraries
 * of the start nor at dlopen().  The parent counts the child's calls from
 * its exec() on.  (Before, ld.so only stopped at EINVAL: one refused call
 * per object.)
 */
static int under_filter(void)
{
	void *dl = dlopen("libsf-dl.so", RTLD_NOW);

	if (!dl || call_lib(dl, "libsf_dl") != 13 || dlclose(dl) ||
	    libsf(4) != 13)
		return 1;
	return 0;
}

TEST(seccomp_at_start)
{
	int go[2], refused, calls, status;
	char c = 0;
	pid_t pid;

	if (!kernel_has("sframe_prctl"))
		SKIP(return, "no SFrame registration in this kernel");
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1 || refuse_sframe_prctl(ENOSYS))
			_exit(3);
		execl("/proc/self/exe", "registrar", "--under-filter", NULL);
		_exit(2);
	}
	close(go[0]);
	refused = count_event("sys_exit_prctl", "ret == -38", pid, true);
	calls = count_event("sys_exit_prctl", "ret < 0", pid, true);
	c = 1;
	ASSERT_EQ(1, write(go[1], &c, 1));
	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_LE(0, refused) TH_LOG("no prctl() syscall tracepoint: %s",
				     strerror(-refused));
	ASSERT_LE(0, calls);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(1, counted(refused));
	EXPECT_EQ(1, counted(calls));
}

/*
 * GLIBC_TUNABLES=glibc.rtld.sframe=0 turns registration off: run again
 * with it (--tunable-off), the C library is not registered.
 */
static int tunable_off(void)
{
	struct object obj;

	if (!find(&obj, "libc.so.6") || !obj.arg.sframe_addr)
		return 10;
	/* Not registered: this registration is the first. */
	return registered(&obj) ? 11 : 0;
}

TEST(tunable)
{
	char *const envp[] = { "GLIBC_TUNABLES=glibc.rtld.sframe=0", NULL };
	int status;
	pid_t pid;

	if (!kernel_has("sframe_prctl"))
		SKIP(return, "no SFrame registration in this kernel");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		execle("/proc/self/exe", "registrar", "--tunable-off", NULL, envp);
		_exit(2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * The tables of patch 0002: libnosf.so has no SFrame data, and
 * pipeline/selftests.sh made its table from its .eh_frame, into tables/
 * next to this program, where glibc.rtld.sframe_table_dir points the
 * children below.
 */

/* Is the table of a library mapped (a path of a build-id directory)? */
static bool table_mapped(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/.build-id/") && strstr(line, ".sframe\n"))
			found = true;
	fclose(f);
	return found;
}

/* The path of the table of libnosf.so under @dir, from its build ID. */
static int build_id_note(struct dl_phdr_info *info, size_t size, void *data)
{
	char *path = data;
	const ElfW(Phdr) *ph;

	if (!info->dlpi_name || !strstr(info->dlpi_name, "libnosf.so"))
		return 0;
	for (ph = info->dlpi_phdr; ph < &info->dlpi_phdr[info->dlpi_phnum]; ph++) {
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (end - p >= (long)sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *n = (const void *)p;
			size_t name = (n->n_namesz + 3) & ~3UL;
			size_t desc = (n->n_descsz + 3) & ~3UL;
			const unsigned char *id;

			p += sizeof(*n);
			if (name + desc > (size_t)(end - p))
				break;
			id = (const unsigned char *)p + name;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(p, "GNU", 4) && n->n_descsz >= 2 &&
			    n->n_descsz <= 64) {
				char *q = path + strlen(path);

				q += sprintf(q, "/.build-id/%02x/", id[0]);
				for (unsigned int i = 1; i < n->n_descsz; i++)
					q += sprintf(q, "%02x", id[i]);
				strcpy(q, ".sframe");
				return 1;
			}
			p += name + desc;
		}
	}
	return 0;
}

/* The directory of this program's tables, tables/ next to it. */
static int tables_dir(char *dir, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", dir, size - 16);
	char *slash;

	if (n <= 0)
		return -1;
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (!slash)
		return -1;
	strcpy(slash, "/tables");
	return 0;
}

/*
 * Fork and exec this program with @arg (and @arg2, if not NULL), with
 * @tunables as its only environment.  An argument vector, not execle():
 * there a NULL @arg2 would end the arguments, and the NULL meant to end
 * them would be taken for the environment, which would then be empty.
 */
static int run_child(const char *tunables, const char *arg, const char *arg2)
{
	char *const argv[] = { "registrar", (char *)arg, (char *)arg2, NULL };
	char env[sizeof("GLIBC_TUNABLES=") + 600];
	char *const envp[] = { env, NULL };
	int status;
	pid_t pid;

	/* A tunable cut short would name another directory. */
	if (snprintf(env, sizeof(env), "GLIBC_TUNABLES=%s", tunables) >=
	    (int)sizeof(env))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		execve("/proc/self/exe", argv, envp);
		_exit(2);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * --table-dlclose: dlopen() registers libnosf.so's table, one successful
 * PR_ADD_SFRAME per executable segment; dlclose() removes it (one
 * successful PR_REMOVE_SFRAME) and unmaps it.  Without GLIBC_TUNABLES,
 * which points ld.so at the table, it fails at once (9): it could only
 * count a table that is not looked up.
 */
static int child_table_dlclose(void)
{
	int ok = count_prctl_ret(0);
	struct object obj;
	void *dl;
	long n;

	if (!getenv("GLIBC_TUNABLES"))
		return 9;
	if (ok < 0 || table_mapped())
		return 10;
	dl = dlopen("libnosf.so", RTLD_NOW);
	if (!dl || !find(&obj, "libnosf.so") || obj.arg.sframe_addr)
		return 11;
	n = counted(ok);
	if (n != obj.texts || !table_mapped()) {
		printf("# %ld successful prctl() calls, %d executable segments, table %smapped\n",
		       n, obj.texts, table_mapped() ? "" : "not ");
		return 12;
	}
	if (call_lib(dl, "libnosf") != 13 || dlclose(dl))
		return 13;
	if (counted(ok) != obj.texts + 1)
		return 14;
	return table_mapped() ? 15 : 0;
}

TEST(table_dlclose)
{
	char dir[512], tunables[600];

	if (!kernel_has("sframe_prctl"))
		SKIP(return, "no SFrame registration in this kernel");
	ASSERT_EQ(0, tables_dir(dir, sizeof(dir)));
	snprintf(tunables, sizeof(tunables), "glibc.rtld.sframe_table_dir=%s", dir);
	EXPECT_EQ(0, run_child(tunables, "--table-dlclose", NULL));
}

/*
 * The deferred chain of a call of libnosf() at @fn, from this one call
 * site, taken by a breakpoint at its first instruction, in @cc.  Its
 * entry 1 is the return address here only if the kernel read the table:
 * libnosf() is a leaf without a frame, and the frame pointers that the
 * walk falls back on without a table lead elsewhere (to this function's
 * caller, if it keeps them) or nowhere.  Not static: the program is
 * linked with -rdynamic, so that dladdr1() can tell whether an address
 * lies in this function.
 */
__attribute__((noipa)) int chain_of_call(const void *fn, struct callchain *cc)
{
	struct callchain_event ev;
	int ret = -1;

	if (callchain_open(&ev, fn))
		return -1;
	if (((int (*)(int))fn)(4) == 13)
		ret = callchain_read(&ev, cc);
	callchain_close(&ev);
	if (!ret && (cc->nr < 1 || cc->ips[0] != (uintptr_t)fn))
		ret = -1;
	return ret;
}

struct intact_chain {
	const void *fn;
	struct callchain cc;
	int ret;
};

static void *intact_chain(void *arg)
{
	struct intact_chain *in = arg;

	in->ret = chain_of_call(in->fn, &in->cc);
	return NULL;
}

/* Whether the return address @ra is in chain_of_call() */
static bool in_chain_of_call(uint64_t ra)
{
	const ElfW(Sym) *sym;
	Dl_info info;

	return dladdr1((void *)(uintptr_t)(ra - 1), &info, (void **)&sym,
		       RTLD_DL_SYMENT) && sym &&
	       info.dli_saddr == (void *)chain_of_call &&
	       ra - 1 - (uintptr_t)info.dli_saddr < sym->st_size;
}

/*
 * --table-truncated PATH: libnosf.so's table, a copy at PATH, is
 * registered at dlopen(), then truncated to nothing.  A stack walked
 * from the library's code makes the kernel read the table, whose pages
 * are gone: the kernel copes with the fault, and the process, whose
 * dynamic linker never reads the mapping, is not killed (SIGBUS).
 * dlclose() still removes the registration.
 *
 * That the kernel read the truncated table, rather than something it
 * kept of it, shows in the chain: before the truncation, in a thread of
 * its own (each task keeps its own cache of lookups, so that this one's
 * walk below still reads the table), the table gives the call site of
 * chain_of_call() as entry 1; after it, the walk cannot.
 */
static int child_table_truncated(const char *path)
{
	struct intact_chain in = { 0 };
	int ok = count_prctl_ret(0);
	struct callchain cc;
	struct object obj;
	pthread_t thread;
	void *dl;

	if (!getenv("GLIBC_TUNABLES"))
		return 9;
	if (ok < 0)
		return 10;
	dl = dlopen("libnosf.so", RTLD_NOW);
	if (!dl || !find(&obj, "libnosf.so"))
		return 11;
	if (counted(ok) != obj.texts || !table_mapped())
		return 12;
	in.fn = dlsym(dl, "libnosf");
	/* With the table, entry 1 is the call site in chain_of_call(). */
	if (!in.fn || pthread_create(&thread, NULL, intact_chain, &in) ||
	    pthread_join(thread, NULL) || in.ret || in.cc.nr < 2 ||
	    !in_chain_of_call(in.cc.ips[1]))
		return 13;
	if (truncate(path, 0))
		return 14;
	if (chain_of_call(in.fn, &cc))
		return 16;
	printf("# a chain of %llu frames from the library of the truncated table (%llu with it)\n",
	       (unsigned long long)cc.nr, (unsigned long long)in.cc.nr);
	if (cc.nr >= 2 && cc.ips[1] == in.cc.ips[1]) {
		printf("# entry 1, %#llx, is the table's after the truncation\n",
		       (unsigned long long)cc.ips[1]);
		return 19;
	}
	if (dlclose(dl) || counted(ok) != obj.texts + 1)
		return 17;
	return table_mapped() ? 18 : 0;
}

/* Copy the file @from to @to. */
static int copy_file(const char *from, const char *to)
{
	char buf[4096];
	FILE *in = fopen(from, "r"), *out = fopen(to, "w");
	size_t n;
	int ret = -1;

	if (in && out) {
		while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
			if (fwrite(buf, 1, n, out) != n)
				break;
		ret = ferror(in) || ferror(out) ? -1 : 0;
	}
	if (in)
		fclose(in);
	if (out && fclose(out))
		ret = -1;
	return ret;
}

TEST(table_truncated)
{
	char tmp[] = "/tmp/sframe-tables.XXXXXX";
	char dir[512], rel[200] = "", from[720], to[720], tunables[600];
	char *slash;
	void *dl;

	if (!kernel_has("sframe_prctl"))
		SKIP(return, "no SFrame registration in this kernel");
	ASSERT_EQ(0, tables_dir(dir, sizeof(dir)));
	/* The table's name, /.build-id/xx/yyyy.sframe, from the build ID. */
	dl = dlopen("libnosf.so", RTLD_NOW);
	ASSERT_NE(NULL, dl) TH_LOG("%s", dlerror());
	ASSERT_EQ(1, dl_iterate_phdr(build_id_note, rel));
	ASSERT_EQ(0, dlclose(dl));
	snprintf(from, sizeof(from), "%s%s", dir, rel);
	ASSERT_NE(NULL, mkdtemp(tmp));
	snprintf(to, sizeof(to), "%s/.build-id", tmp);
	ASSERT_EQ(0, mkdir(to, 0755));
	snprintf(to, sizeof(to), "%s%s", tmp, rel);
	slash = strrchr(to, '/');
	*slash = '\0';
	ASSERT_EQ(0, mkdir(to, 0755));
	*slash = '/';
	ASSERT_EQ(0, copy_file(from, to)) TH_LOG("no table %s", from);
	snprintf(tunables, sizeof(tunables), "glibc.rtld.sframe_table_dir=%s", tmp);
	EXPECT_EQ(0, run_child(tunables, "--table-truncated", to));
	unlink(to);
	*slash = '\0';
	rmdir(to);
	snprintf(to, sizeof(to), "%s/.build-id", tmp);
	rmdir(to);
	rmdir(tmp);
}

/* Run on a kernel without the series (the host's): --old-kernel. */
static int old_kernel(void)
{
	struct object obj;
	void *dl;
	int err;

	if (!find(&obj, "libc.so.6") || !obj.arg.sframe_addr) {
		printf("libc.so.6 has no .sframe\n");
		return 1;
	}
	err = registered(&obj);
	if (!err || err == -EEXIST) {
		printf("PR_ADD_SFRAME works: this kernel has SFrame registration\n");
		return 1;
	}
	dl = dlopen("libsf-dl.so", RTLD_NOW);
	if (!dl || call_lib(dl, "libsf_dl") != 13 || dlclose(dl) ||
	    libsf(4) != 13) {
		printf("the libraries do not work\n");
		return 1;
	}
	printf("the program runs unchanged; PR_ADD_SFRAME fails with %s\n",
	       strerror(-err));
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* Fork and exec the program to exit at once, with @envp, @n times; in ns. */
static long start_batch(char *const envp[], int n)
{
	struct timespec t0, t1;
	int status, i;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			return -1;
		if (!pid) {
			execle("/proc/self/exe", "registrar", "--exit", NULL,
			       envp);
			_exit(2);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0.tv_sec) * 1000000000L + t1.tv_nsec - t0.tv_nsec;
}

/*
 * --start-cost N: the start of a process with four objects with SFrame
 * data that ld.so registers (the C library, libm, libsf.so and, preloaded,
 * libsf-dl.so; the program, ld.so and the vDSO are the kernel's), with
 * registration on and off, in N batches of 5 starts each, alternated: the
 * median of the batches, per start.  Batches, because a guest's clock may
 * only tick every few milliseconds.
 */
#define START_BATCH	5

static int start_cost(int n)
{
	char *const on[] = { "LD_PRELOAD=libsf-dl.so libm.so.6",
			     "GLIBC_TUNABLES=glibc.rtld.sframe=1", NULL };
	char *const off[] = { "LD_PRELOAD=libsf-dl.so libm.so.6",
			      "GLIBC_TUNABLES=glibc.rtld.sframe=0", NULL };
	long *t_on, *t_off, m_on, m_off, pair;
	struct timespec t0, t1;
	struct object obj;
	int i, ret = 1;

	if (n < 1 || n > 10000)
		return 1;
	t_on = calloc(n, sizeof(*t_on));
	t_off = calloc(n, sizeof(*t_off));
	if (!t_on || !t_off)
		goto out;
	for (i = 0; i < n; i++) {
		t_on[i] = start_batch(on, START_BATCH);
		t_off[i] = start_batch(off, START_BATCH);
		if (t_on[i] < 0 || t_off[i] < 0) {
			printf("the program did not start and exit\n");
			goto out;
		}
	}
	if (!find(&obj, "libsf.so"))
		goto out;
	/* The registration alone, many times over for a coarse clock. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 1000; i++)
		if (sframe_prctl(PR_REMOVE_SFRAME, &obj.arg) ||
		    sframe_prctl(PR_ADD_SFRAME, &obj.arg))
			goto out;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pair = ((t1.tv_sec - t0.tv_sec) * 1000000000L + t1.tv_nsec -
		t0.tv_nsec) / 1000;
	qsort(t_on, n, sizeof(*t_on), cmp_long);
	qsort(t_off, n, sizeof(*t_off), cmp_long);
	m_on = t_on[n / 2] / START_BATCH;
	m_off = t_off[n / 2] / START_BATCH;
	printf("start of a process with 4 objects registered by ld.so, median of %d batches of %d: registration on %ld us, off %ld us, %+ld us (%+.1f%%)\n",
	       n, START_BATCH, m_on / 1000, m_off / 1000,
	       (m_on - m_off) / 1000, 100.0 * (m_on - m_off) / m_off);
	printf("PR_REMOVE_SFRAME then PR_ADD_SFRAME of libsf.so, 1000 times: %ld ns a pair\n",
	       pair);
	ret = 0;
out:
	free(t_on);
	free(t_off);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--old-kernel"))
		return old_kernel();
	if (argc == 2 && !strcmp(argv[1], "--tunable-off"))
		return tunable_off();
	if (argc == 2 && !strcmp(argv[1], "--exit"))
		return 0;
	if (argc == 2 && !strcmp(argv[1], "--under-filter"))
		return under_filter();
	if (argc == 2 && !strcmp(argv[1], "--table-dlclose"))
		return child_table_dlclose();
	if (argc == 3 && !strcmp(argv[1], "--table-truncated"))
		return child_table_truncated(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--start-cost"))
		return start_cost(atoi(argv[2]));
	return test_harness_run(argc, argv);
}
