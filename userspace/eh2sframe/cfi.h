/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reader of DWARF call frame information (.eh_frame and .debug_frame)
 * that tracks only what SFrame can say: the CFA, the return address, the
 * frame pointer and, on AArch64, whether the return address is signed.
 */
#ifndef EH2SFRAME_CFI_H
#define EH2SFRAME_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a function, or a whole section, was left out. */
enum cfi_reason {
	CFI_OK,
	CFI_BAD_ENTRY,		/* a length or an offset out of bounds */
	CFI_BAD_CIE,		/* unknown version or augmentation */
	CFI_BAD_POINTER,	/* a pointer encoding SFrame has no use for */
	CFI_BAD_OP,		/* an unknown or truncated CFA instruction */
	CFI_TOO_DEEP,		/* remember_state nested too deeply */
	CFI_TOO_LONG,		/* more rows or bytes than one FDE may have */
	CFI_CFA_EXPR,		/* CFA given by a DWARF expression */
	CFI_PLT,		/* the PLT's expression, not on a whole PLT */
	CFI_CFA_REG,		/* CFA based on a register but SP or FP */
	CFI_RA_RULE,		/* return address not where SFrame has it */
	CFI_FP_RULE,		/* frame pointer saved other than at CFA + k */
	CFI_OFFSET,		/* an offset that does not fit 32 bits */
	CFI_FP_NO_RA,		/* AArch64: FP saved but not the RA */
	CFI_EMPTY,		/* zero-sized, or outside the object */
	CFI_OVERLAP,		/* starts inside the previous function */
	CFI_RA_COLUMN,		/* the CIE's return column is not the RA's */
	CFI_SP_RULE,		/* the caller's SP is not the CFA */
	CFI_NR_REASONS
};

extern const char *const cfi_reason_name[CFI_NR_REASONS];

/* A register's rule, for the registers tracked. */
enum cfi_rule_kind {
	RULE_SAME,		/* same value (or unspecified) */
	RULE_UNDEF,		/* undefined: for the RA, the outermost frame */
	RULE_OFFSET,		/* saved at CFA + off */
	RULE_REG_OFFSET,	/* saved at reg + off (DW_CFA_expression) */
	RULE_REG,		/* in register reg (DW_CFA_register) */
	RULE_OTHER,		/* by another expression, ... */
};

/* A register number too big to be one: no rule is based on it. */
#define CFI_NO_REG	0xffffffffu

struct cfi_rule {
	enum cfi_rule_kind kind;
	unsigned int reg;	/* RULE_REG_OFFSET's and RULE_REG's */
	int64_t off;
};

/* One row of the table: the rules from @pc up to the next row. */
struct cfi_row {
	uint64_t pc;
	/*
	 * The CFA is cfa_reg + cfa_off, or *(cfa_reg + cfa_off) if cfa_deref
	 * (a DW_CFA_def_cfa_expression of those forms, as a function that
	 * realigns its stack through DRAP has).  cfa_plt is the x86_64 PLT's
	 * expression, SP + 8, plus 8 from byte cfa_plt of each 16-byte entry
	 * on; cfa_expr is any other expression.
	 */
	bool cfa_expr;
	unsigned int cfa_plt;
	bool cfa_deref;
	unsigned int cfa_reg;	/* CFI_NO_REG: one that cannot be */
	int64_t cfa_off;
	bool cfa_reg_set;	/* by DW_CFA_def_cfa_register at this row */
	struct cfi_rule ra, fp;
	/* SP's rule: RULE_SAME when the caller's SP is the CFA, as SFrame
	 * has it (no rule, or DW_CFA_val_offset of 0) */
	struct cfi_rule sp;
	bool ra_mangled;
	bool fp_restored;	/* FP's rule is the CIE's, by DW_CFA_restore */
};

/* The facts of the architecture the reader needs. */
struct cfi_arch {
	unsigned int machine;	/* EM_* */
	unsigned int sp, fp, ra;	/* DWARF register numbers */
};

/* A section of call frame information, as the object has it. */
struct cfi_section {
	const struct cfi_arch *arch;
	const unsigned char *data;
	size_t size;
	uint64_t addr;		/* the section's address, for pcrel */
	bool eh;		/* .eh_frame, or .debug_frame */
	/*
	 * Bytes of CIEs and CFA programs the reader may still read: each
	 * FDE reads its CIE again, so that a big CIE shared by many small
	 * FDEs would cost their product.  Past it, FDEs are too-long.
	 */
	uint64_t *budget;
};

/* A budget for a section of @size bytes: real ones use about 2 * size. */
#define CFI_BUDGET(size)	(16 * (uint64_t)(size) + 65536)

/* One function: its range and flags, and where its instructions are. */
struct cfi_fde {
	uint64_t start, size;
	bool signal;		/* the CIE's "S" */
	bool key_b;		/* AArch64: the CIE's "B" */
	/* private to cfi.c */
	size_t cie_insns, cie_end, insns, end;
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;	/* the CIE's return address column */
	unsigned char ptr_enc;
};

/*
 * cfi_next_fde - the next FDE of @s from *@pos on, skipping CIEs.
 * Returns 1 with @fde filled, 0 at the end, or -reason: an FDE that cannot
 * be read (its reason; *@pos moves past it when its length is sound, so
 * that the caller can go on), or a section that cannot be read on (*@pos is
 * then set to the end).
 */
int cfi_next_fde(const struct cfi_section *s, size_t *pos,
		 struct cfi_fde *fde);

/*
 * cfi_rows - run the CFA program of @fde and call @row for each row, in
 * order, with its end.  Stops at the first non-zero return of @row and
 * returns it, or -reason when the program cannot be run.
 */
int cfi_rows(const struct cfi_section *s, const struct cfi_fde *fde,
	     int (*row)(const struct cfi_row *r, uint64_t end, void *arg),
	     void *arg);

#endif
