// SPDX-License-Identifier: GPL-2.0
/*
 * The conversion itself: the rows of each FDE to SFrame FREs, the
 * functions sorted, and the table encoded with libsframe's encoder.
 */
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sframe-api.h>

#include "convert.h"

/* A function's FREs are at most this many (V3 counts them in 16 bits). */
#define MAX_FRES	65535

bool conv_verbose;

static const struct arch arches[] = {
	/* x86_64 flex FDEs, as gas makes them, name RAX to R15 (0-15). */
	{ { EM_X86_64, 7, 6, 16 }, "x86_64", SFRAME_ABI_AMD64_ENDIAN_LITTLE, -8,
	  16 },
	{ { EM_AARCH64, 31, 29, 30 }, "aarch64",
	  SFRAME_ABI_AARCH64_ENDIAN_LITTLE, 0, 0 },
};

const struct arch *arch_find(unsigned int machine)
{
	size_t i;

	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i].cfi.machine == machine)
			return &arches[i];
	return NULL;
}

void *xrealloc(void *p, size_t n, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		bytes = SIZE_MAX;
	p = realloc(p, bytes ? bytes : 1);
	if (!p) {
		perror("eh2sframe");
		exit(2);
	}
	return p;
}

/* The PLT's entries are this long, on x86_64 (see rd_expr() in cfi.c) */
#define PLT_ENTRY	16

/* State of the conversion of one function, for the row callback. */
struct conv {
	const struct object *obj;
	const struct cfi_fde *fde;
	struct fre *fres;
	uint32_t nr, cap;
	bool flex;
	/* The PLT's expression: from plt_pc to the end, turning at plt_at */
	bool plt;
	uint64_t plt_pc;
	unsigned int plt_at;
};

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* The FRE of @r, or the reason it has none. */
static int row_to_fre(const struct arch *a, const struct cfi_row *r,
		      struct fre *f)
{
	memset(f, 0, sizeof(*f));
	if (r->ra.kind == RULE_UNDEF) {
		f->outermost = true;
		return 0;
	}
	/*
	 * The caller's SP is the CFA in SFrame: a rule that gives it
	 * another value (saved on the stack, in a register: code that
	 * switches stacks) cannot be said.  gas refuses most such rules
	 * but ignores DW_CFA_offset of SP (glibc's setcontext), after
	 * which the kernel would resume the walk on the wrong stack.
	 */
	if (r->sp.kind != RULE_SAME)
		return CFI_SP_RULE;
	if (r->cfa_expr)
		return CFI_CFA_EXPR;
	if (!fits32(r->cfa_off))
		return CFI_OFFSET;
	f->cfa = r->cfa_off;
	f->cfa_reg = r->cfa_reg;
	f->cfa_deref = r->cfa_deref;
	f->cfa_reg_set = r->cfa_reg_set;
	if (!r->cfa_deref &&
	    (r->cfa_reg == a->cfi.sp || r->cfa_reg == a->cfi.fp)) {
		f->sp_based = r->cfa_reg == a->cfi.sp;
	} else if (r->cfa_reg < a->flex_regs) {
		f->flex = true;
	} else {
		return r->cfa_deref ? CFI_CFA_EXPR : CFI_CFA_REG;
	}

	switch (r->ra.kind) {
	case RULE_OFFSET:
		if (a->fixed_ra) {
			if (r->ra.off == a->fixed_ra)
				break;
			/* Elsewhere on the stack: a flex FDE's RA rule */
			if (!a->flex_regs || !fits32(r->ra.off))
				return CFI_RA_RULE;
			f->flex = f->ra_explicit = true;
			f->ra = r->ra.off;
			break;
		}
		if (!fits32(r->ra.off))
			return CFI_OFFSET;
		f->has_ra = true;
		f->ra = r->ra.off;
		break;
	case RULE_SAME:
		/* Still in the link register: AArch64 only. */
		if (a->fixed_ra)
			return CFI_RA_RULE;
		break;
	case RULE_REG:
		/* In another register (context switches): flex */
		if (r->ra.reg >= a->flex_regs)
			return CFI_RA_RULE;
		f->flex = f->ra_explicit = f->ra_in_reg = true;
		f->ra_reg = r->ra.reg;
		break;
	default:
		return CFI_RA_RULE;
	}
	f->mangled = r->ra_mangled;
	f->fp_restored = r->fp_restored;

	/*
	 * An undefined FP (DW_CFA_undefined) is not an unsaved one, which
	 * SFrame would say: the caller's FP is unknown there, and the walk
	 * would go on with the callee's.  gas leaves the function out too.
	 */
	switch (r->fp.kind) {
	case RULE_SAME:
		break;
	case RULE_OFFSET:
		if (!fits32(r->fp.off))
			return CFI_OFFSET;
		/* AArch64's FP word comes after the RA's. */
		if (!a->fixed_ra && !f->has_ra)
			return CFI_FP_NO_RA;
		f->has_fp = true;
		f->fp = r->fp.off;
		break;
	case RULE_REG_OFFSET:
	case RULE_REG:
		if (r->fp.reg >= a->flex_regs)
			return CFI_FP_RULE;
		if (!fits32(r->fp.off))
			return CFI_OFFSET;
		f->has_fp = true;
		f->fp = r->fp.off;
		f->fp_at_reg = r->fp.kind == RULE_REG_OFFSET;
		f->fp_in_reg = r->fp.kind == RULE_REG;
		f->fp_reg = r->fp.reg;
		f->flex = true;
		break;
	default:
		return CFI_FP_RULE;
	}
	return 0;
}

/*
 * Whether two rows say the same: then the second adds no FRE.  Not
 * cfa_reg_set: a row that repeats the rules before it has nothing for the
 * comparison to excuse.
 */
static bool same_rules(const struct fre *a, const struct fre *b)
{
	return a->outermost == b->outermost && a->sp_based == b->sp_based &&
	       a->mangled == b->mangled && a->has_ra == b->has_ra &&
	       a->has_fp == b->has_fp && a->cfa == b->cfa &&
	       a->ra == b->ra && a->fp == b->fp &&
	       a->fp_restored == b->fp_restored && a->flex == b->flex &&
	       a->cfa_reg == b->cfa_reg && a->cfa_deref == b->cfa_deref &&
	       a->fp_at_reg == b->fp_at_reg && a->fp_in_reg == b->fp_in_reg &&
	       a->fp_reg == b->fp_reg && a->ra_explicit == b->ra_explicit &&
	       a->ra_in_reg == b->ra_in_reg && a->ra_reg == b->ra_reg;
}

static int add_row(const struct cfi_row *r, uint64_t end, void *arg)
{
	struct conv *cv = arg;
	struct fre f;
	int reason;

	(void)end;
	/* The PLT's expression must run to the end of the FDE. */
	if (cv->plt)
		return -CFI_PLT;
	if (r->cfa_plt) {
		struct cfi_row plain = *r;

		/* Its other rules must be those of a call's first byte. */
		plain.cfa_plt = 0;
		if (row_to_fre(cv->obj->arch, &plain, &f) || f.outermost ||
		    f.has_fp || f.flex || !f.sp_based || f.cfa != 8)
			return -CFI_PLT;
		cv->plt = true;
		cv->plt_pc = r->pc;
		cv->plt_at = r->cfa_plt;
		return 0;
	}
	reason = row_to_fre(cv->obj->arch, r, &f);
	if (reason)
		return -reason;
	f.start = r->pc - cv->fde->start;
	if (cv->nr && same_rules(&cv->fres[cv->nr - 1], &f))
		return 0;
	if (cv->nr == MAX_FRES)
		return -CFI_TOO_LONG;
	if (cv->nr == cv->cap) {
		cv->cap = cv->cap ? 2 * cv->cap : 8;
		cv->fres = xrealloc(cv->fres, cv->cap, sizeof(*cv->fres));
	}
	cv->fres[cv->nr++] = f;
	cv->flex |= f.flex;
	return 0;
}

static void add_func(struct object *o, const struct func *f)
{
	if (o->nr_funcs == o->cap_funcs) {
		o->cap_funcs = o->cap_funcs ? 2 * o->cap_funcs : 64;
		o->funcs = xrealloc(o->funcs, o->cap_funcs, sizeof(*o->funcs));
	}
	o->funcs[o->nr_funcs++] = *f;
}

/*
 * The lazy-binding entries of an x86_64 PLT, from @pc to @end, as ld's own
 * .sframe has them: a PC-mask FDE whose two FREs apply to every 16-byte
 * entry, CFA at SP + 8, and at SP + 16 from byte @at on (the entry's push).
 */
static int plt_func(struct object *o, const struct cfi_fde *fde, uint64_t pc,
		    unsigned int at)
{
	uint64_t size = fde->start + fde->size - pc;
	struct fre *fres;

	/* The expression counts in the PC's own bits: entries are aligned */
	if (!size || size % PLT_ENTRY || pc % PLT_ENTRY || at >= PLT_ENTRY)
		return CFI_PLT;
	fres = xrealloc(NULL, 2, sizeof(*fres));
	memset(fres, 0, 2 * sizeof(*fres));
	fres[0].sp_based = fres[1].sp_based = true;
	fres[0].cfa_reg = fres[1].cfa_reg = o->arch->cfi.sp;
	fres[0].cfa = 8;
	fres[1].start = at;
	fres[1].cfa = 16;
	add_func(o, &(struct func) {
		.start = pc, .size = size, .rep = PLT_ENTRY,
		.signal = fde->signal, .fres = fres, .nr_fres = 2,
	});
	return 0;
}

static void count_out(struct object *o, int reason, uint64_t start,
		      uint64_t size)
{
	o->left_out[reason]++;
	if (conv_verbose)
		fprintf(stderr, "%s: %#llx, %llu bytes, left out: %s\n",
			o->path, (unsigned long long)start,
			(unsigned long long)size, cfi_reason_name[reason]);
	if (!size)
		return;
	if (o->nr_gaps == o->cap_gaps) {
		o->cap_gaps = o->cap_gaps ? 2 * o->cap_gaps : 16;
		o->gaps = xrealloc(o->gaps, o->cap_gaps, sizeof(*o->gaps));
	}
	o->gaps[o->nr_gaps++] = (struct gap){ start, size, reason };
}

/* Convert each FDE of @s that fits. */
void convert_section(struct object *o, const struct cfi_section *sec)
{
	uint64_t budget = CFI_BUDGET(sec->size);
	struct cfi_section s_budget = *sec, *s = &s_budget;
	size_t pos = 0;
	int ret;

	s->budget = &budget;
	for (;;) {
		struct cfi_fde fde;
		struct conv cv = { .obj = o, .fde = &fde };

		ret = cfi_next_fde(s, &pos, &fde);
		if (!ret)
			break;
		o->fdes++;
		if (ret < 0) {
			count_out(o, -ret, 0, 0);
			continue;
		}
		o->bytes += fde.size;
		if (fde.size > UINT32_MAX) {
			count_out(o, CFI_TOO_LONG, fde.start, fde.size);
			continue;
		}
		ret = cfi_rows(s, &fde, add_row, &cv);
		if (!ret && cv.plt)
			ret = -plt_func(o, &fde, cv.plt_pc, cv.plt_at);
		if (ret) {
			free(cv.fres);
			count_out(o, -ret, fde.start, fde.size);
			continue;
		}
		/* The PLT's first entry, before its expression, if any */
		if (!cv.nr) {
			free(cv.fres);
			continue;
		}
		add_func(o, &(struct func) {
			.start = fde.start,
			.size = (cv.plt ? cv.plt_pc : fde.start + fde.size) -
				fde.start,
			.signal = fde.signal, .key_b = fde.key_b,
			.flex = cv.flex, .fres = cv.fres, .nr_fres = cv.nr,
		});
	}
}

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sort the functions; one that starts inside the one before is dropped. */
void sort_funcs(struct object *o)
{
	size_t i, n = 0;

	if (!o->nr_funcs)
		return;
	qsort(o->funcs, o->nr_funcs, sizeof(*o->funcs), cmp_func);
	for (i = 0; i < o->nr_funcs; i++) {
		struct func *f = &o->funcs[i];

		if (n && f->start < o->funcs[n - 1].start +
				    o->funcs[n - 1].size) {
			count_out(o, CFI_OVERLAP, f->start, f->size);
			free(f->fres);
			continue;
		}
		o->bytes_converted += f->size;
		o->funcs[n++] = *f;
	}
	o->nr_funcs = n;
}

/*
 * The words of @f in a flex FDE, as gas writes them: the CFA's control
 * word and offset; then the RA's, or if the FP is saved and the RA is at
 * the ABI's fixed offset from the CFA, one zero word; then the FP's.  A control word is the DWARF register number shifted left by 3,
 * bit 1 to read the value at the address, bit 0 when based on the
 * register (else on the CFA).
 */
static unsigned int flex_words(const struct arch *a, const struct fre *f,
			       int32_t *w)
{
	unsigned int n = 0, reg;

	reg = f->flex ? f->cfa_reg : f->sp_based ? a->cfi.sp : a->cfi.fp;
	w[n++] = SFRAME_V3_FLEX_FDE_CTRLWORD_ENCODE(reg, f->cfa_deref, 1);
	w[n++] = f->cfa;
	if (f->ra_explicit) {
		w[n++] = f->ra_in_reg ?
			 SFRAME_V3_FLEX_FDE_CTRLWORD_ENCODE(f->ra_reg, 0, 1) :
			 SFRAME_V3_FLEX_FDE_CTRLWORD_ENCODE(0, 1, 0);
		w[n++] = f->ra;
	} else if (f->has_fp) {
		w[n++] = 0;
	}
	if (f->has_fp) {
		if (f->fp_at_reg || f->fp_in_reg)
			w[n++] = SFRAME_V3_FLEX_FDE_CTRLWORD_ENCODE(f->fp_reg,
						f->fp_at_reg, 1);
		else
			w[n++] = SFRAME_V3_FLEX_FDE_CTRLWORD_ENCODE(0, 1, 0);
		w[n++] = f->fp;
	}
	return n;
}

/* Encode @f's words in the smallest size that holds them all. */
static void encode_fre(const struct arch *a, const struct fre *f, bool flex,
		       sframe_frame_row_entry *e)
{
	int32_t w[MAX_NUM_DATAWORDS];
	unsigned int n = 0, size = 1, code = SFRAME_FRE_DATAWORD_1B, i, j;

	memset(e, 0, sizeof(*e));
	e->fre_start_addr = f->start;
	if (f->outermost) {
		/* no words */
	} else if (flex) {
		n = flex_words(a, f, w);
	} else {
		w[n++] = f->cfa;
		if (f->has_ra || (f->has_fp && !a->fixed_ra))
			w[n++] = f->ra;
		if (f->has_fp)
			w[n++] = f->fp;
	}
	for (i = 0; i < n; i++) {
		if (w[i] < INT8_MIN || w[i] > INT8_MAX) {
			size = 2;
			code = SFRAME_FRE_DATAWORD_2B;
		}
		if (w[i] < INT16_MIN || w[i] > INT16_MAX) {
			size = 4;
			code = SFRAME_FRE_DATAWORD_4B;
			break;
		}
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < size; j++)
			e->fre_datawords[i * size + j] =
				(uint32_t)w[i] >> (8 * j);
	/* A flex FRE names its base register in its words; gas leaves 0. */
	e->fre_info = SFRAME_V1_FRE_INFO(f->sp_based && !flex ?
					 SFRAME_BASE_REG_SP :
					 SFRAME_BASE_REG_FP, n, code);
	e->fre_info = SFRAME_V1_FRE_INFO_UPDATE_MANGLED_RA_P(f->mangled,
							     e->fre_info);
}

/*
 * The SFrame section of @o's converted functions, as if placed @at bytes
 * after the object's lowest load address (@o->base): a function's start
 * is PC-relative, and so the same whatever address the object was linked
 * at.  Returns it (malloc'ed) with its size.
 */
char *encode(const struct object *o, uint64_t at, size_t *size)
{
	const struct arch *a = o->arch;
	sframe_encoder_ctx *e;
	char *buf, *copy;
	int err = 0;
	size_t i;

	e = sframe_encode(SFRAME_VERSION_3, SFRAME_F_FDE_FUNC_START_PCREL,
			  a->abi, 0, a->fixed_ra, &err);
	if (!e)
		return NULL;
	for (i = 0; i < o->nr_funcs && !err; i++) {
		const struct func *f = &o->funcs[i];
		unsigned char info, info2 = 0;
		uint32_t field, j;
		int ignored;

		/* Of the FDE about to be added: "not there yet" is expected. */
		field = sframe_encoder_get_offsetof_fde_start_addr(e, i,
								   &ignored);
		info = SFRAME_V3_FDE_FUNC_INFO(f->rep ? SFRAME_V3_FDE_PCTYPE_MASK :
					       SFRAME_V3_FDE_PCTYPE_INC,
					       sframe_calc_fre_type(f->size));
		info = SFRAME_V3_FDE_UPDATE_PAUTH_KEY(f->key_b, info);
		info = SFRAME_V3_FDE_UPDATE_SIGNAL_P(f->signal, info);
		info2 = SFRAME_V3_SET_FDE_TYPE(info2, f->flex ?
					       SFRAME_FDE_TYPE_FLEX :
					       SFRAME_FDE_TYPE_DEFAULT);
		if (!err)
			err = sframe_encoder_add_funcdesc_v3(e,
				(int64_t)(f->start - o->base - (at + field)),
				f->size, info, info2, f->rep, f->nr_fres);
		for (j = 0; j < f->nr_fres && !err; j++) {
			sframe_frame_row_entry fre;

			encode_fre(a, &f->fres[j], f->flex, &fre);
			err = sframe_encoder_add_fre(e, i, &fre);
		}
		if (err && conv_verbose)
			fprintf(stderr, "%s: libsframe refused function %zu at %#llx: %d\n",
				o->path, i, (unsigned long long)f->start, err);
	}
	buf = err ? NULL : sframe_encoder_write(e, size, true, &err);
	/* The buffer belongs to the encoder. */
	copy = buf ? malloc(*size) : NULL;
	if (copy)
		memcpy(copy, buf, *size);
	sframe_encoder_free(&e);
	if (err || !copy)
		fprintf(stderr, "%s: libsframe could not encode the table\n",
			o->path);
	return err ? NULL : copy;
}

void object_free(struct object *o)
{
	size_t i;

	for (i = 0; i < o->nr_funcs; i++)
		free(o->funcs[i].fres);
	free(o->funcs);
	free(o->gaps);
}
