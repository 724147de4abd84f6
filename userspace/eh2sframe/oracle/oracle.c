// SPDX-License-Identifier: GPL-2.0
/*
 * eh2sframe-oracle: check a table that eh2sframe made against the
 * object's .eh_frame as elfutils reads it, not as gas or the converter's
 * own CFI reader (cfi.c) does.
 *
 *	eh2sframe-oracle OBJECT TABLE LEFT-OUT
 *
 * TABLE is what `eh2sframe -o TABLE OBJECT` wrote, placed at the lowest
 * p_vaddr of the object's PT_LOAD segments (0 for a shared object or a
 * PIE, the link address of a non-PIE executable); LEFT-OUT what
 * `eh2sframe -v` said on stderr of the same run: one line per function
 * left out, "PATH: START, SIZE bytes, left out: REASON" (START a link-time
 * address).
 *
 * For each function of the table, at each PC where either side's rules
 * change (every FRE of the table, every row of the CFI, as libdw's
 * dwarf_cfi_addrframe() and dwarf_frame_info() delimit it), the CFA
 * (base register, offset, read from memory or not), the return address
 * and the frame pointer must be the same, the caller's SP must be the
 * CFA, and the signal flag the CIE's.  Every FDE of .eh_frame (walked
 * with dwarf_next_cfi()) must be converted whole, or be in LEFT-OUT,
 * and every function of the table must be an FDE's.
 *
 * Prints "OBJECT fdes=N converted=N left_out=N functions=N flex=N
 * pcmask=N pcs=N mismatch=N unaccounted=N out.REASON=N..." (functions:
 * of the table, flex and PC-mask FDEs among them) and the first mismatches on
 * stderr; exits 1 on any mismatch or unaccounted FDE, 2 when the inputs
 * cannot be read.
 *
 * All input is hostile: libdw and libsframe parse it; the oracle's own
 * reading (the FDE's address fields, which libdw does not decode for its
 * callers) is bounded by the entry libdw delimited.
 */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdw.h>
#include <sframe-api.h>

/* Bounds on what one input may make the oracle do */
#define MAX_TABLE	(1u << 30)
#define MAX_LINES	(1u << 22)
#define MAX_ROWS	(1u << 16)	/* rows of one function: libdw runs the FDE to each */
#define MAX_PCMASK	(1u << 16)	/* bytes of a PC-mask function, each checked */
#define MAX_SAID	20		/* mismatches printed */

static const char *obj_path;
static unsigned long mismatches, unaccounted, said;

static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "eh2sframe-oracle: %s: ", obj_path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void say(unsigned long *count, const char *fmt, ...)
{
	va_list ap;

	(*count)++;
	if (said++ >= MAX_SAID)
		return;
	fprintf(stderr, "%s: ", obj_path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The registers of the architecture, as DWARF numbers */
struct arch {
	unsigned int sp, fp, ra;
	bool fixed_ra;		/* x86_64: the RA at CFA - 8 always */
};

static const struct arch x86_64 = { 7, 6, 16, true };
static const struct arch aarch64 = { 31, 29, 30, false };

/* Where a register of the caller is, in one row */
enum where {
	W_UNDEF,	/* unknown: DW_CFA_undefined */
	W_SAME,		/* the callee's value: unchanged */
	W_AT_CFA,	/* at address CFA + off */
	W_IS_CFA,	/* the value CFA + off */
	W_AT_REG,	/* at address reg + off */
	W_IS_REG,	/* the value reg + off (off 0: in register reg) */
	W_OTHER,	/* anything else */
};

static const char *const where_name[] = {
	"undefined", "same", "at-cfa", "cfa", "at-reg", "reg", "other",
};

struct rule {
	enum where w;
	unsigned int reg;
	int64_t off;
};

/* One row, as either side says it */
struct row {
	bool outermost;		/* the RA undefined: the walk stops */
	bool cfa_known;		/* a register plus an offset, maybe read */
	bool cfa_deref;
	unsigned int cfa_reg;
	int64_t cfa_off;
	struct rule ra, fp, sp;
};

static bool same_rule(const struct rule *a, const struct rule *b)
{
	if (a->w != b->w)
		return false;
	switch (a->w) {
	case W_AT_CFA:
	case W_IS_CFA:
		return a->off == b->off;
	case W_AT_REG:
	case W_IS_REG:
		return a->reg == b->reg && a->off == b->off;
	default:
		return true;
	}
}

static void rule_str(const struct rule *r, char *buf, size_t len)
{
	switch (r->w) {
	case W_AT_CFA:
	case W_IS_CFA:
		snprintf(buf, len, "%s%+" PRId64, where_name[r->w], r->off);
		break;
	case W_AT_REG:
	case W_IS_REG:
		snprintf(buf, len, "%s%u%+" PRId64, where_name[r->w], r->reg,
			 r->off);
		break;
	default:
		snprintf(buf, len, "%s", where_name[r->w]);
	}
}

static void row_str(const struct row *r, char *buf, size_t len)
{
	char ra[48], fp[48], sp[48];

	if (r->outermost) {
		snprintf(buf, len, "outermost");
		return;
	}
	rule_str(&r->ra, ra, sizeof(ra));
	rule_str(&r->fp, fp, sizeof(fp));
	rule_str(&r->sp, sp, sizeof(sp));
	if (r->cfa_known)
		snprintf(buf, len, "cfa=%sr%u%+" PRId64 "%s ra=%s fp=%s sp=%s",
			 r->cfa_deref ? "*(" : "", r->cfa_reg, r->cfa_off,
			 r->cfa_deref ? ")" : "", ra, fp, sp);
	else
		snprintf(buf, len, "cfa=expression ra=%s fp=%s sp=%s", ra, fp,
			 sp);
}

/* ---- libdw's side ---- */

/* A DW_OP_bregN or DW_OP_bregx: its register, or -1 */
static int breg(const Dwarf_Op *op)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31)
		return op->atom - DW_OP_breg0;
	if (op->atom == DW_OP_bregx && op->number < 4096)
		return op->number;
	return -1;
}

/* A DW_OP_regN or DW_OP_regx: its register, or -1 */
static int regop(const Dwarf_Op *op)
{
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)
		return op->atom - DW_OP_reg0;
	if (op->atom == DW_OP_regx && op->number < 4096)
		return op->number;
	return -1;
}

/* The rule of register @regno in @frame, from libdw's description */
static struct rule dw_rule(Dwarf_Frame *frame, int regno)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	bool value = false;
	struct rule r = { W_OTHER, 0, 0 };
	int reg;

	if (dwarf_frame_register(frame, regno, mem, &ops, &n))
		return r;
	if (!n) {
		r.w = ops ? W_UNDEF : W_SAME;
		return r;
	}
	/* A value, not a location: a last DW_OP_stack_value */
	if (ops[n - 1].atom == DW_OP_stack_value) {
		value = true;
		n--;
	}
	if (n == 1 && !value && (reg = regop(&ops[0])) >= 0) {
		r.w = W_IS_REG;
		r.reg = reg;
		return r;
	}
	/*
	 * DW_CFA_expression and DW_CFA_val_expression: libdw pushes the
	 * CFA first, as DWARF says; an expression of one DW_OP_breg
	 * leaves it under the result.
	 */
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    (reg = breg(&ops[1])) >= 0) {
		r.w = value ? W_IS_REG : W_AT_REG;
		r.reg = reg;
		r.off = ops[1].atom == DW_OP_bregx ? (int64_t)ops[1].number2 :
						     (int64_t)ops[1].number;
		return r;
	}
	if (n >= 1 && n <= 2 && ops[0].atom == DW_OP_call_frame_cfa) {
		if (n == 2) {
			if (ops[1].atom == DW_OP_plus_uconst)
				r.off = (int64_t)ops[1].number;
			else if (ops[1].atom != DW_OP_nop)
				return r;
		}
		r.w = value ? W_IS_CFA : W_AT_CFA;
		return r;
	}
	return r;
}

/*
 * The CFA of @frame: a register plus an offset, or one read at a
 * register plus an offset; else not known (an expression).  For the
 * x86_64 PLT's expression, which depends on the PC, @pc is the PC at
 * which to evaluate it (see plt_cfa()).
 */
static bool plt_cfa(const Dwarf_Op *ops, size_t n, uint64_t pc,
		    const struct arch *a, int64_t *off);

static void dw_cfa(Dwarf_Frame *frame, uint64_t pc, const struct arch *a,
		   struct row *r)
{
	Dwarf_Op *ops;
	size_t n;
	int reg;

	r->cfa_known = false;
	if (dwarf_frame_cfa(frame, &ops, &n) || !n)
		return;
	reg = breg(&ops[0]);
	if (reg < 0)
		return;
	r->cfa_reg = reg;
	r->cfa_off = ops[0].atom == DW_OP_bregx ? (int64_t)ops[0].number2 :
						  (int64_t)ops[0].number;
	if (n == 1) {
		r->cfa_known = true;
	} else if (n == 2 && ops[1].atom == DW_OP_deref) {
		r->cfa_known = r->cfa_deref = true;
	} else if (plt_cfa(ops, n, pc, a, &r->cfa_off)) {
		r->cfa_known = true;
	}
}

/*
 * Evaluate @ops, an expression of the SP and the PC only, at @pc: as the
 * x86_64 PLT's (DW_OP_breg7 8; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and;
 * DW_OP_litN; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus).  The stack
 * holds constants and at most one "SP + k"; anything else is not
 * evaluated.  Sets *@off to k when the result is SP + k.
 */
static bool plt_cfa(const Dwarf_Op *ops, size_t n, uint64_t pc,
		    const struct arch *a, int64_t *off)
{
	struct { bool sp; uint64_t v; } st[8];
	size_t i, top = 0;

	if (a != &x86_64 || n > 16)
		return false;
	for (i = 0; i < n; i++) {
		const Dwarf_Op *op = &ops[i];
		int reg = breg(op);
		uint64_t k = op->atom == DW_OP_bregx ? op->number2 : op->number;

		if (reg >= 0) {
			if (top == 8 || (reg != 7 && reg != 16))
				return false;
			st[top].sp = reg == 7;
			st[top++].v = (reg == 16 ? pc : 0) + k;
			continue;
		}
		if (op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31) {
			if (top == 8)
				return false;
			st[top].sp = false;
			st[top++].v = op->atom - DW_OP_lit0;
			continue;
		}
		if (op->atom == DW_OP_constu || op->atom == DW_OP_const1u ||
		    op->atom == DW_OP_const2u || op->atom == DW_OP_const4u) {
			if (top == 8)
				return false;
			st[top].sp = false;
			st[top++].v = op->number;
			continue;
		}
		if (op->atom == DW_OP_plus_uconst) {
			if (!top)
				return false;
			st[top - 1].v += op->number;
			continue;
		}
		/* The binary operations: only "plus" may take the SP */
		if (top < 2)
			return false;
		top--;
		if (op->atom == DW_OP_plus) {
			if (st[top].sp && st[top - 1].sp)
				return false;
			st[top - 1].sp |= st[top].sp;
			st[top - 1].v += st[top].v;
			continue;
		}
		if (st[top].sp || st[top - 1].sp)
			return false;
		switch (op->atom) {
		case DW_OP_and:
			st[top - 1].v &= st[top].v;
			break;
		case DW_OP_ge:
			st[top - 1].v = (int64_t)st[top - 1].v >= (int64_t)st[top].v;
			break;
		case DW_OP_shl:
			st[top - 1].v = st[top].v < 64 ? st[top - 1].v << st[top].v : 0;
			break;
		default:
			return false;
		}
	}
	if (top != 1 || !st[0].sp)
		return false;
	*off = (int64_t)st[0].v;
	return true;
}

/* libdw's row at @pc: its rules and its range [*start, *end) */
static bool dw_row(Dwarf_CFI *cfi, const struct arch *a, uint64_t pc,
		   struct row *r, uint64_t *start, uint64_t *end,
		   bool *signal)
{
	Dwarf_Frame *frame;
	Dwarf_Addr s, e;

	memset(r, 0, sizeof(*r));
	if (dwarf_cfi_addrframe(cfi, pc, &frame))
		return false;
	if (dwarf_frame_info(frame, &s, &e, signal) < 0) {
		free(frame);
		return false;
	}
	*start = s;
	*end = e;
	r->ra = dw_rule(frame, a->ra);
	r->fp = dw_rule(frame, a->fp);
	r->sp = dw_rule(frame, a->sp);
	if (r->ra.w == W_UNDEF)
		r->outermost = true;
	else
		dw_cfa(frame, pc, a, r);
	free(frame);
	return true;
}

/* ---- the table's side ---- */

struct func {
	uint64_t start, size;
	uint32_t idx, nr_fres;
	unsigned char info, info2;
	uint8_t rep;
	bool matched;
	sframe_frame_row_entry *fres;	/* decoded once, while checked */
};

/* Word @i of @fre, signed, of the FRE's word size */
static int64_t word(const sframe_frame_row_entry *fre, unsigned int i)
{
	unsigned int size = 1u << SFRAME_V1_FRE_OFFSET_SIZE(fre->fre_info);
	int err = 0;
	uint32_t u = sframe_get_fre_udata(fre, i, &err);

	if (size == 1)
		return (int8_t)u;
	if (size == 2)
		return (int16_t)u;
	return (int32_t)u;
}

/* A flex FDE's rule from its control word @ctl and offset @off */
static struct rule flex_rule(uint32_t ctl, int64_t off)
{
	struct rule r = { W_OTHER, 0, off };

	if (SFRAME_V3_FLEX_FDE_CTRLWORD_REG_P(ctl)) {
		r.reg = SFRAME_V3_FLEX_FDE_CTRLWORD_REGNUM(ctl);
		r.w = SFRAME_V3_FLEX_FDE_CTRLWORD_DEREF_P(ctl) ? W_AT_REG :
								   W_IS_REG;
	} else {
		r.w = SFRAME_V3_FLEX_FDE_CTRLWORD_DEREF_P(ctl) ? W_AT_CFA :
								   W_IS_CFA;
	}
	return r;
}

/* The table's row in @fre of function @f */
static bool sf_row(sframe_decoder_ctx *d, const struct arch *a,
		   const struct func *f, const sframe_frame_row_entry *fre,
		   struct row *r)
{
	unsigned int n = SFRAME_V1_FRE_OFFSET_COUNT(fre->fre_info), i;
	uint32_t type = SFRAME_V3_FDE_TYPE(f->info2);
	int err = 0;
	int32_t v;

	memset(r, 0, sizeof(*r));
	/* The table says nothing of the caller's SP: the CFA */
	r->sp.w = W_IS_CFA;
	if (!n) {
		r->outermost = true;
		return true;
	}
	r->cfa_known = true;
	if (type == SFRAME_FDE_TYPE_FLEX) {
		struct rule cfa;

		if (n < 2)
			return false;
		cfa = flex_rule(word(fre, 0), word(fre, 1));
		if (cfa.w != W_AT_REG && cfa.w != W_IS_REG)
			return false;
		r->cfa_reg = cfa.reg;
		r->cfa_off = cfa.off;
		r->cfa_deref = cfa.w == W_AT_REG;
		r->ra = (struct rule){ W_AT_CFA, 0,
				       sframe_decoder_get_fixed_ra_offset(d) };
		r->fp.w = W_SAME;
		i = 2;
		if (i < n) {
			if (!word(fre, i)) {
				i++;	/* padding: the RA where the ABI has it */
			} else if (i + 1 < n) {
				r->ra = flex_rule(word(fre, i), word(fre, i + 1));
				i += 2;
			} else {
				return false;
			}
		}
		if (i + 1 < n)
			r->fp = flex_rule(word(fre, i), word(fre, i + 1));
		else if (i < n)
			return false;
		return true;
	}
	if (type != SFRAME_FDE_TYPE_DEFAULT)
		return false;
	r->cfa_reg = SFRAME_V1_FRE_CFA_BASE_REG_ID(fre->fre_info) ==
		     SFRAME_BASE_REG_SP ? a->sp : a->fp;
	r->cfa_off = sframe_fre_get_cfa_offset(d, fre, type, &err);
	if (err)
		return false;
	v = sframe_fre_get_ra_offset(d, fre, type, &err);
	if (err) {
		/* AArch64: no RA word, the RA is still in LR */
		if (a->fixed_ra)
			return false;
		r->ra.w = W_SAME;
	} else {
		r->ra = (struct rule){ W_AT_CFA, 0, v };
	}
	err = 0;
	v = sframe_fre_get_fp_offset(d, fre, type, &err);
	if (err)
		r->fp.w = W_SAME;
	else
		r->fp = (struct rule){ W_AT_CFA, 0, v };
	return true;
}

/*
 * The FRE of @f at @pc, as a consumer finds it: the last whose start is
 * at most the PC's offset (modulo the block size of a PC-mask FDE).
 * Their starts increase (check_func() made sure).
 */
static bool sf_fre_at(const struct func *f, uint64_t pc,
		      sframe_frame_row_entry *out)
{
	uint64_t off = pc - f->start;
	uint32_t lo = 0, hi = f->nr_fres, mid;

	if (SFRAME_V3_FDE_PC_TYPE(f->info) == SFRAME_V3_FDE_PCTYPE_MASK) {
		if (!f->rep)
			return false;
		off %= f->rep;
	}
	/* The first FRE that starts after off */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->fres[mid].fre_start_addr <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	*out = f->fres[lo - 1];
	return true;
}

/* ---- the comparison ---- */

/*
 * Whether the table says @t where libdw says @c.  The caller's SP must
 * be the CFA in libdw's row (val_offset 0 of SP, or SP unmentioned,
 * which libdw's ABI rules give as either), since the table cannot say
 * otherwise.
 */
static bool agree(const struct arch *a, const struct row *t,
		  const struct row *c)
{
	if (t->outermost || c->outermost)
		return t->outermost == c->outermost;
	if (!c->cfa_known || t->cfa_reg != c->cfa_reg ||
	    t->cfa_off != c->cfa_off || t->cfa_deref != c->cfa_deref)
		return false;
	if (!(c->sp.w == W_SAME || (c->sp.w == W_IS_CFA && !c->sp.off)))
		return false;
	/* x86_64: the RA at CFA - 8 is the fixed one; both say it */
	if (!same_rule(&t->ra, &c->ra))
		return false;
	(void)a;
	return same_rule(&t->fp, &c->fp);
}

static void check_pc(sframe_decoder_ctx *d, Dwarf_CFI *cfi,
		     const struct arch *a, const struct func *f, uint64_t pc,
		     unsigned long *pcs)
{
	sframe_frame_row_entry fre;
	struct row t, c;
	uint64_t s, e;
	bool signal;
	char ts[256], cs[256];

	(*pcs)++;
	if (!dw_row(cfi, a, pc, &c, &s, &e, &signal)) {
		say(&mismatches, "%#" PRIx64 ": in the table, no CFI (%s)",
		    pc, dwarf_errmsg(-1));
		return;
	}
	if (!sf_fre_at(f, pc, &fre) || !sf_row(d, a, f, &fre, &t)) {
		say(&mismatches, "%#" PRIx64 ": the table's FRE cannot be read",
		    pc);
		return;
	}
	if (!agree(a, &t, &c)) {
		row_str(&t, ts, sizeof(ts));
		row_str(&c, cs, sizeof(cs));
		say(&mismatches, "%#" PRIx64 " (function %#" PRIx64 "): table %s, CFI %s",
		    pc, f->start, ts, cs);
	}
	if (signal != SFRAME_V3_FDE_SIGNAL_P(f->info))
		say(&mismatches, "%#" PRIx64 ": signal frame: table %d, CFI %d",
		    pc, SFRAME_V3_FDE_SIGNAL_P(f->info), signal);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * Check @f at every PC where the table's FREs or the CFI's rows begin;
 * a PC-mask FDE (the PLT) at every byte, as its rows repeat.
 */
static void check_func(sframe_decoder_ctx *d, Dwarf_CFI *cfi,
		       const struct arch *a, struct func *f,
		       unsigned long *pcs)
{
	uint64_t *pc = NULL, end = f->start + f->size, p;
	size_t n = 0, cap = 0, i;
	struct row r;
	bool signal;

	/*
	 * The FREs, decoded once: libsframe finds FRE i by walking the i
	 * before it (their sizes vary), so each function costs the square
	 * of its FREs, which V3 counts in 16 bits.
	 */
	f->fres = calloc(f->nr_fres ? f->nr_fres : 1, sizeof(*f->fres));
	if (!f->fres)
		fail("out of memory");
	for (i = 0; i < f->nr_fres; i++) {
		if (sframe_decoder_get_fre(d, f->idx, i, &f->fres[i])) {
			say(&mismatches, "%#" PRIx64 ": FRE %zu cannot be read",
			    f->start, i);
			goto out;
		}
		if (i && f->fres[i].fre_start_addr <= f->fres[i - 1].fre_start_addr) {
			say(&mismatches, "%#" PRIx64 ": FRE %zu does not start after the one before",
			    f->start, i);
			goto out;
		}
	}
	if (SFRAME_V3_FDE_PC_TYPE(f->info) == SFRAME_V3_FDE_PCTYPE_MASK) {
		if (f->size > MAX_PCMASK) {
			say(&mismatches, "%#" PRIx64 ": PC-mask function of %" PRIu64 " bytes: not checked",
			    f->start, f->size);
			goto out;
		}
		for (p = f->start; p < end; p++)
			check_pc(d, cfi, a, f, p, pcs);
		goto out;
	}
	/* The FREs' starts, then the CFI's rows */
#define ADD(v) do { \
		if (n == cap) { \
			cap = cap ? 2 * cap : 64; \
			pc = realloc(pc, cap * sizeof(*pc)); \
			if (!pc) \
				fail("out of memory"); \
		} \
		pc[n++] = (v); \
	} while (0)
	for (i = 0; i < f->nr_fres; i++) {
		if (f->fres[i].fre_start_addr >= f->size)
			say(&mismatches, "%#" PRIx64 ": FRE %zu starts past the function's end",
			    f->start, i);
		else
			ADD(f->start + f->fres[i].fre_start_addr);
	}
	for (p = f->start, i = 0; p < end && i < MAX_ROWS; i++) {
		uint64_t s, e;

		ADD(p);
		if (!dw_row(cfi, a, p, &r, &s, &e, &signal) || e <= p)
			break;
		p = e;
	}
	if (i == MAX_ROWS)
		say(&mismatches, "%#" PRIx64 ": more than %u rows: not all checked",
		    f->start, MAX_ROWS);
#undef ADD
	qsort(pc, n, sizeof(*pc), cmp_u64);
	for (i = 0; i < n; i++)
		if (!i || pc[i] != pc[i - 1])
			check_pc(d, cfi, a, f, pc[i], pcs);
	free(pc);
out:
	free(f->fres);
	f->fres = NULL;
}

/* ---- the FDEs of .eh_frame ---- */

struct fde {
	uint64_t start, size;
	bool done;
};

/* A pointer of encoding @enc at @p, within [@p, @end); @at its address */
static bool rd_ptr(const uint8_t **p, const uint8_t *end, uint8_t enc,
		   uint64_t at, uint64_t *v)
{
	size_t size;
	uint64_t u = 0;
	size_t i;

	if (enc == DW_EH_PE_omit)
		return false;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		size = 8;
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		size = 4;
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		size = 2;
		break;
	default:
		return false;
	}
	if ((size_t)(end - *p) < size)
		return false;
	for (i = 0; i < size; i++)
		u |= (uint64_t)(*p)[i] << (8 * i);
	if ((enc & 0x0f) == DW_EH_PE_sdata4)
		u = (uint64_t)(int64_t)(int32_t)u;
	else if ((enc & 0x0f) == DW_EH_PE_sdata2)
		u = (uint64_t)(int64_t)(int16_t)u;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		u += at;
		break;
	default:
		return false;
	}
	*p += size;
	*v = u;
	return true;
}

/* The FDE pointer encoding of the CIE at @off, from its augmentation */
static bool cie_enc(const unsigned char *ident, Elf_Data *data, uint64_t off,
		    uint8_t *enc)
{
	Dwarf_CFI_Entry e;
	Dwarf_Off next;
	const uint8_t *p, *end;
	const char *aug;
	uint64_t skip;

	if (dwarf_next_cfi(ident, data, true, off, &next, &e) ||
	    !dwarf_cfi_cie_p(&e))
		return false;
	*enc = DW_EH_PE_absptr;
	aug = e.cie.augmentation;
	if (aug[0] != 'z')
		return !aug[0];
	p = e.cie.augmentation_data;
	end = p + e.cie.augmentation_data_size;
	for (aug++; *aug; aug++) {
		switch (*aug) {
		case 'R':
			if (p == end)
				return false;
			*enc = *p++;
			break;
		case 'L':
			if (p == end)
				return false;
			p++;
			break;
		case 'P':
			/* The personality's encoding, then the pointer */
			if (p == end || (*p & 0x70) == DW_EH_PE_aligned)
				return false;
			{
				uint8_t penc = *p++;

				if (!rd_ptr(&p, end, penc & 0x0f, 0, &skip))
					return false;
			}
			break;
		case 'S':
		case 'B':
			break;
		default:
			/* 'z' sized the data: the rest is not the FDEs' */
			return true;
		}
	}
	return true;
}

/* The FDEs of the .eh_frame at address @addr */
static struct fde *read_fdes(Elf *elf, Elf_Data *data, uint64_t addr,
			     size_t *nr)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	struct fde *fdes = NULL;
	size_t cap = 0, n = 0;
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	int ret;

	for (;;) {
		const uint8_t *p;
		uint64_t start, size;
		uint8_t enc;

		ret = dwarf_next_cfi(ident, data, true, off, &next, &e);
		if (ret > 0)
			break;
		if (ret < 0)
			fail(".eh_frame entry at %#" PRIx64 ": %s", (uint64_t)off,
			     dwarf_errmsg(-1));
		if (next <= off)
			fail(".eh_frame entry at %#" PRIx64 ": no progress", (uint64_t)off);
		off = next;
		if (dwarf_cfi_cie_p(&e))
			continue;
		if (!cie_enc(ident, data, e.fde.CIE_pointer, &enc))
			fail("FDE before %#" PRIx64 ": its CIE cannot be read", (uint64_t)off);
		p = e.fde.start;
		if (!rd_ptr(&p, e.fde.end, enc,
			    addr + (p - (const uint8_t *)data->d_buf), &start) ||
		    !rd_ptr(&p, e.fde.end, enc & 0x0f, 0, &size))
			fail("FDE before %#" PRIx64 ": its range cannot be read", (uint64_t)off);
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			fdes = realloc(fdes, cap * sizeof(*fdes));
			if (!fdes)
				fail("out of memory");
		}
		fdes[n++] = (struct fde){ start, size, false };
	}
	*nr = n;
	return fdes;
}

/* ---- the left-out list ---- */

#define NR_REASONS	32

struct gap {
	uint64_t start, size;
	int reason;
	bool matched;
};

static char reasons[NR_REASONS][32];
static unsigned long reason_count[NR_REASONS];

static int reason_id(const char *name)
{
	int i;

	for (i = 0; i < NR_REASONS && reasons[i][0]; i++)
		if (!strcmp(reasons[i], name))
			return i;
	if (i == NR_REASONS || strlen(name) >= sizeof(reasons[0]))
		fail("too many or too long reasons");
	strcpy(reasons[i], name);
	return i;
}

static struct gap *read_gaps(const char *path, size_t *nr)
{
	FILE *f = fopen(path, "r");
	struct gap *g = NULL;
	size_t n = 0, cap = 0, lines = 0;
	char line[4096];

	if (!f)
		fail("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, size;
		char why[32], *p, *q, *s;

		if (++lines > MAX_LINES)
			fail("%s: too many lines", path);
		/* "PATH: START, SIZE bytes, left out: REASON" (PATH may have ": ") */
		q = strstr(line, ", left out: ");
		if (!q)
			continue;
		for (p = NULL, s = line; (s = strstr(s, ": ")) && s < q; s += 2)
			p = s;
		if (!p || sscanf(p + 2, "%llx, %llu bytes, left out: %31s",
				 &start, &size, why) != 3)
			fail("%s: cannot read: %s", path, line);
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			g = realloc(g, cap * sizeof(*g));
			if (!g)
				fail("out of memory");
		}
		g[n++] = (struct gap){ start, size, reason_id(why), false };
	}
	fclose(f);
	*nr = n;
	return g;
}

/* ---- main ---- */

static char *slurp(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t len;
	char *buf;
	size_t got = 0;
	ssize_t r;

	if (fd < 0)
		fail("%s: %s", path, strerror(errno));
	len = lseek(fd, 0, SEEK_END);
	if (len < 0 || (uint64_t)len > MAX_TABLE || lseek(fd, 0, SEEK_SET))
		fail("%s: cannot read, or too large", path);
	buf = malloc(len ? len : 1);
	if (!buf)
		fail("out of memory");
	while (got < (size_t)len) {
		r = read(fd, buf + got, len - got);
		if (r <= 0)
			fail("%s: short read", path);
		got += r;
	}
	close(fd);
	*size = got;
	return buf;
}

/* The function of @funcs (sorted by start) that starts at @pc, or @n */
static size_t find_func(const struct func *funcs, size_t n, uint64_t pc)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (funcs[mid].start < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && funcs[lo].start == pc ? lo : n;
}

static int cmp_fde(const void *x, const void *y)
{
	const struct fde *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->size < b->size ? -1 : a->size > b->size;
}

int main(int argc, char **argv)
{
	sframe_decoder_ctx *d = NULL;
	const struct arch *a;
	struct fde *fdes;
	struct func *funcs = NULL;
	struct gap *gaps;
	size_t nr_fdes, nr_funcs = 0, nr_gaps, i, j, tsize = 0, shstrndx, phnum;
	unsigned long pcs = 0, converted = 0, left_out = 0, flex = 0, pcmask = 0;
	Elf_Scn *scn = NULL;
	Elf_Data *eh = NULL;
	uint64_t eh_addr = 0, base = UINT64_MAX;
	Dwarf_CFI *cfi;
	GElf_Ehdr ehdr;
	char *table;
	Elf *elf;
	int fd, err = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: eh2sframe-oracle OBJECT TABLE LEFT-OUT\n");
		return 2;
	}
	obj_path = argv[1];
	elf_version(EV_CURRENT);
	fd = open(obj_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail("%s", strerror(errno));
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !gelf_getehdr(elf, &ehdr) || elf_getshdrstrndx(elf, &shstrndx))
		fail("not an ELF object: %s", elf_errmsg(-1));
	a = ehdr.e_machine == EM_X86_64 ? &x86_64 :
	    ehdr.e_machine == EM_AARCH64 ? &aarch64 : NULL;
	if (!a)
		fail("machine %u not known here", ehdr.e_machine);
	/* Where the table is: the object's lowest load address */
	if (elf_getphdrnum(elf, &phnum))
		fail("no program headers: %s", elf_errmsg(-1));
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_vaddr < base)
			base = ph.p_vaddr;
	}
	if (base == UINT64_MAX)
		fail("no PT_LOAD segment");
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".eh_frame") && sh.sh_type == SHT_PROGBITS) {
			eh = elf_getdata(scn, NULL);
			eh_addr = sh.sh_addr;
		}
	}
	if (!eh)
		fail("no .eh_frame");
	cfi = dwarf_getcfi_elf(elf);
	if (!cfi)
		fail("libdw reads no CFI: %s", dwarf_errmsg(-1));

	fdes = read_fdes(elf, eh, eh_addr, &nr_fdes);
	qsort(fdes, nr_fdes, sizeof(*fdes), cmp_fde);
	gaps = read_gaps(argv[3], &nr_gaps);

	table = slurp(argv[2], &tsize);
	if (tsize) {
		d = sframe_decode(table, tsize, &err);
		if (!d)
			fail("%s: libsframe cannot decode it (%d)", argv[2], err);
		if (sframe_decoder_get_version(d) != SFRAME_VERSION_3 ||
		    !(sframe_decoder_get_flags(d) & SFRAME_F_FDE_FUNC_START_PCREL))
			fail("%s: not V3 with PC-relative starts", argv[2]);
		nr_funcs = sframe_decoder_get_num_fidx(d);
		funcs = calloc(nr_funcs ? nr_funcs : 1, sizeof(*funcs));
		if (!funcs)
			fail("out of memory");
	}
	for (i = 0; i < nr_funcs; i++) {
		struct func *f = &funcs[i];
		uint32_t size;
		int64_t off;

		if (sframe_decoder_get_funcdesc_v3(d, i, &f->nr_fres, &size, &off,
						   &f->info, &f->info2, &f->rep))
			fail("%s: function %zu cannot be read", argv[2], i);
		err = 0;
		/* PC-relative: from the field, the table at @base */
		f->start = base +
			   sframe_decoder_get_offsetof_fde_start_addr(d, i, &err) +
			   off;
		f->size = size;
		f->idx = i;
		if (err)
			fail("%s: function %zu has no start", argv[2], i);
		if (i && f->start < f[-1].start + f[-1].size)
			say(&mismatches, "function %#" PRIx64 " starts before the end of the one before",
			    f->start);
		check_func(d, cfi, a, f, &pcs);
		flex += SFRAME_V3_FDE_TYPE(f->info2) == SFRAME_FDE_TYPE_FLEX;
		pcmask += SFRAME_V3_FDE_PC_TYPE(f->info) == SFRAME_V3_FDE_PCTYPE_MASK;
	}

	/*
	 * Each FDE: converted whole (one function, or for a PLT a plain
	 * function then the PC-mask one for the rest), or left out.
	 */
	for (i = 0; i < nr_fdes; i++) {
		struct fde *fd = &fdes[i];
		uint64_t p = fd->start, end = fd->start + fd->size;

		for (j = 0; j < nr_gaps; j++) {
			if (!gaps[j].matched && gaps[j].start == fd->start &&
			    gaps[j].size == fd->size) {
				gaps[j].matched = fd->done = true;
				reason_count[gaps[j].reason]++;
				left_out++;
				break;
			}
		}
		if (fd->done || !fd->size)
			continue;
		while (p < end && (j = find_func(funcs, nr_funcs, p)) < nr_funcs &&
		       !funcs[j].matched && funcs[j].size &&
		       funcs[j].start + funcs[j].size <= end) {
			funcs[j].matched = true;
			p += funcs[j].size;
		}
		if (p == end) {
			fd->done = true;
			converted++;
		}
	}
	/* FDEs no function names (unreadable, empty): "0, 0 bytes" */
	for (i = 0; i < nr_fdes; i++) {
		if (fdes[i].done)
			continue;
		for (j = 0; j < nr_gaps; j++) {
			if (!gaps[j].matched && !gaps[j].size) {
				gaps[j].matched = fdes[i].done = true;
				reason_count[gaps[j].reason]++;
				left_out++;
				break;
			}
		}
		if (!fdes[i].done)
			say(&unaccounted, "FDE %#" PRIx64 ", %" PRIu64 " bytes: neither converted whole nor left out",
			    fdes[i].start, fdes[i].size);
	}
	for (j = 0; j < nr_gaps; j++)
		if (!gaps[j].matched)
			say(&unaccounted, "left out %#" PRIx64 ", %" PRIu64 " bytes (%s): no such FDE",
			    gaps[j].start, gaps[j].size, reasons[gaps[j].reason]);
	for (j = 0; j < nr_funcs; j++)
		if (!funcs[j].matched)
			say(&unaccounted, "function %#" PRIx64 ", %" PRIu64 " bytes: no FDE has it",
			    funcs[j].start, funcs[j].size);

	printf("%s fdes=%zu converted=%lu left_out=%lu functions=%zu flex=%lu pcmask=%lu pcs=%lu mismatch=%lu unaccounted=%lu",
	       obj_path, nr_fdes, converted, left_out, nr_funcs, flex, pcmask,
	       pcs, mismatches, unaccounted);
	for (i = 0; i < NR_REASONS && reasons[i][0]; i++)
		if (reason_count[i])
			printf(" out.%s=%lu", reasons[i], reason_count[i]);
	printf("\n");

	if (d)
		sframe_decoder_free(&d);
	free(table);
	free(funcs);
	free(gaps);
	free(fdes);
	dwarf_cfi_end(cfi);
	elf_end(elf);
	close(fd);
	return mismatches || unaccounted;
}
