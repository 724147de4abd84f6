// SPDX-License-Identifier: GPL-2.0
/*
 * eh2sframe: make an SFrame V3 table from the DWARF call frame information
 * of an ELF executable or shared object (x86_64, AArch64), without
 * rebuilding it.
 *
 *	eh2sframe [-v] -o FILE OBJECT	write the table to FILE
 *	eh2sframe [-v] [-f] -d DIR PATH...
 *					write DIR/.build-id/xx/yyyy.sframe for
 *					each OBJECT, or each ELF executable and
 *					shared object under a directory PATH
 *	eh2sframe [-v] -s OBJECT...	only count what would be converted
 *
 * A function is converted only if every row of its table fits SFrame: the
 * CFA at SP or FP plus a constant, the return address where the ABI keeps
 * it (x86_64: at CFA - 8; AArch64: in LR or at CFA + k, signed or not),
 * the frame pointer unsaved or at CFA + k.  Any other function is left out,
 * as gas leaves it out, and counted by the reason of its first row that
 * does not fit: an unwinder that finds no SFrame for a PC falls back to
 * frame pointers, which is what the function had before.
 *
 * The table's function starts are PC-relative, computed as if the table
 * were at the object's lowest load address, the smallest p_vaddr of its
 * PT_LOAD segments.  The table is
 * then the same bytes whatever address the object was linked at: prelink,
 * or a link with -Ttext-segment and a fixed --build-id, moves an object
 * and keeps the build-id that names its table.  Whoever maps it tells the
 * kernel where that address is (the load bias plus that p_vaddr), or adds
 * the distance from there to the table to every start.
 *
 * Each line of output is "FILE key=value...", for scripts to read.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "object.h"

/*
 * Write @buf as @name in the directory open at @dfd (or AT_FDCWD): into a
 * new file, mode 0644 whatever the umask (the tables are read by every
 * user's processes), flushed to the disk, then renamed over @name and the
 * rename flushed too.  Readers see the whole table or none, and a crash
 * cannot leave a partial table in place that would look current for
 * ever, as the build-id in its name says it is.
 */
static int write_file(int dfd, const char *name, const char *buf,
		      size_t size)
{
	char tmp[PATH_MAX];
	int fd, err = 0;
	size_t done = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp%d", name, getpid()) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	/* One a killed run of the same pid left */
	unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644))
		err = -errno;
	while (!err && done < size) {
		ssize_t n = write(fd, buf + done, size - done);

		if (n < 0 && errno != EINTR)
			err = -errno;
		else if (!n)
			err = -EIO;
		else if (n > 0)
			done += n;
	}
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(dfd, tmp, dfd, name))
		err = -errno;
	if (err) {
		unlinkat(dfd, tmp, 0);
		return err;
	}
	/* The rename is in the directory: flush it as well. */
	if (dfd != AT_FDCWD && fsync(dfd))
		return -errno;
	return 0;
}

/* -f: write tables that are there already */
static bool force;

/*
 * Whether @name in the directory open at @dfd holds @size bytes equal to
 * @buf with the mode that write_file() gives (a table an older converter
 * wrote under a umask of 077 is of no use to other users' processes),
 * and, for root, is one that no one else could have written.
 */
static bool same_file(int dfd, const char *name, const char *buf,
		      size_t size)
{
	char chunk[65536];
	size_t done = 0;
	struct stat st;
	bool same;
	int fd;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
		    O_CLOEXEC);
	if (fd < 0)
		return false;
	same = !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	       (st.st_mode & 07777) == 0644 && (uint64_t)st.st_size == size &&
	       (geteuid() || !st.st_uid);
	while (same && done < size) {
		size_t want = size - done < sizeof(chunk) ? size - done :
							    sizeof(chunk);
		ssize_t n = read(fd, chunk, want);

		if (n < 0 && errno == EINTR)
			continue;
		same = n > 0 && !memcmp(chunk, buf + done, n);
		if (same)
			done += n;
	}
	close(fd);
	return same;
}

/*
 * @o's table, as @name in the directory open at @dfd; @path for messages.
 * A table there with the same bytes is kept (current=1): one that differs
 * was made by another version of the converter (one that converted less,
 * or that placed a non-PIE program's functions from address 0 rather than
 * from its lowest load address) and is replaced.
 */
static int write_table(struct object *o, int dfd, const char *name,
		       const char *path)
{
	char extra[32], *buf;
	size_t size;
	int err;

	/* Debug info files and objects without CFI: nothing to unwind by */
	if (!o->nr_funcs) {
		object_print(o, " table_size=0");
		return 0;
	}
	buf = encode(o, 0, &size);
	if (!buf)
		return 1;

	if (dfd != AT_FDCWD && !force && same_file(dfd, name, buf, size)) {
		free(buf);
		object_print(o, " current=1");
		return 0;
	}
	err = write_file(dfd, name, buf, size);
	free(buf);
	if (err) {
		fprintf(stderr, "%s: %s\n", path, strerror(-err));
		return 1;
	}
	snprintf(extra, sizeof(extra), " table_size=%zu", size);
	object_print(o, extra);
	return 0;
}

/*
 * The directory @name in the one open at @dfd, made if missing (mode
 * 0755), opened without following a symbolic link unless @follow.  Run by root, it must
 * be root's and writable by no one else: the tables in it are trusted by
 * every process, set-user-ID programs included, and someone who could
 * write there could put theirs, or a symbolic link that sends root's
 * writes elsewhere.  Returns the open directory, or -1 with a message.
 */
static int open_dir(int dfd, const char *name, const char *path,
		    bool follow)
{
	bool made = !mkdirat(dfd, name, 0755);
	struct stat st;
	int fd;

	if (!made && errno != EEXIST) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
		    (follow ? 0 : O_NOFOLLOW));
	/* One made here is 0755 whatever the umask, as the tables are 0644. */
	if (fd < 0 || (made && fchmod(fd, 0755)) || fstat(fd, &st)) {
		fprintf(stderr, "%s: %s\n", path,
			errno == ELOOP || errno == ENOTDIR ?
			"not a directory (a symbolic link?): not written" :
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!geteuid() && (st.st_uid || (st.st_mode & 022))) {
		fprintf(stderr, "%s: not root's, or writable by others: not written\n",
			path);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * DIR/.build-id/xx/yyyy.sframe, made if missing; kept if there already.
 * Each level is opened in the one above, so that no symbolic link in the
 * table directory takes a write elsewhere; DIR itself may be one, as its
 * owner named it.
 */
static int write_build_id(struct object *o, const char *dir)
{
	char path[PATH_MAX], hex[2 * sizeof(o->build_id) + sizeof(".sframe")];
	int fd = AT_FDCWD, next, r, i, len[3];

	if (!o->build_id_len) {
		fprintf(stderr, "%s: no build-id\n", o->path);
		return 1;
	}
	for (i = 0; i < (int)o->build_id_len; i++)
		sprintf(hex + 2 * i, "%02x", o->build_id[i]);
	strcpy(hex + 2 * i, ".sframe");
	/* PATH, and the ends of its directories' names in it */
	len[0] = snprintf(path, sizeof(path), "%s", dir);
	len[1] = len[0] + strlen("/.build-id");
	len[2] = len[1] + 3;
	if (snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s", dir, hex,
		     hex + 2) >= (int)sizeof(path)) {
		fprintf(stderr, "%s: %s\n", dir, strerror(ENAMETOOLONG));
		return 1;
	}
	for (i = 0; i < 3; i++) {
		char c = path[len[i]];

		/* the directory's own name, for messages, then PATH again */
		path[len[i]] = '\0';
		next = open_dir(fd, i ? path + len[i - 1] + 1 : path, path, !i);
		path[len[i]] = c;
		if (fd != AT_FDCWD)
			close(fd);
		if (next < 0)
			return 1;
		fd = next;
	}
	r = write_table(o, fd, hex + 2, path);
	close(fd);
	return r;
}

/* What to do with each object, for the tree walk's callback too */
static char mode;
static const char *out_path, *out_dir;
static int status;
static unsigned long walk_skipped;

/* Convert @path, or the file open at @fd (-1: open @path) */
static void do_object(const char *path, int fd)
{
	struct object o;
	int r = 0;
	Elf *elf = object_load(path, &o, &fd);

	if (!elf) {
		status = status ? status : 1;
		return;
	}
	if (mode == 'o')
		r = write_table(&o, AT_FDCWD, out_path, out_path);
	else if (mode == 'd')
		r = write_build_id(&o, out_dir);
	else
		object_print(&o, "");
	if (r > status)
		status = r;
	object_unload(&o, elf, fd);
}

/*
 * The file @path that the walk met, opened once, if it is an object to
 * convert: a regular file still (no FIFO to block on, no symbolic link
 * put in its place since nftw saw @st), a 64-bit little-endian ELF
 * executable or shared object of a machine with an SFrame ABI and, when
 * root converts, owned by root and writable by no one else, since the
 * table written for it is trusted by set-user-ID programs.  Anything else
 * under a prefix is skipped quietly (returns -1), where naming it is an
 * error; a file that cannot be opened is an error (-2).
 */
static int walk_open(const char *path, const struct stat *st)
{
	unsigned char id[EI_NIDENT];
	unsigned char hw[4];
	struct stat fst;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ELOOP || errno == ENXIO)
			return -1;
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -2;
	}
	if (fstat(fd, &fst) || !S_ISREG(fst.st_mode) ||
	    fst.st_dev != st->st_dev || fst.st_ino != st->st_ino ||
	    (!geteuid() && (fst.st_uid || (fst.st_mode & (S_IWGRP | S_IWOTH)))))
		goto skip;
	if (pread(fd, id, sizeof(id), 0) != sizeof(id) ||
	    memcmp(id, ELFMAG, SELFMAG) || id[EI_CLASS] != ELFCLASS64 ||
	    id[EI_DATA] != ELFDATA2LSB ||
	    pread(fd, hw, sizeof(hw), EI_NIDENT) != sizeof(hw))
		goto skip;
	/* e_type and e_machine, little-endian whatever the host */
	if ((hw[0] | hw[1] << 8) != ET_EXEC && (hw[0] | hw[1] << 8) != ET_DYN)
		goto skip;
	if (!arch_find(hw[2] | hw[3] << 8))
		goto skip;
	if (fcntl(fd, F_SETFL, 0))
		goto skip;
	return fd;
skip:
	close(fd);
	return -1;
}

static int walk_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	int fd;

	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	fd = walk_open(path, st);
	if (fd >= 0)
		do_object(path, fd);
	else if (fd == -1)
		walk_skipped++;
	else
		status = status ? status : 1;
	return 0;
}

/*
 * Every object under @top, not following symbolic links: a link to an
 * object under the prefix names a file the walk meets anyway, and the
 * build-id makes a second name of one object (a hard link) cost a stat.
 * Mounts are crossed: overlayfs (containers) and 9p give files other
 * device numbers than their directories, and FTW_MOUNT would skip them
 * all.
 */
static void walk(const char *top)
{
	if (nftw(top, walk_one, 16, FTW_PHYS)) {
		fprintf(stderr, "%s: %s\n", top, strerror(errno));
		status = status ? status : 1;
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: eh2sframe [-v] -o TABLE OBJECT\n"
		"       eh2sframe [-v] [-f] -d DIR PATH...\n"
		"       eh2sframe [-v] -s OBJECT...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct stat st;
	int opt, i;

	while ((opt = getopt(argc, argv, "o:d:svf")) != -1) {
		switch (opt) {
		case 'o':
			out_path = optarg;
			mode = 'o';
			break;
		case 'd':
			out_dir = optarg;
			mode = 'd';
			break;
		case 's':
			mode = opt;
			break;
		case 'v':
			conv_verbose = true;
			break;
		case 'f':
			force = true;
			break;
		default:
			usage();
		}
	}
	if (!mode || optind == argc || (mode == 'o' && argc - optind != 1))
		usage();
	elf_version(EV_CURRENT);
	for (i = optind; i < argc; i++) {
		/* A directory is a prefix to convert, for -d only */
		if (mode == 'd' && !stat(argv[i], &st) && S_ISDIR(st.st_mode))
			walk(argv[i]);
		else
			do_object(argv[i], -1);
	}
	if (walk_skipped)
		fprintf(stderr, "eh2sframe: %lu files under the prefixes are not objects to convert\n",
			walk_skipped);
	return status;
}
