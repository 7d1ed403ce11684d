/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sym_index.c -- one sorted symbol index per ELF file, built once from the
 * symbols libdwfl finds (rules in maptap/symbols.h).
 *
 * libdwfl finds the right symbol table (the file's .symtab, else the
 * separate debuginfo's, else .dynsym plus MiniDebugInfo) but answers an
 * address query by scanning the table: ~200 us per lookup in libc
 * (DESIGN.md, "Measured facts").  So the table is read once into arrays
 * sorted by address and searched in O(log n).
 *
 * Overlapping symbols are rare but real (a local alias inside a larger
 * function, hand-written assembly, aliases of one start with different
 * sizes).  Each entry records its "parent": the
 * nearest earlier entry that still extends past its start.  Walking that
 * chain from the last entry starting at or below an address visits, in
 * order of decreasing start, every entry that can contain it, so the first
 * hit is the containing symbol that starts closest below the address.
 *
 * One Dwfl per file, holding that one file at bias 0: module-relative
 * addresses are ELF vaddrs, and every address space mapping the file
 * shares it.
 */
#include <config.h>

#include "module_priv.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Entries of one kind (functions or data), sorted by start. */
struct mt_symarr {
	size_t n;
	uint64_t *start;	/* st_value */
	uint64_t *end;		/* st_value + st_size */
	const char **name;	/* owned by the Dwfl */
	int32_t *parent;	/* see above; -1 for none */
};

struct mt_symtab {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct mt_symarr func, data;
};

/* A symbol while building: sort key and payload. */
struct raw_sym {
	uint64_t start, end;
	const char *name;
	uint32_t seq;		/* index in libdwfl's table order */
	uint8_t rank;		/* STB_GLOBAL 3, STB_WEAK 2, STB_LOCAL 1 */
};

/* libdwfl's policy for finding debuginfo: build-id under the debuginfo
 * path (default ":.debug:/usr/lib/debug"), .gnu_debuglink, and
 * debuginfod when DEBUGINFOD_URLS is set.  One set per tracker, since the
 * path is an option. */
struct mt_callbacks {
	Dwfl_Callbacks cb;
	char *path;
};

static const Dwfl_Callbacks *callbacks_get(struct maptap_modules *m)
{
	struct mt_callbacks *c = (struct mt_callbacks *)m->dwfl_callbacks;

	if (c)
		return &c->cb;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cb.find_elf = dwfl_build_id_find_elf;
	c->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	c->cb.section_address = dwfl_offline_section_address;
	c->path = m->debuginfo_path;
	if (c->path)
		c->cb.debuginfo_path = &c->path;
	m->dwfl_callbacks = c;
	return &c->cb;
}

void mt_symtab_callbacks_free(struct maptap_modules *m)
{
	free((void *)m->dwfl_callbacks);
	m->dwfl_callbacks = NULL;
}

static void symarr_free(struct mt_symarr *a)
{
	free(a->start);
	free(a->end);
	free(a->name);
	free(a->parent);
	memset(a, 0, sizeof(*a));
}

void mt_symtab_free(struct mt_symtab *t)
{
	if (!t)
		return;
	symarr_free(&t->func);
	symarr_free(&t->data);
	if (t->dwfl)
		dwfl_end(t->dwfl);
	free(t);
}

static int rank_of(const GElf_Sym *s)
{
	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

/* By start; at one start the preferred symbol last, since a lookup walks
 * back from the last entry at or below the address: higher binding, then
 * the smaller size (the innermost of nested aliases such as glibc's
 * versioned sys_siglist), then the earlier in table order. */
static int raw_cmp(const void *a, const void *b)
{
	const struct raw_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

/* Sort RAW[0..N) and fill A with it and the parent links. */
static int symarr_build(struct mt_symarr *a, struct raw_sym *raw, size_t n)
{
	int32_t *stack;
	size_t i, k = 0, depth = 0;

	qsort(raw, n, sizeof(*raw), raw_cmp);
	a->start = malloc((n + 1) * sizeof(*a->start));
	a->end = malloc((n + 1) * sizeof(*a->end));
	a->name = malloc((n + 1) * sizeof(*a->name));
	a->parent = malloc((n + 1) * sizeof(*a->parent));
	stack = malloc((n + 1) * sizeof(*stack));
	if (!a->start || !a->end || !a->name || !a->parent || !stack) {
		free(stack);
		symarr_free(a);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		while (depth && a->end[stack[depth - 1]] <= raw[i].start)
			depth--;
		a->start[k] = raw[i].start;
		a->end[k] = raw[i].end;
		a->name[k] = raw[i].name;
		a->parent[k] = depth ? stack[depth - 1] : -1;
		stack[depth++] = (int32_t)k;
		k++;
	}
	free(stack);
	a->n = k;
	return 0;
}

static bool is_func(int type)
{
	return type == STT_FUNC || type == STT_GNU_IFUNC;
}

static bool is_data(int type)
{
	return type == STT_OBJECT || type == STT_COMMON;
}

/* Whether section SHNDX of ELF occupies memory.  Symbols of sections that
 * do not (glibc's .gnu.warning.* link warnings) have values that are not
 * addresses and would shadow real ones; libdwfl reports their section as
 * (GElf_Word)-1 when it cannot place it in the module. */
static bool in_memory(Elf *elf, GElf_Word shndx)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (shndx == (GElf_Word)-1)
		return false;
	if (shndx == SHN_ABS || shndx >= SHN_LORESERVE || !elf)
		return true;
	scn = elf_getscn(elf, shndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC);
}

/* Read every sized, defined function and data symbol of MOD into T. */
static int symtab_read(struct mt_symtab *t, int nsyms)
{
	struct raw_sym *fr = malloc((nsyms + 1) * sizeof(*fr));
	struct raw_sym *dr = malloc((nsyms + 1) * sizeof(*dr));
	size_t nf = 0, nd = 0;
	int i, rc;

	if (!fr || !dr) {
		free(fr);
		free(dr);
		return -ENOMEM;
	}
	for (i = 1; i < nsyms; i++) {
		GElf_Sym s;
		GElf_Word shndx;
		GElf_Addr addr;
		Elf *from = NULL;
		const char *name = dwfl_module_getsym_info(t->mod, i, &s, &addr,
							   &shndx, &from, NULL);
		int type = GELF_ST_TYPE(s.st_info);
		struct raw_sym r;

		if (!name || !*name || s.st_size == 0 || shndx == SHN_UNDEF ||
		    addr + s.st_size < addr || !in_memory(from, shndx))
			continue;
		r.start = addr;
		r.end = addr + s.st_size;
		r.name = name;
		r.seq = (uint32_t)i;
		r.rank = (uint8_t)rank_of(&s);
		if (is_func(type))
			fr[nf++] = r;
		else if (is_data(type))
			dr[nd++] = r;
	}
	rc = symarr_build(&t->func, fr, nf);
	if (!rc)
		rc = symarr_build(&t->data, dr, nd);
	free(fr);
	free(dr);
	return rc;
}

/* A Dwfl holding F alone at bias 0. */
static int symtab_open(struct maptap_modules *m, struct mt_symtab *t,
		       struct mt_file *f)
{
	const Dwfl_Callbacks *cb = callbacks_get(m);
	int fd;

	if (!cb)
		return -ENOMEM;
	/* libdwfl owns this copy; never inherited by a launched command */
	fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	t->dwfl = dwfl_begin(cb);
	if (!t->dwfl) {
		close(fd);
		return -ENOMEM;
	}
	dwfl_report_begin(t->dwfl);
	/* libdwfl takes FD (it closes it even on failure); the path is only
	 * where it looks for a .gnu_debuglink file. */
	t->mod = dwfl_report_elf(t->dwfl, f->path, f->path, fd, 0, true);
	dwfl_report_end(t->dwfl, NULL, NULL);
	return t->mod ? 0 : -ENOEXEC;
}

struct mt_symtab *mt_symtab_get(struct maptap_modules *m, struct mt_file *f)
{
	struct mt_symtab *t;
	int n;

	if (f->syms || f->syms_tried || !f->elf)
		return f->syms;
	f->syms_tried = true;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	if (symtab_open(m, t, f) != 0 ||
	    (n = dwfl_module_getsymtab(t->mod)) < 0 || symtab_read(t, n) != 0) {
		mt_symtab_free(t);
		return NULL;
	}
	f->syms = t;
	m->sym_stats.indexed_files++;
	m->sym_stats.symbols += t->func.n + t->data.n;
	m->sym_stats.index_bytes += sizeof(*t) + (t->func.n + t->data.n) *
		(2 * sizeof(uint64_t) + sizeof(char *) + sizeof(int32_t));
	return t;
}

int mt_symtab_lookup(const struct mt_symtab *t, bool func, uint64_t vaddr,
		     struct maptap_sym *sym)
{
	const struct mt_symarr *a = func ? &t->func : &t->data;
	size_t lo = 0, hi = a->n;
	int32_t i;

	/* The last entry with start <= vaddr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->start[mid] <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = (int32_t)lo - 1; i >= 0; i = a->parent[i]) {
		if (vaddr < a->end[i]) {
			sym->name = a->name[i];
			sym->addr = a->start[i];
			sym->size = a->end[i] - a->start[i];
			sym->offset = vaddr - a->start[i];
			return 0;
		}
	}
	return -ENOENT;
}

int mt_symtab_srcline(struct mt_symtab *t, uint64_t vaddr,
		      const char **file, const char **comp_dir, int *line)
{
	Dwfl_Line *l = dwfl_module_getsrc(t->mod, vaddr);
	Dwarf_Die *cu;
	Dwarf_Attribute attr;
	const char *src;
	int lineno = 0;

	if (!l)
		return -ENOENT;
	src = dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL);
	if (!src)
		return -ENOENT;
	*file = src;
	*line = lineno;
	cu = dwfl_linecu(l);
	*comp_dir = cu ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir,
						     &attr)) : NULL;
	return 0;
}

struct Dwarf_CFI_s *mt_symtab_debug_cfi(struct mt_symtab *t, uint64_t *bias)
{
	Dwarf_Addr b = 0;
	Dwarf_CFI *cfi = dwfl_module_dwarf_cfi(t->mod, &b);

	*bias = cfi ? b : 0;
	return cfi;
}
