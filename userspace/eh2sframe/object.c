// SPDX-License-Identifier: GPL-2.0
/*
 * An ELF object read for eh2sframe and its gas comparison: its sections,
 * its build-id and lowest load address, its call frame information
 * converted.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "object.h"

/* A section's data by name, or NULL; sets its address and size. */
const unsigned char *object_section(Elf *elf, const char *want,
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
Elf *object_load(const char *path, struct object *o, int *fd)
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
	s.data = object_section(elf, ".eh_frame", &s.addr, &s.size);
	if (!s.data) {
		s.data = object_section(elf, ".debug_frame", &s.addr, &s.size);
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

void object_unload(struct object *o, Elf *elf, int fd)
{
	object_free(o);
	elf_end(elf);
	close(fd);
}

void object_print(const struct object *o, const char *extra)
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
