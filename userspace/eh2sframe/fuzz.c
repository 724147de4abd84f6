// SPDX-License-Identifier: GPL-2.0
/*
 * eh2sframe's conversion under libFuzzer: the input is a section of call
 * frame information, after one byte that says which architecture (bit 0:
 * AArch64) and which kind of section (bit 1: .debug_frame) it is.  Any
 * input must be converted or refused without a crash, a sanitizer report
 * or a leak, and what is converted must make a table that libsframe
 * decodes, with sorted functions that do not overlap.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include <sframe-api.h>

#include "convert.h"

#define SECTION_ADDR	0x10000

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct cfi_section s = { .addr = SECTION_ADDR };
	struct object o = { .path = "fuzz" };
	sframe_decoder_ctx *d;
	size_t i, len;
	char *table;
	int err = 0;

	if (!size)
		return 0;
	o.arch = arch_find(data[0] & 1 ? EM_AARCH64 : EM_X86_64);
	s.arch = &o.arch->cfi;
	s.eh = !(data[0] & 2);
	s.data = data + 1;
	s.size = size - 1;
	convert_section(&o, &s);
	sort_funcs(&o);
	for (i = 1; i < o.nr_funcs; i++)
		if (o.funcs[i].start < o.funcs[i - 1].start + o.funcs[i - 1].size)
			abort();
	table = encode(&o, 0, &len);
	if (o.nr_funcs && !table)
		abort();
	if (table) {
		d = sframe_decode(table, len, &err);
		if (!d || sframe_decoder_get_num_fidx(d) != o.nr_funcs)
			abort();
		sframe_decoder_free(&d);
	}
	free(table);
	object_free(&o);
	return 0;
}
