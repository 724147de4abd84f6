/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ELF object read for eh2sframe and its gas comparison (gas.c).
 */
#ifndef EH2SFRAME_OBJECT_H
#define EH2SFRAME_OBJECT_H

#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

#include "convert.h"

/* A section's data by name, or NULL; sets its address and size. */
const unsigned char *object_section(Elf *elf, const char *want,
				   uint64_t *addr, size_t *size);

/*
 * Open @path and convert its call frame information into @o.  Returns
 * the ELF handle (the caller ends it and closes *@fd), or NULL with a
 * message.  *@fd is the file open already, or -1 to open @path.
 */
Elf *object_load(const char *path, struct object *o, int *fd);

/* Free @o, end @elf and close @fd. */
void object_unload(struct object *o, Elf *elf, int fd);

/* @o's line of output: its counts, then @extra. */
void object_print(const struct object *o, const char *extra);

#endif
