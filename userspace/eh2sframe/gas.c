// SPDX-License-Identifier: GPL-2.0
/*
 * eh2sframe-gas: compare the tables eh2sframe makes with the .sframe that
 * gas and ld wrote into the same object, at every PC that .sframe
 * describes.  A test of the converter, not part of it:
 *
 *	eh2sframe-gas [-v] OBJECT...
 *
 * Each object gets eh2sframe's line of counts (eh2sframe -s) and the
 * comparison's: PCs where both tables agree, where they differ in a way
 * that gas or ld is known to write (each counted by its name), where they
 * differ otherwise (mismatch, the first twenty named on stderr), and
 * where only .sframe has a row, by the reason the converter left the
 * function out.  Exits 3 if an object has a mismatch.
 */
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sframe-api.h>

#include "object.h"

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

	gas = object_section(elf, ".sframe", &at, &gsize);
	if (!gas) {
		object_print(o, " sframe=0");
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
	if (!object_section(elf, ".plt.got", &pg_at, &pg_size))
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
	object_print(o, extra);
	r = bad ? 3 : 0;
out:
	sframe_decoder_free(&dg);
	sframe_decoder_free(&dm);
	free(ours);
	return r;
}

static void usage(void)
{
	fprintf(stderr, "usage: eh2sframe-gas [-v] OBJECT...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int opt, i, status = 0;

	while ((opt = getopt(argc, argv, "v")) != -1) {
		if (opt != 'v')
			usage();
		conv_verbose = true;
	}
	if (optind == argc)
		usage();
	elf_version(EV_CURRENT);
	for (i = optind; i < argc; i++) {
		struct object o;
		int fd = -1, r;
		Elf *elf = object_load(argv[i], &o, &fd);

		if (!elf) {
			status = status ? status : 1;
			continue;
		}
		r = compare(&o, elf);
		if (r > status)
			status = r;
		object_unload(&o, elf, fd);
	}
	return status;
}
