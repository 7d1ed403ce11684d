/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uprobe_dwarf.c -- the functions of a module by name from its DWARF
 * (maptap_uprobe_dwarf_functions() in maptap/uprobe.h): declaration
 * file and line, entry, the address after the prologue, and inlined
 * instances.
 *
 * After the prologue: the first line-table row past the entry that is
 * marked prologue_end (DWARF 5, 6.2.5.1), else the first is_stmt row
 * past the entry whose line differs from the entry's -- the body's
 * first statement, as gdb's skip_prologue_using_sal() and stap place a
 * .function probe.  No such row (a function of one line, or no line
 * table): the entry itself.
 */
#include <config.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <maptap/uprobe.h>

#include "dwarf_priv.h"

struct walk {
	const char *glob;
	const char *file_glob;		/* NULL: any */
	int line;			/* 0: any */
	unsigned flags;
	Dwarf_Die *cu;
	int (*fn)(const struct maptap_uprobe_func *f, void *arg);
	void *arg;
	int calls;
	int rc;
	struct maptap_uprobe_func cur;	/* the abstract function of the
					 * inline instances being walked */
};

static uint64_t after_prologue(Dwarf_Die *cu, uint64_t lo, uint64_t hi)
{
	Dwarf_Lines *lines;
	size_t n, i;
	int first = -1;

	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return lo;
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool stmt = false, pe = false;
		int ln;

		if (!l || dwarf_lineaddr(l, &a) || a < lo || a >= hi ||
		    dwarf_lineno(l, &ln))
			continue;
		dwarf_linebeginstatement(l, &stmt);
		dwarf_lineprologueend(l, &pe);
		if (a == lo) {
			if (first < 0)
				first = ln;
			continue;
		}
		if (pe || (stmt && first >= 0 && ln != first && ln != 0))
			return a;
	}
	return lo;
}

/* FILE (a DW_AT_decl_file path) matches GLOB as a whole, by its base
 * name, or by a trailing part ("dir/x.c"). */
static bool file_matches(const char *glob, const char *file)
{
	const char *p;

	if (!file)
		return false;
	if (fnmatch(glob, file, 0) == 0)
		return true;
	for (p = strchr(file, '/'); p; p = strchr(p + 1, '/'))
		if (fnmatch(glob, p + 1, 0) == 0)
			return true;
	return false;
}

/* Fill W->cur from DIE (a subprogram); false when it does not match. */
static bool describe(struct walk *w, Dwarf_Die *die)
{
	struct maptap_uprobe_func *f = &w->cur;
	const char *name = dwarf_diename(die);
	int line = 0;

	memset(f, 0, sizeof(*f));
	if (!name || fnmatch(w->glob, name, 0) != 0)
		return false;
	f->name = name;
	f->file = dwarf_decl_file(die);
	dwarf_decl_line(die, &line);
	f->line = line;
	if (w->file_glob && !file_matches(w->file_glob, f->file))
		return false;
	if (w->line && w->line != line)
		return false;
	return true;
}

static int emit(struct walk *w)
{
	int rc;

	w->calls++;
	rc = w->fn(&w->cur, w->arg);
	if (rc)
		w->rc = rc;
	return rc;
}

static int on_instance(Dwarf_Die *inst, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr a;

	if (dwarf_entrypc(inst, &a) != 0)
		return DWARF_CB_OK;
	w->cur.entry = w->cur.body = a;
	w->cur.inlined = true;
	return emit(w) ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static int on_func(Dwarf_Die *die, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr lo, hi;

	if (!describe(w, die))
		return DWARF_CB_OK;
	if (dwarf_func_inline(die)) {
		if (w->flags & MAPTAP_UPROBE_INLINE)
			dwarf_func_inline_instances(die, on_instance, w);
		return w->rc ? DWARF_CB_ABORT : DWARF_CB_OK;
	}
	if (w->flags & MAPTAP_UPROBE_INLINE)
		return DWARF_CB_OK;
	if (dwarf_entrypc(die, &lo) != 0)
		return DWARF_CB_OK;	/* a declaration */
	if (dwarf_highpc(die, &hi) != 0)
		hi = lo + 1;
	w->cur.entry = lo;
	w->cur.body = after_prologue(w->cu, lo, hi);
	return emit(w) ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* The separate debug file of ELF by its build-id, as elfutils and gdb
 * look for it: /usr/lib/debug/.build-id/NN/NNNN....debug. */
static int open_debug(Elf *elf)
{
	const unsigned char *id;
	char path[512];
	ssize_t n = dwelf_elf_gnu_build_id(elf, (const void **)&id);
	size_t len;
	ssize_t i;

	if (n < 2)
		return -1;
	len = (size_t)snprintf(path, sizeof(path),
			       "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (i = 1; i < n && len + 3 < sizeof(path); i++)
		len += (size_t)snprintf(path + len, sizeof(path) - len,
					"%02x", id[i]);
	snprintf(path + len, sizeof(path) - len, ".debug");
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* The DWARF of PATH: in the file, else in its separate debug file
 * (open_debug()).  Returns 0 with *DW and the descriptors to give
 * close_dwarf() (*DFD -1 when the file's own DWARF is used), -errno
 * opening PATH, or -ENODATA when neither has DWARF.  Shared with
 * tvar.c (dwarf_priv.h). */
int mt_dwarf_open(const char *path, Dwarf **dw, int *fd, int *dfd)
{
	Elf *elf;

	elf_version(EV_CURRENT);
	*dfd = -1;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	*dw = dwarf_begin(*fd, DWARF_C_READ);
	if (!*dw) {
		elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
		*dfd = elf ? open_debug(elf) : -1;
		elf_end(elf);
		*dw = *dfd >= 0 ? dwarf_begin(*dfd, DWARF_C_READ) : NULL;
	}
	if (*dw)
		return 0;
	if (*dfd >= 0)
		close(*dfd);
	close(*fd);
	return -ENODATA;
}

void mt_dwarf_close(Dwarf *dw, int fd, int dfd)
{
	dwarf_end(dw);
	if (dfd >= 0)
		close(dfd);
	close(fd);
}

int maptap_uprobe_dwarf_functions(const char *path, const char *glob,
				  const char *file_glob, int line,
				  unsigned flags,
				  int (*fn)(const struct maptap_uprobe_func *f,
					    void *arg),
				  void *arg)
{
	struct walk w = { glob, file_glob, line, flags, NULL, fn, arg, 0, 0,
			  { 0 } };
	Dwarf *dw;
	Dwarf_Off off = 0, next;
	size_t hsize;
	int fd, dfd, err;

	err = mt_dwarf_open(path, &dw, &fd, &dfd);
	if (err)
		return err;
	while (!w.rc && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL,
				     NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu)) {
			w.cu = &cu;
			dwarf_getfuncs(&cu, on_func, &w, 0);
		}
		off = next;
	}
	mt_dwarf_close(dw, fd, dfd);
	return w.rc ? w.rc : w.calls;
}

/* The line table rows of FILE_GLOB:LINE: for each CU, the lowest
 * address of each block of is_stmt rows on that line (a line split by
 * other lines, as a loop's condition, gives one address per block). */
int maptap_uprobe_dwarf_lines(const char *path, const char *file_glob,
			      int line,
			      int (*fn)(uint64_t vaddr, const char *file,
					int line, void *arg),
			      void *arg)
{
	Dwarf_Off off = 0, next;
	int fd, dfd, err, rc = 0, calls = 0;
	size_t hsize;
	Dwarf *dw;

	err = mt_dwarf_open(path, &dw, &fd, &dfd);
	if (err)
		return err;
	while (!rc && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL,
				   NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t n, i;
		bool in = false;

		if (!dwarf_offdie(dw, off + hsize, &cu) ||
		    dwarf_getsrclines(&cu, &lines, &n) != 0) {
			off = next;
			continue;
		}
		for (i = 0; i < n && !rc; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			const char *f;
			Dwarf_Addr a;
			bool stmt = false, end = false;
			int ln;

			if (!l || dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln))
				continue;
			dwarf_linebeginstatement(l, &stmt);
			dwarf_lineendsequence(l, &end);
			f = dwarf_linesrc(l, NULL, NULL);
			if (end || ln != line || !stmt ||
			    !file_matches(file_glob, f)) {
				if (ln != line || end)
					in = false;
				continue;
			}
			if (in)
				continue;
			in = true;
			calls++;
			rc = fn(a, f, ln, arg);
		}
		off = next;
	}
	mt_dwarf_close(dw, fd, dfd);
	return rc ? rc : calls;
}
