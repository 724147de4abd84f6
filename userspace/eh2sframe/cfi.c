// SPDX-License-Identifier: GPL-2.0
/*
 * A bounded reader of DWARF call frame information.
 *
 * The section is untrusted: every read is checked against the end of the
 * entry it belongs to, every entry against the end of the section, and
 * the work is linear in the size of the section (each CFA instruction is
 * read once per FDE, remember_state nests at most CFI_MAX_DEPTH deep).
 * Only the rules SFrame can carry are kept: the CFA, and where the return
 * address and the frame pointer are; a rule for any other register is
 * read and dropped.
 */
#include <elf.h>
#include <string.h>

#include "cfi.h"

#define CFI_MAX_DEPTH	16

/* DWARF pointer encodings (DW_EH_PE_*) */
#define PE_ABSPTR	0x00
#define PE_ULEB128	0x01
#define PE_UDATA2	0x02
#define PE_UDATA4	0x03
#define PE_UDATA8	0x04
#define PE_SLEB128	0x09
#define PE_SDATA2	0x0a
#define PE_SDATA4	0x0b
#define PE_SDATA8	0x0c
#define PE_PCREL	0x10
#define PE_INDIRECT	0x80
#define PE_OMIT		0xff

const char *const cfi_reason_name[CFI_NR_REASONS] = {
	[CFI_OK]		= "ok",
	[CFI_BAD_ENTRY]		= "bad-entry",
	[CFI_BAD_CIE]		= "bad-cie",
	[CFI_BAD_POINTER]	= "pointer-encoding",
	[CFI_BAD_OP]		= "bad-instruction",
	[CFI_TOO_DEEP]		= "remember-too-deep",
	[CFI_TOO_LONG]		= "too-long",
	[CFI_CFA_EXPR]		= "cfa-expression",
	[CFI_PLT]		= "plt-expression",
	[CFI_CFA_REG]		= "cfa-register",
	[CFI_RA_RULE]		= "ra-rule",
	[CFI_FP_RULE]		= "fp-rule",
	[CFI_OFFSET]		= "offset-range",
	[CFI_FP_NO_RA]		= "fp-without-ra",
	[CFI_EMPTY]		= "empty",
	[CFI_OVERLAP]		= "overlap",
	[CFI_RA_COLUMN]		= "ra-column",
	[CFI_SP_RULE]		= "sp-rule",
};

/* A cursor over [pos, end) of the section; any read past end sets bad. */
struct cur {
	const unsigned char *data;
	size_t pos, end;
	bool bad;
};

static bool take(struct cur *c, size_t n)
{
	if (c->bad || n > c->end - c->pos) {
		c->bad = true;
		return false;
	}
	return true;
}

static uint64_t rd_le(struct cur *c, size_t n)
{
	uint64_t v = 0;
	size_t i;

	if (!take(c, n))
		return 0;
	for (i = 0; i < n; i++)
		v |= (uint64_t)c->data[c->pos + i] << (8 * i);
	c->pos += n;
	return v;
}

static uint8_t rd_u8(struct cur *c)
{
	return rd_le(c, 1);
}

/*
 * LEB128: at most ten bytes.  Bits past the 64th are an error, but for
 * the sign extension of a signed value.
 */
static uint64_t rd_leb(struct cur *c, bool sign)
{
	unsigned int shift = 0;
	uint64_t v = 0;
	uint8_t b;

	do {
		b = rd_u8(c);
		if (c->bad)
			return 0;
		if (shift >= 64 || (shift == 63 && (b & 0x7e) &&
				    !(sign && (b & 0x7f) == 0x7f))) {
			c->bad = true;
			return 0;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

static uint64_t rd_uleb(struct cur *c)
{
	return rd_leb(c, false);
}

static int64_t rd_sleb(struct cur *c)
{
	return (int64_t)rd_leb(c, true);
}

/* A register number: CFI_NO_REG for one no machine has */
static unsigned int rd_reg(struct cur *c)
{
	uint64_t r = rd_uleb(c);

	return r > UINT16_MAX ? CFI_NO_REG : (unsigned int)r;
}

/* Skip a DWARF expression block: its length, then its bytes. */
static void skip_block(struct cur *c)
{
	uint64_t len = rd_uleb(c);

	if (!c->bad && take(c, len))
		c->pos += len;
}

/* The forms of DWARF expression that SFrame can say, as recognized. */
struct expr {
	enum { EXPR_OTHER, EXPR_BREG, EXPR_PLT } kind;
	unsigned int reg;	/* EXPR_BREG: reg + off, or *(reg + off) */
	int64_t off;
	bool deref;
	unsigned int plt;	/* EXPR_PLT: where the second CFA begins */
};

/* DW_OP_breg0..31 and DW_OP_bregx: a register plus a signed constant */
static bool rd_breg(struct cur *c, unsigned int *reg, int64_t *off)
{
	uint8_t op = rd_u8(c);
	uint64_t r;

	if (op >= 0x70 && op <= 0x8f)
		r = op - 0x70;
	else if (op == 0x92)
		r = rd_uleb(c);
	else
		return false;
	*off = rd_sleb(c);
	if (c->bad || r > UINT16_MAX)
		return false;
	*reg = r;
	return true;
}

/*
 * Read the expression block at @c into @x: "breg N, off" (an address),
 * the same followed by DW_OP_deref (a value read there), or the CFA of the
 * lazy-binding entries of an x86_64 PLT as ld writes it,
 *	breg7 (rsp) 8; breg16 (rip) 0; lit15; and; litK; ge; lit3; shl; plus
 * that is RSP + 8, plus 8 once the entry has pushed its index (byte K of
 * each 16-byte entry on).  Anything else is EXPR_OTHER.
 */
static void rd_expr(struct cur *c, unsigned int machine, struct expr *x)
{
	static const uint8_t plt_tail[] = { 0x3f, 0x1a, 0, 0x2a, 0x33, 0x24,
					    0x22 };
	uint64_t len = rd_uleb(c);
	struct cur e = *c;
	unsigned int reg;
	int64_t off;
	size_t i;

	x->kind = EXPR_OTHER;
	if (c->bad || !take(c, len))
		return;
	c->pos += len;
	e.end = e.pos + len;

	if (!rd_breg(&e, &x->reg, &x->off))
		return;
	if (e.pos == e.end) {
		x->kind = EXPR_BREG;
		x->deref = false;
		return;
	}
	if (e.end - e.pos == 1 && e.data[e.pos] == 0x06) {	/* deref */
		x->kind = EXPR_BREG;
		x->deref = true;
		return;
	}
	if (machine != EM_X86_64 || x->reg != 7 || x->off != 8 ||
	    !rd_breg(&e, &reg, &off) || reg != 16 || off ||
	    e.end - e.pos != sizeof(plt_tail))
		return;
	for (i = 0; i < sizeof(plt_tail); i++) {
		uint8_t b = e.data[e.pos + i];

		if (i == 2 ? b < 0x31 || b > 0x3f : b != plt_tail[i])
			return;
	}
	x->kind = EXPR_PLT;
	x->plt = e.data[e.pos + 2] - 0x30;
}

/*
 * An encoded pointer.  Only absolute and PC-relative values are of use for
 * the addresses of functions; @apply is false for a length, which has the
 * format of the encoding but no base.
 */
static uint64_t rd_ptr(struct cur *c, const struct cfi_section *s,
		       unsigned char enc, bool apply, int *reason)
{
	uint64_t field = s->addr + c->pos, v;

	if (enc == PE_OMIT || (enc & PE_INDIRECT) ||
	    (apply && (enc & 0x70) != PE_ABSPTR && (enc & 0x70) != PE_PCREL)) {
		*reason = CFI_BAD_POINTER;
		return 0;
	}
	switch (enc & 0x0f) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		v = rd_le(c, 8);
		break;
	case PE_ULEB128:
		v = rd_uleb(c);
		break;
	case PE_UDATA2:
		v = rd_le(c, 2);
		break;
	case PE_SDATA2:
		v = (uint64_t)(int64_t)(int16_t)rd_le(c, 2);
		break;
	case PE_UDATA4:
		v = rd_le(c, 4);
		break;
	case PE_SDATA4:
		v = (uint64_t)(int64_t)(int32_t)rd_le(c, 4);
		break;
	case PE_SLEB128:
		v = (uint64_t)rd_sleb(c);
		break;
	default:
		*reason = CFI_BAD_POINTER;
		return 0;
	}
	if (apply && (enc & 0x70) == PE_PCREL)
		v += field;
	return v;
}

/* Skip an encoded pointer that is not used (the personality routine's) */
static bool skip_ptr(struct cur *c, unsigned char enc)
{
	size_t n;

	switch (enc & 0x0f) {
	case PE_ULEB128:
		rd_uleb(c);
		return !c->bad;
	case PE_SLEB128:
		rd_sleb(c);
		return !c->bad;
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		n = 8;
		break;
	case PE_UDATA4:
	case PE_SDATA4:
		n = 4;
		break;
	case PE_UDATA2:
	case PE_SDATA2:
		n = 2;
		break;
	default:
		return false;
	}
	if (!take(c, n))
		return false;
	c->pos += n;
	return true;
}

/*
 * The entry at @pos: sets its contents' start (after the length), its end,
 * and the value of its CIE id or CIE pointer field, whose position is
 * *@id_pos.  Returns 0, 1 at the terminator, or -reason.
 */
static int read_entry(const struct cfi_section *s, size_t pos, size_t *end,
		      size_t *id_pos, uint64_t *id, bool *dwarf64)
{
	struct cur c = { s->data, pos, s->size, false };
	uint64_t len = rd_le(&c, 4);

	if (c.bad)
		return -CFI_BAD_ENTRY;
	if (!len)
		return 1;
	*dwarf64 = len == 0xffffffff;
	if (*dwarf64)
		len = rd_le(&c, 8);
	if (c.bad || len > c.end - c.pos || len < 4)
		return -CFI_BAD_ENTRY;
	*end = c.pos + len;
	*id_pos = c.pos;
	/* .eh_frame's CIE pointer is 4 bytes in either format. */
	*id = rd_le(&c, s->eh || !*dwarf64 ? 4 : 8);
	return c.bad ? -CFI_BAD_ENTRY : 0;
}

static bool is_cie(const struct cfi_section *s, uint64_t id, bool dwarf64)
{
	if (s->eh)
		return id == 0;
	return id == (dwarf64 ? ~(uint64_t)0 : 0xffffffff);
}

/* Take @n bytes of work from the section's budget */
static bool charge(const struct cfi_section *s, uint64_t n)
{
	if (*s->budget < n) {
		*s->budget = 0;
		return false;
	}
	*s->budget -= n;
	return true;
}

/* The CIE at @pos, into the CIE half of @fde. */
static int read_cie(const struct cfi_section *s, size_t pos,
		    struct cfi_fde *fde, bool *has_aug_data)
{
	struct cur c = { s->data, pos, s->size, false };
	size_t end, id_pos, aug, aug_end = 0;
	unsigned int version;
	bool dwarf64;
	uint64_t id;
	int ret;

	ret = read_entry(s, pos, &end, &id_pos, &id, &dwarf64);
	if (ret)
		return ret > 0 ? -CFI_BAD_ENTRY : ret;
	if (!charge(s, end - pos))
		return -CFI_TOO_LONG;
	if (!is_cie(s, id, dwarf64))
		return -CFI_BAD_CIE;
	c.pos = id_pos + (s->eh || !dwarf64 ? 4 : 8);
	c.end = end;

	version = rd_u8(&c);
	if (version != 1 && version != 3 && !(version == 4 && !s->eh))
		return -CFI_BAD_CIE;
	aug = c.pos;
	while (take(&c, 1) && c.data[c.pos])
		c.pos++;
	if (!take(&c, 1))
		return -CFI_BAD_ENTRY;
	c.pos++;
	if (version == 4 && (rd_u8(&c) != 8 || rd_u8(&c) != 0))
		return -CFI_BAD_CIE;
	fde->code_align = rd_uleb(&c);
	fde->data_align = rd_sleb(&c);
	fde->ra_reg = version == 1 ? rd_u8(&c) : rd_uleb(&c);
	fde->ptr_enc = PE_ABSPTR;
	fde->signal = false;
	fde->key_b = false;
	*has_aug_data = s->data[aug] == 'z';
	if (*has_aug_data) {
		uint64_t len = rd_uleb(&c);

		if (!take(&c, len))
			return -CFI_BAD_ENTRY;
		aug_end = c.pos + len;
		c.end = aug_end;
	} else if (s->data[aug]) {
		/* Only "z..." augmentations say how long their data is. */
		return -CFI_BAD_CIE;
	}
	for (aug++; *has_aug_data && s->data[aug]; aug++) {
		switch (s->data[aug]) {
		case 'L':
			rd_u8(&c);
			break;
		case 'P':
			if (!skip_ptr(&c, rd_u8(&c)))
				return -CFI_BAD_CIE;
			break;
		case 'R':
			fde->ptr_enc = rd_u8(&c);
			break;
		case 'S':
			fde->signal = true;
			break;
		case 'B':
			fde->key_b = true;
			break;
		case 'G':	/* AArch64 MTE tagged stack frames */
			break;
		default:
			return -CFI_BAD_CIE;
		}
	}
	if (c.bad)
		return -CFI_BAD_ENTRY;
	fde->cie_insns = *has_aug_data ? aug_end : c.pos;
	fde->cie_end = end;
	return 0;
}

int cfi_next_fde(const struct cfi_section *s, size_t *pos,
		 struct cfi_fde *fde)
{
	for (;;) {
		struct cur c = { s->data, 0, 0, false };
		size_t end, id_pos, cie;
		bool dwarf64, aug_data;
		int reason = 0, ret;
		uint64_t id;

		if (*pos >= s->size)
			return 0;
		ret = read_entry(s, *pos, &end, &id_pos, &id, &dwarf64);
		if (ret) {
			*pos = s->size;
			return ret > 0 ? 0 : ret;
		}
		*pos = end;
		if (is_cie(s, id, dwarf64))
			continue;

		if (s->eh) {
			if (id > id_pos)
				return -CFI_BAD_ENTRY;
			cie = id_pos - id;
		} else {
			cie = id;
		}
		if (cie >= s->size)
			return -CFI_BAD_ENTRY;
		ret = read_cie(s, cie, fde, &aug_data);
		if (ret)
			return ret;

		c.pos = id_pos + (s->eh || !dwarf64 ? 4 : 8);
		c.end = end;
		fde->start = rd_ptr(&c, s, fde->ptr_enc, true, &reason);
		fde->size = rd_ptr(&c, s, fde->ptr_enc & 0x0f, false, &reason);
		if (aug_data)
			skip_block(&c);
		if (reason)
			return -reason;
		if (c.bad)
			return -CFI_BAD_ENTRY;
		if (!fde->size || fde->start + fde->size < fde->start)
			return -CFI_EMPTY;
		fde->insns = c.pos;
		fde->end = end;
		return 1;
	}
}

/* The state of the registers SFrame tracks. */
struct state {
	bool cfa_expr, cfa_deref;
	bool cfa_from_expr;	/* any DW_CFA_def_cfa_expression */
	bool cfa_reg_set;	/* DW_CFA_def_cfa_register at this location */
	unsigned int cfa_plt;
	unsigned int cfa_reg;
	int64_t cfa_off;
	struct cfi_rule ra, fp, sp;
	bool ra_mangled;
	bool fp_restored;
};

struct machine {
	const struct cfi_section *s;
	const struct cfi_fde *fde;
	struct state cur, init;
	struct state stack[CFI_MAX_DEPTH];
	unsigned int depth;
	uint64_t loc;
	int (*row)(const struct cfi_row *r, uint64_t end, void *arg);
	void *arg;
};

static struct cfi_rule *reg_rule(struct state *st, const struct machine *m,
				 uint64_t reg)
{
	if (reg == m->fde->ra_reg)
		return &st->ra;
	if (reg == m->s->arch->fp)
		return &st->fp;
	if (reg == m->s->arch->sp)
		return &st->sp;
	return NULL;
}

static int set_rule(struct machine *m, uint64_t reg, enum cfi_rule_kind kind,
		    int64_t off)
{
	struct cfi_rule *r = reg_rule(&m->cur, m, reg);

	if (r) {
		r->kind = kind;
		r->reg = 0;
		r->off = off;
	}
	if (r == &m->cur.fp)
		m->cur.fp_restored = false;
	return 0;
}

/* DW_CFA_restore: the rule the CIE gave the register */
static void restore_rule(struct machine *m, uint64_t reg)
{
	struct cfi_rule *r = reg_rule(&m->cur, m, reg);

	if (!r)
		return;
	*r = *reg_rule(&m->init, m, reg);
	if (r == &m->cur.fp)
		m->cur.fp_restored = true;
}

/* A CFA rule of register and offset (DW_CFA_def_cfa and the like) */
static void set_cfa_plain(struct machine *m)
{
	m->cur.cfa_expr = false;
	m->cur.cfa_deref = false;
	m->cur.cfa_from_expr = false;
	m->cur.cfa_plt = 0;
}

/*
 * DWARF allows a new register or offset only on a rule of register and
 * offset: one on a rule by expression makes the rule one that nobody can
 * read, left out as an expression is.
 */
static void keep_cfa_plain(struct machine *m)
{
	if (m->cur.cfa_from_expr) {
		set_cfa_plain(m);
		m->cur.cfa_expr = true;
	}
}

/* A CFA rule by expression: the forms SFrame can say, or cfa_expr */
static void set_cfa_expr(struct machine *m, const struct expr *x)
{
	set_cfa_plain(m);
	m->cur.cfa_from_expr = true;
	switch (x->kind) {
	case EXPR_BREG:
		m->cur.cfa_reg = x->reg;
		m->cur.cfa_off = x->off;
		m->cur.cfa_deref = x->deref;
		break;
	case EXPR_PLT:
		m->cur.cfa_reg = m->s->arch->sp;
		m->cur.cfa_off = 8;
		m->cur.cfa_plt = x->plt;
		break;
	default:
		m->cur.cfa_expr = true;
	}
}

static int factored(const struct machine *m, int64_t v, int64_t *off)
{
	return __builtin_mul_overflow(v, m->fde->data_align, off) ?
	       -CFI_OFFSET : 0;
}

/* The row from m->loc up to @to, if it is not empty, then move on. */
static int advance(struct machine *m, uint64_t to)
{
	uint64_t end = m->fde->start + m->fde->size;
	struct cfi_row r;
	int ret;

	if (to > end)
		to = end;
	if (to <= m->loc)
		return to < m->loc ? -CFI_BAD_OP : 0;
	r.pc = m->loc;
	r.cfa_expr = m->cur.cfa_expr;
	r.cfa_deref = m->cur.cfa_deref;
	r.cfa_plt = m->cur.cfa_plt;
	r.cfa_reg_set = m->cur.cfa_reg_set;
	m->cur.cfa_reg_set = false;
	r.cfa_reg = m->cur.cfa_reg;
	r.cfa_off = m->cur.cfa_off;
	r.ra = m->cur.ra;
	r.fp = m->cur.fp;
	r.sp = m->cur.sp;
	r.ra_mangled = m->cur.ra_mangled;
	r.fp_restored = m->cur.fp_restored;
	m->loc = to;
	ret = m->row(&r, to, m->arg);
	return ret;
}

static int advance_by(struct machine *m, uint64_t delta)
{
	uint64_t d;

	if (__builtin_mul_overflow(delta, m->fde->code_align, &d) ||
	    m->loc + d < m->loc)
		return -CFI_BAD_OP;
	return advance(m, m->loc + d);
}

/* Run the instructions in [pos, end): the CIE's (@in_cie) or the FDE's. */
static int run(struct machine *m, size_t pos, size_t end, bool in_cie)
{
	struct cur c = { m->s->data, pos, end, false };
	unsigned int in;
	struct expr x;
	int64_t off;
	int ret = 0;

	if (!charge(m->s, end - pos))
		return -CFI_TOO_LONG;
	while (!ret && !c.bad && c.pos < c.end) {
		uint8_t op = rd_u8(&c);
		uint64_t reg;
		int reason = 0;

		switch (op >> 6) {
		case 1:	/* DW_CFA_advance_loc */
			ret = in_cie ? 0 : advance_by(m, op & 0x3f);
			continue;
		case 2:	/* DW_CFA_offset */
			ret = factored(m, rd_uleb(&c), &off);
			if (!ret)
				ret = set_rule(m, op & 0x3f, RULE_OFFSET, off);
			continue;
		case 3:	/* DW_CFA_restore */
			if (in_cie)
				return -CFI_BAD_OP;
			restore_rule(m, op & 0x3f);
			continue;
		}
		switch (op) {
		case 0x00:	/* DW_CFA_nop */
			break;
		case 0x01:	/* DW_CFA_set_loc */
			reg = rd_ptr(&c, m->s, m->fde->ptr_enc, true, &reason);
			if (reason)
				return -reason;
			ret = in_cie ? -CFI_BAD_OP : advance(m, reg);
			break;
		case 0x02:	/* DW_CFA_advance_loc1 */
		case 0x03:	/* DW_CFA_advance_loc2 */
		case 0x04:	/* DW_CFA_advance_loc4 */
			reg = rd_le(&c, op == 0x02 ? 1 : op == 0x03 ? 2 : 4);
			if (!c.bad && !in_cie)
				ret = advance_by(m, reg);
			break;
		case 0x05:	/* DW_CFA_offset_extended */
			reg = rd_uleb(&c);
			ret = factored(m, rd_uleb(&c), &off);
			if (!ret)
				ret = set_rule(m, reg, RULE_OFFSET, off);
			break;
		case 0x06:	/* DW_CFA_restore_extended */
			reg = rd_uleb(&c);
			if (in_cie)
				return -CFI_BAD_OP;
			restore_rule(m, reg);
			break;
		case 0x07:	/* DW_CFA_undefined */
			ret = set_rule(m, rd_uleb(&c), RULE_UNDEF, 0);
			break;
		case 0x08:	/* DW_CFA_same_value */
			reg = rd_uleb(&c);
			/* SP's own value is the CFA only if that is SP + 0 */
			ret = set_rule(m, reg, reg == m->s->arch->sp ?
					       RULE_OTHER : RULE_SAME, 0);
			break;
		case 0x09:	/* DW_CFA_register */
			reg = rd_uleb(&c);
			in = rd_reg(&c);
			ret = set_rule(m, reg, in == CFI_NO_REG ? RULE_OTHER :
					       RULE_REG, 0);
			if (reg_rule(&m->cur, m, reg))
				reg_rule(&m->cur, m, reg)->reg = in;
			break;
		case 0x0a:	/* DW_CFA_remember_state */
			if (m->depth == CFI_MAX_DEPTH)
				return -CFI_TOO_DEEP;
			m->stack[m->depth++] = m->cur;
			break;
		case 0x0b:	/* DW_CFA_restore_state */
			if (!m->depth)
				return -CFI_BAD_OP;
			/* The whole row comes back, the CFA rule included. */
			m->cur = m->stack[--m->depth];
			m->cur.cfa_reg_set = false;
			break;
		case 0x0c:	/* DW_CFA_def_cfa */
			m->cur.cfa_reg = rd_reg(&c);
			m->cur.cfa_off = (int64_t)rd_uleb(&c);
			set_cfa_plain(m);
			break;
		case 0x0d:	/* DW_CFA_def_cfa_register */
			m->cur.cfa_reg = rd_reg(&c);
			m->cur.cfa_reg_set = true;
			keep_cfa_plain(m);
			break;
		case 0x0e:	/* DW_CFA_def_cfa_offset */
			m->cur.cfa_off = (int64_t)rd_uleb(&c);
			keep_cfa_plain(m);
			break;
		case 0x0f:	/* DW_CFA_def_cfa_expression */
			rd_expr(&c, m->s->arch->machine, &x);
			set_cfa_expr(m, &x);
			break;
		case 0x10:	/* DW_CFA_expression */
			reg = rd_uleb(&c);
			rd_expr(&c, m->s->arch->machine, &x);
			/* The register is saved at the expression's value */
			if (x.kind == EXPR_BREG && !x.deref) {
				ret = set_rule(m, reg, RULE_REG_OFFSET, x.off);
				if (reg_rule(&m->cur, m, reg))
					reg_rule(&m->cur, m, reg)->reg = x.reg;
			} else {
				ret = set_rule(m, reg, RULE_OTHER, 0);
			}
			break;
		case 0x16:	/* DW_CFA_val_expression */
			reg = rd_uleb(&c);
			skip_block(&c);
			ret = set_rule(m, reg, RULE_OTHER, 0);
			break;
		case 0x11:	/* DW_CFA_offset_extended_sf */
			reg = rd_uleb(&c);
			ret = factored(m, rd_sleb(&c), &off);
			if (!ret)
				ret = set_rule(m, reg, RULE_OFFSET, off);
			break;
		case 0x12:	/* DW_CFA_def_cfa_sf */
			m->cur.cfa_reg = rd_reg(&c);
			ret = factored(m, rd_sleb(&c), &m->cur.cfa_off);
			set_cfa_plain(m);
			break;
		case 0x13:	/* DW_CFA_def_cfa_offset_sf */
			ret = factored(m, rd_sleb(&c), &m->cur.cfa_off);
			keep_cfa_plain(m);
			break;
		case 0x14:	/* DW_CFA_val_offset */
		case 0x15:	/* DW_CFA_val_offset_sf */
			reg = rd_uleb(&c);
			off = op == 0x14 ? (int64_t)rd_uleb(&c) : rd_sleb(&c);
			/* SP = CFA + 0 says what SFrame assumes. */
			ret = set_rule(m, reg, reg == m->s->arch->sp && !off ?
					       RULE_SAME : RULE_OTHER, 0);
			break;
		case 0x2d:	/* DW_CFA_AARCH64_negate_ra_state */
			if (m->s->arch->machine != EM_AARCH64)
				return -CFI_BAD_OP;
			m->cur.ra_mangled = !m->cur.ra_mangled;
			break;
		case 0x2e:	/* DW_CFA_GNU_args_size */
			rd_uleb(&c);
			break;
		case 0x2f:	/* DW_CFA_GNU_negative_offset_extended */
			reg = rd_uleb(&c);
			ret = factored(m, -(int64_t)rd_uleb(&c), &off);
			if (!ret)
				ret = set_rule(m, reg, RULE_OFFSET, off);
			break;
		default:
			return -CFI_BAD_OP;
		}
	}
	return c.bad ? -CFI_BAD_OP : ret;
}

int cfi_rows(const struct cfi_section *s, const struct cfi_fde *fde,
	     int (*row)(const struct cfi_row *r, uint64_t end, void *arg),
	     void *arg)
{
	struct machine m = {
		.s = s, .fde = fde, .loc = fde->start, .row = row, .arg = arg,
	};
	int ret;

	/*
	 * SFrame says where the return address of the architecture is: a
	 * CIE whose return column is another register (DWARF lets it name
	 * any) describes a return address that SFrame cannot place, and
	 * its rules for that register would be taken for the RA's.  gas
	 * leaves such functions out too.
	 */
	if (fde->ra_reg != s->arch->ra)
		return -CFI_RA_COLUMN;
	/* Before the CIE says otherwise, RA and FP have their own values. */
	m.cur.ra.kind = RULE_SAME;
	m.cur.fp.kind = RULE_SAME;
	m.cur.sp.kind = RULE_SAME;
	m.cur.cfa_reg = s->arch->sp;
	ret = run(&m, fde->cie_insns, fde->cie_end, true);
	if (ret)
		return ret;
	m.init = m.cur;
	ret = run(&m, fde->insns, fde->end, false);
	if (ret)
		return ret;
	return advance(&m, fde->start + fde->size);
}
