/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* elf_file.c -- opening an ELF file for its section headers and finding
 * a section by name: what the SDT note and uprobe symbol readers share.
 *
 * The bytes are untrusted (any file a process maps): libelf checks the
 * section table against the file's size; callers check what they read.
 */
#include <config.h>

#include "elf_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

int mt_elf_open(const char *path, Elf **elf, int *fd)
{
	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (*elf && elf_kind(*elf) == ELF_K_ELF &&
	    gelf_getclass(*elf) == ELFCLASS64)
		return 0;
	mt_elf_close(*elf, *fd);
	return -EINVAL;
}

void mt_elf_close(Elf *elf, int fd)
{
	elf_end(elf);
	if (fd >= 0)
		close(fd);
}

Elf_Scn *mt_elf_scn_by_name(Elf *elf, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}
