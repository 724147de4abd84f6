/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eh2sframe's conversion: what it keeps of an object, and its steps.
 */
#ifndef EH2SFRAME_CONVERT_H
#define EH2SFRAME_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfi.h"

/* An architecture: its registers, its SFrame ABI, where its RA is. */
struct arch {
	struct cfi_arch cfi;
	const char *name;
	uint8_t abi;
	int8_t fixed_ra;
	/* The registers a flex FDE may name (x86_64), or 0: no flex FDEs */
	unsigned int flex_regs;
};

/* One FRE as the converter builds it, before encoding. */
struct fre {
	uint32_t start;		/* from the function's start */
	bool outermost;		/* RA undefined: no words */
	bool sp_based, mangled;
	bool has_ra, has_fp;
	int32_t cfa, ra, fp;
	bool fp_restored;	/* for the comparison only */
	/*
	 * Rules that only a flex FDE can say (x86_64): the CFA based on
	 * another register than SP or FP, or read from the stack (DRAP), the
	 * FP saved at a register plus fp rather than at the CFA plus fp.
	 */
	bool flex;
	bool cfa_deref;
	bool fp_at_reg;		/* FP saved at fp_reg + fp */
	bool fp_in_reg;		/* FP in register fp_reg */
	bool ra_explicit;	/* x86_64: RA not at CFA - 8, but at CFA + ra */
	bool ra_in_reg;		/* ... or in register ra_reg */
	uint16_t cfa_reg, fp_reg, ra_reg;	/* DWARF numbers */
	bool cfa_reg_set;	/* for the comparison only, see cfi_row */
};

/* A converted function */
struct func {
	uint64_t start, size;
	bool signal, key_b;
	bool flex;		/* a flex FDE: one of its FREs needs it */
	uint8_t rep;		/* a PC-mask FDE's block size (the PLT), or 0 */
	struct fre *fres;
	uint32_t nr_fres;
};

/* A function left out, for the comparison to say why. */
struct gap {
	uint64_t start, size;
	int reason;
};

/* An object being converted, and what became of its FDEs */
struct object {
	const char *path;
	const struct arch *arch;
	struct func *funcs;
	size_t nr_funcs, cap_funcs;
	struct gap *gaps;
	size_t nr_gaps, cap_gaps;
	/* counts, for the output line */
	unsigned long fdes, left_out[CFI_NR_REASONS];
	uint64_t bytes, bytes_converted;
	uint64_t cfi_size;	/* of the section read */
	/*
	 * The lowest p_vaddr of the object's PT_LOAD segments: a table's
	 * addresses are relative to it, so that they stay the same when
	 * the object is linked at another address (prelink).
	 */
	uint64_t base;
	unsigned char build_id[64];
	size_t build_id_len;
};

/* Say on stderr why each function is left out */
extern bool conv_verbose;

/* The architecture of ELF machine @machine, or NULL */
const struct arch *arch_find(unsigned int machine);

/* realloc() of @n items of @size, exiting when there is no memory */
void *xrealloc(void *p, size_t n, size_t size);

/* Convert each FDE of @s that fits into @o, counting the others. */
void convert_section(struct object *o, const struct cfi_section *s);

/* Sort the functions; one that starts inside the one before is dropped. */
void sort_funcs(struct object *o);

/*
 * The SFrame section of @o's converted functions, as if placed @at bytes
 * after the object's lowest load address (@o->base): malloc'ed, with its
 * size, or NULL.
 */
char *encode(const struct object *o, uint64_t at, size_t *size);

/* Free what the conversion allocated in @o. */
void object_free(struct object *o);

#endif
