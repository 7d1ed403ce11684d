/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dwarf_priv.h -- opening a module's DWARF, shared by uprobe_dwarf.c and
 * tvar.c (not installed). */
#ifndef MT_DWARF_PRIV_H
#define MT_DWARF_PRIV_H

#include <elfutils/libdw.h>

/* The DWARF of PATH: in the file, else in its separate debug file found
 * by build-id.  Returns 0 with *DW, *FD and *DFD (-1: the file's own
 * DWARF) for mt_dwarf_close(), -errno opening PATH, or -ENODATA. */
int mt_dwarf_open(const char *path, Dwarf **dw, int *fd, int *dfd);
void mt_dwarf_close(Dwarf *dw, int fd, int dfd);

#endif
