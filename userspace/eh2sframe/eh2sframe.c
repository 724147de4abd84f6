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
 *	eh2sframe [-v] -c OBJECT...	compare with the object's own .sframe
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
 * PT_LOAD segments (-c: where the object's own .sframe is).  The table is
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
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sframe-api.h>

#include "convert.h"

/* A section's data by name, or NULL; sets its address and size. */
static const unsigned char *section(Elf *elf, const char *want,
				    uint64_t *addr, size_t *size)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, want))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh.sh_size)
			return NULL;
		*addr = sh.sh_addr;
		*size = d->d_size;
		return d->d_buf;
	}
	return NULL;
}

/*
 * The lowest p_vaddr of @elf's PT_LOAD segments, exactly (not rounded to a
 * page): 0 for PIE executables and shared objects linked as usual.
 */
static uint64_t lowest_load(Elf *elf)
{
	uint64_t low = UINT64_MAX;
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return 0;
	for (i = 0; i < n; i++) {
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_vaddr < low)
			low = ph.p_vaddr;
	}
	return low == UINT64_MAX ? 0 : low;
}

/* The GNU build-id, from the notes: the name of the table in a directory */
static void read_build_id(Elf *elf, struct object *o)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		size_t off = 0, name_off, desc_off;
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &name_off,
						&desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + name_off, "GNU", 4) ||
			    !nh.n_descsz || nh.n_descsz > sizeof(o->build_id))
				continue;
			memcpy(o->build_id, (char *)d->d_buf + desc_off,
			       nh.n_descsz);
			o->build_id_len = nh.n_descsz;
			return;
		}
	}
}

/*
 * Open @path and convert its call frame information into @o.  Returns
 * the ELF handle (the caller ends it and closes *@fd), or NULL with a
 * message.
 */
static Elf *load(const char *path, struct object *o, int *fd)
{
	struct cfi_section s = { .eh = true };
	GElf_Ehdr eh;
	Elf *elf;

	memset(o, 0, sizeof(*o));
	o->path = path;
	/* The tree walk opens the file itself, and hands its descriptor */
	if (*fd < 0)
		*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return NULL;
	}
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		fprintf(stderr, "%s: not a 64-bit little-endian ELF file\n",
			path);
		goto fail;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		fprintf(stderr, "%s: not an executable or a shared object\n",
			path);
		goto fail;
	}
	o->arch = arch_find(eh.e_machine);
	if (!o->arch) {
		fprintf(stderr, "%s: machine %u has no SFrame ABI here\n",
			path, eh.e_machine);
		goto fail;
	}
	s.arch = &o->arch->cfi;
	read_build_id(elf, o);
	o->base = lowest_load(elf);

	/* .eh_frame; .debug_frame where the object has nothing else */
	s.data = section(elf, ".eh_frame", &s.addr, &s.size);
	if (!s.data) {
		s.data = section(elf, ".debug_frame", &s.addr, &s.size);
		s.eh = false;
	}
	if (s.data)
		convert_section(o, &s);
	o->cfi_size = s.data ? s.size : 0;
	sort_funcs(o);
	return elf;
fail:
	if (elf)
		elf_end(elf);
	close(*fd);
	return NULL;
}

static void unload(struct object *o, Elf *elf, int fd)
{
	object_free(o);
	elf_end(elf);
	close(fd);
}

static void print_counts(const struct object *o, const char *extra)
{
	unsigned long out = 0;
	int r;

	for (r = 1; r < CFI_NR_REASONS; r++)
		out += o->left_out[r];
	/* FDEs, not functions: a PLT's one FDE becomes two functions */
	printf("%s arch=%s fdes=%lu converted=%lu left_out=%lu bytes=%llu bytes_converted=%llu cfi_size=%llu",
	       o->path, o->arch->name, o->fdes,
	       o->fdes > out ? o->fdes - out : 0, out,
	       (unsigned long long)o->bytes,
	       (unsigned long long)o->bytes_converted,
	       (unsigned long long)o->cfi_size);
	for (r = 1; r < CFI_NR_REASONS; r++)
		if (o->left_out[r])
			printf(" out.%s=%lu", cfi_reason_name[r],
			       o->left_out[r]);
	printf("%s\n", extra);
}

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

/*
 * What a table says at a PC, in terms both tables share: the rules, or for
 * a flex FDE its words (control words and offsets), whatever their size.
 */
struct answer {
	bool found, outermost, sp_based, mangled, has_ra, has_fp;
	int32_t cfa, ra, fp;
	bool flex;
	unsigned int nr_words;
	int32_t words[MAX_NUM_DATAWORDS];
};

/* Whether the FDE of section-relative @pc in @d is a flex FDE */
static bool flex_at(sframe_decoder_ctx *d, int64_t pc)
{
	uint32_t lo = 0, hi = sframe_decoder_get_num_fidx(d), nfres, size;
	unsigned char info, info2 = 0;
	int64_t start;
	uint8_t rep;
	int err = 0;

	/* The last FDE that starts at or before @pc */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sframe_decoder_get_funcdesc_v3(d, mid, &nfres, &size,
						   &start, &info, &info2,
						   &rep))
			return false;
		start += sframe_decoder_get_offsetof_fde_start_addr(d, mid,
								    &err);
		if (start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || sframe_decoder_get_funcdesc_v3(d, lo - 1, &nfres, &size,
						  &start, &info, &info2,
						  &rep))
		return false;
	return SFRAME_V3_FDE_TYPE(info2) == SFRAME_FDE_TYPE_FLEX;
}

/* The signed words of @fre, of whatever size */
static void fre_words(const sframe_frame_row_entry *fre, struct answer *a)
{
	unsigned int n = SFRAME_V1_FRE_OFFSET_COUNT(fre->fre_info);
	unsigned int code = SFRAME_V1_FRE_OFFSET_SIZE(fre->fre_info), i;
	const unsigned char *p = fre->fre_datawords;

	if (n > MAX_NUM_DATAWORDS)
		n = MAX_NUM_DATAWORDS;
	for (i = 0; i < n; i++) {
		if (code == SFRAME_FRE_DATAWORD_1B)
			a->words[i] = (int8_t)p[i];
		else if (code == SFRAME_FRE_DATAWORD_2B)
			a->words[i] = (int16_t)(p[2 * i] | p[2 * i + 1] << 8);
		else
			a->words[i] = (int32_t)(p[4 * i] | p[4 * i + 1] << 8 |
						p[4 * i + 2] << 16 |
						(uint32_t)p[4 * i + 3] << 24);
	}
	a->nr_words = n;
}

static void lookup(sframe_decoder_ctx *d, int64_t pc, struct answer *a)
{
	sframe_frame_row_entry fre;
	int err = 0, e;

	memset(a, 0, sizeof(*a));
	if (sframe_find_fre(d, pc, &fre))
		return;
	a->found = true;
	a->outermost = sframe_fre_get_ra_undefined_p(d, &fre, &err);
	if (a->outermost)
		return;
	if (flex_at(d, pc)) {
		a->flex = true;
		fre_words(&fre, a);
		return;
	}
	a->sp_based = sframe_fre_get_base_reg_id(&fre, &err) ==
		      SFRAME_BASE_REG_SP;
	a->cfa = sframe_fre_get_cfa_offset(d, &fre, SFRAME_FDE_TYPE_DEFAULT,
					   &err);
	a->mangled = sframe_fre_get_ra_mangled_p(d, &fre, &err);
	e = 0;
	a->ra = sframe_fre_get_ra_offset(d, &fre, SFRAME_FDE_TYPE_DEFAULT, &e);
	a->has_ra = !e;
	e = 0;
	a->fp = sframe_fre_get_fp_offset(d, &fre, SFRAME_FDE_TYPE_DEFAULT, &e);
	a->has_fp = !e;
	if (!a->has_ra)
		a->ra = 0;
	if (!a->has_fp)
		a->fp = 0;
}

static const char *answer_str(char *buf, size_t len, const struct answer *a)
{
	size_t n;
	unsigned int i;

	if (!a->found) {
		snprintf(buf, len, "none");
	} else if (a->outermost) {
		snprintf(buf, len, "outermost");
	} else if (a->flex) {
		n = snprintf(buf, len, "flex");
		for (i = 0; i < a->nr_words && n < len; i++)
			n += snprintf(buf + n, len - n, " %d", a->words[i]);
	} else
		snprintf(buf, len, "cfa=%s%+d ra=%s%d fp=%s%d%s",
			 a->sp_based ? "sp" : "fp", a->cfa,
			 a->has_ra ? "cfa" : "-", a->ra,
			 a->has_fp ? "cfa" : "-", a->fp,
			 a->mangled ? " mangled" : "");
	return buf;
}

/* The converter's own FRE at @pc, or NULL; its function in *@func */
static const struct fre *our_fre(const struct object *o, uint64_t pc,
				 const struct func **func)
{
	size_t lo = 0, hi = o->nr_funcs;
	const struct func *f;
	uint32_t i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->funcs[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	f = &o->funcs[lo - 1];
	if (pc - f->start >= f->size)
		return NULL;
	if (func)
		*func = f;
	for (i = f->nr_fres; i > 0; i--)
		if (f->fres[i - 1].start <= pc - f->start)
			return &f->fres[i - 1];
	return NULL;
}

/*
 * gas gives a register that DW_CFA_restore (.cfi_restore) brings back the
 * rule of the function's first row, where DWARF gives it the CIE's: after
 * the restore of a frame pointer that the first row has saved (cold parts
 * of functions begin so), gas still reads it from the stack.  The
 * converter follows DWARF; both give the same value while the slot is
 * unchanged.
 */
static bool gas_restore(const struct object *o, uint64_t pc,
			const struct answer *g, const struct answer *m)
{
	const struct fre *f = our_fre(o, pc, NULL);
	struct answer x = *g;

	x.has_fp = false;
	x.fp = 0;
	return f && f->fp_restored && g->has_fp && !m->has_fp &&
	       !memcmp(&x, m, sizeof(x));
}

/*
 * gas keeps the CFA offset of the row before where the CFI sets a new
 * offset and then a new register at one address (.cfi_def_cfa_offset,
 * then .cfi_def_cfa_register), or a new register alone after such a row
 * (the converter's row must begin with a DW_CFA_def_cfa_register);
 * DWARF's DW_CFA_def_cfa_register keeps the offset the rule has.  Seen in
 * glibc's hand-written x86_64 assembly, which moves its CFA to RBX and
 * back around a return in mid-function.  gas's table then differs from
 * the converter's only in that offset, which is the one gas has just
 * before the converter's row starts.
 */
static bool gas_stale_cfa(const struct object *o, sframe_decoder_ctx *dg,
			  uint64_t at, uint64_t pc, const struct answer *g,
			  const struct answer *m)
{
	const struct func *func;
	const struct fre *f = our_fre(o, pc, &func);
	struct answer x = *g, before;
	int32_t *off, *off_before;

	if (!f || f->start == 0 || !f->cfa_reg_set || g->outermost ||
	    m->outermost || g->flex != m->flex ||
	    (g->flex && g->nr_words < 2))
		return false;
	lookup(dg, func->start + f->start - 1 - at, &before);
	if (!before.found || before.outermost || before.flex != g->flex ||
	    (before.flex && before.nr_words < 2))
		return false;
	off = g->flex ? &x.words[1] : &x.cfa;
	off_before = before.flex ? &before.words[1] : &before.cfa;
	if (*off != *off_before)
		return false;
	*off = m->flex ? m->words[1] : m->cfa;
	return !memcmp(&x, m, sizeof(x));
}

/*
 * gas writes the words of a flex FRE in the size the CFA's offset needs,
 * and cuts an RA or FP offset that needs more to it: glibc's setcontext
 * and swapcontext find the RA at CFA + 168 of their ucontext, which gas
 * writes as the byte -88.  The converter sizes the words by all of them.
 * gas's table then has, for each word that differs, the converter's word
 * cut to 8 or 16 bits.
 */
static bool gas_cut_word(const struct answer *g, const struct answer *m)
{
	bool cut = false;
	unsigned int i;

	if (!g->flex || !m->flex || g->nr_words != m->nr_words)
		return false;
	for (i = 0; i < g->nr_words; i++) {
		if (g->words[i] == m->words[i])
			continue;
		if (g->words[i] != (int8_t)m->words[i] &&
		    g->words[i] != (int16_t)m->words[i])
			return false;
		cut = true;
	}
	return cut;
}

/*
 * ld describes the entries of .plt.got (a jump through the GOT, and a
 * nop) with a CFA at SP + 16 in its .sframe, where its own .eh_frame, and
 * the code, has SP + 8: nothing was pushed.  The converter follows
 * .eh_frame.
 */
static bool ld_plt_got(uint64_t pc, uint64_t at, uint64_t size,
		       const struct answer *g, const struct answer *m)
{
	struct answer x = *g;

	if (pc - at >= size || g->flex || !g->sp_based || g->cfa != 16)
		return false;
	x.cfa = 8;
	return !memcmp(&x, m, sizeof(x));
}

static int gap_reason(const struct object *o, uint64_t pc)
{
	size_t i;

	for (i = 0; i < o->nr_gaps; i++)
		if (pc - o->gaps[i].start < o->gaps[i].size)
			return o->gaps[i].reason;
	return CFI_NR_REASONS;	/* no FDE at all */
}

/*
 * The oracle: at every PC that the object's own .sframe (gas's and ld's)
 * describes, the converted table must say the same: the same rules, and
 * in flex FDEs the same words.  The bytes of gas's flex and PC-mask FDEs
 * are counted too (flex_bytes, pcmask_bytes), and the PCs the converter
 * left out, by reason.
 */
static int compare(struct object *o, Elf *elf)
{
	unsigned long pcs = 0, same = 0, flex = 0, mask = 0, bad = 0;
	unsigned long restore = 0, stale = 0, plt_got = 0, cut = 0;
	unsigned long missing_flex = 0, missing_mask = 0;
	uint64_t pg_at = 0;
	size_t pg_size = 0;
	unsigned long missing[CFI_NR_REASONS + 1] = { 0 };
	sframe_decoder_ctx *dg = NULL, *dm = NULL;
	const unsigned char *gas;
	char extra[512], b1[96], b2[96];
	size_t gsize, size = 0, n;
	uint32_t i, nr;
	uint64_t at;
	char *ours;
	int err = 0, r;

	gas = section(elf, ".sframe", &at, &gsize);
	if (!gas) {
		print_counts(o, " sframe=0");
		return 0;
	}
	/* At gas's address: the two tables' starts are the same bytes. */
	ours = encode(o, at - o->base, &size);
	if (ours)
		dm = sframe_decode(ours, size, &err);
	dg = sframe_decode((const char *)gas, gsize, &err);
	if (!dm || !dg || sframe_decoder_get_version(dg) != SFRAME_VERSION_3 ||
	    !(sframe_decoder_get_flags(dg) & SFRAME_F_FDE_FUNC_START_PCREL)) {
		fprintf(stderr, "%s: cannot decode the tables (V3 with PC-relative starts only)\n",
			o->path);
		r = 1;
		goto out;
	}
	if (!section(elf, ".plt.got", &pg_at, &pg_size))
		pg_size = 0;
	nr = sframe_decoder_get_num_fidx(dg);
	for (i = 0; i < nr; i++) {
		unsigned char info, info2;
		uint32_t nfres, fsize, off;
		bool is_flex, is_mask;
		int64_t start;
		uint8_t rep;
		uint64_t pc, func;

		if (sframe_decoder_get_funcdesc_v3(dg, i, &nfres, &fsize,
						   &start, &info, &info2,
						   &rep))
			continue;
		off = sframe_decoder_get_offsetof_fde_start_addr(dg, i, &err);
		func = at + off + start;
		is_flex = SFRAME_V3_FDE_TYPE(info2) == SFRAME_FDE_TYPE_FLEX;
		is_mask = SFRAME_V3_FDE_PC_TYPE(info) ==
			  SFRAME_V3_FDE_PCTYPE_MASK;
		flex += is_flex ? fsize : 0;
		mask += is_mask ? fsize : 0;
		for (pc = func; pc < func + fsize; pc++) {
			struct answer g, m;

			pcs++;
			lookup(dg, pc - at, &g);
			lookup(dm, pc - at, &m);
			if (!m.found && g.found) {
				int why = gap_reason(o, pc);

				missing[why]++;
				/*
				 * Not gas's to cover where it ignores an
				 * SP rule (DW_CFA_offset of SP: glibc's
				 * setcontext): missing.sp-rule only.
				 */
				if (why == CFI_SP_RULE)
					continue;
				missing_flex += is_flex;
				missing_mask += is_mask;
				continue;
			}
			if (!memcmp(&g, &m, sizeof(g))) {
				same++;
				continue;
			}
			if (gas_restore(o, pc, &g, &m)) {
				restore++;
				continue;
			}
			if (gas_stale_cfa(o, dg, at, pc, &g, &m)) {
				stale++;
				continue;
			}
			if (ld_plt_got(pc, pg_at, pg_size, &g, &m)) {
				plt_got++;
				continue;
			}
			if (gas_cut_word(&g, &m)) {
				cut++;
				continue;
			}
			if (bad++ < 20)
				fprintf(stderr, "%s: %#llx: .sframe %s, converted %s\n",
					o->path, (unsigned long long)pc,
					answer_str(b1, sizeof(b1), &g),
					answer_str(b2, sizeof(b2), &m));
		}
	}
	n = snprintf(extra, sizeof(extra),
		     " pcs=%lu same=%lu mismatch=%lu gas_restore=%lu gas_stale_cfa=%lu gas_cut_word=%lu ld_plt_got=%lu flex_bytes=%lu pcmask_bytes=%lu missing_flex=%lu missing_pcmask=%lu",
		     pcs, same, bad, restore, stale, cut, plt_got, flex, mask,
		     missing_flex, missing_mask);
	for (r = 1; r <= CFI_NR_REASONS && n < sizeof(extra); r++)
		if (missing[r])
			n += snprintf(extra + n, sizeof(extra) - n,
				      " missing.%s=%lu",
				      r < CFI_NR_REASONS ? cfi_reason_name[r] :
				      "no-fde", missing[r]);
	print_counts(o, extra);
	r = bad ? 3 : 0;
out:
	sframe_decoder_free(&dg);
	sframe_decoder_free(&dm);
	free(ours);
	return r;
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
		print_counts(o, " table_size=0");
		return 0;
	}
	buf = encode(o, 0, &size);
	if (!buf)
		return 1;

	if (dfd != AT_FDCWD && !force && same_file(dfd, name, buf, size)) {
		free(buf);
		print_counts(o, " current=1");
		return 0;
	}
	err = write_file(dfd, name, buf, size);
	free(buf);
	if (err) {
		fprintf(stderr, "%s: %s\n", path, strerror(-err));
		return 1;
	}
	snprintf(extra, sizeof(extra), " table_size=%zu", size);
	print_counts(o, extra);
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
	Elf *elf = load(path, &o, &fd);

	if (!elf) {
		status = status ? status : 1;
		return;
	}
	if (mode == 'o')
		r = write_table(&o, AT_FDCWD, out_path, out_path);
	else if (mode == 'd')
		r = write_build_id(&o, out_dir);
	else if (mode == 'c')
		r = compare(&o, elf);
	else
		print_counts(&o, "");
	if (r > status)
		status = r;
	unload(&o, elf, fd);
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
		"       eh2sframe [-v] -s OBJECT...\n"
		"       eh2sframe [-v] -c OBJECT...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct stat st;
	int opt, i;

	while ((opt = getopt(argc, argv, "o:d:scvf")) != -1) {
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
		case 'c':
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
