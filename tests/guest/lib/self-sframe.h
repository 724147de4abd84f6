/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The program's own .sframe section and text, as a dynamic linker would
 * give them to PR_ADD_SFRAME: for the guest tests and the benchmarks that
 * register them, built against the series' uapi headers.
 */
#ifndef SELF_SFRAME_H
#define SELF_SFRAME_H

#include <link.h>
#include <string.h>
#include <linux/sframe.h>

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME		0x6474e554
#endif

static int self_sframe_phdrs(struct dl_phdr_info *info, size_t size,
			     void *data)
{
	struct prctl_sframe *arg = data;
	int i;

	/* The program comes first, with an empty name. */
	if (info->dlpi_name[0])
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_GNU_SFRAME) {
			arg->sframe_addr = info->dlpi_addr + ph->p_vaddr;
			arg->sframe_size = ph->p_memsz;
		} else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			arg->text_addr = info->dlpi_addr + ph->p_vaddr;
			arg->text_size = ph->p_memsz;
		}
	}
	return 1;
}

/*
 * Fill @arg with the program's PT_GNU_SFRAME segment and its executable
 * PT_LOAD segment.  Returns 0, or -1 if the program has either not.
 */
static inline int self_sframe(struct prctl_sframe *arg)
{
	memset(arg, 0, sizeof(*arg));
	dl_iterate_phdr(self_sframe_phdrs, arg);
	return arg->sframe_size && arg->text_size ? 0 : -1;
}

#endif /* SELF_SFRAME_H */
