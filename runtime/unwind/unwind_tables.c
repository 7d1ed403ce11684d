/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* unwind_tables.c -- libunwind's find_proc_info through maptap's module
 * layer.
 *
 * For a pc, the module tracker names the instance (file and bias) that
 * maps it; the file's PT_GNU_EH_FRAME program header locates
 * .eh_frame_hdr, whose binary search table (LSB Core, "Exception Frames":
 * version 1, then eh_frame_ptr, fde_count and sorted (initial location,
 * FDE address) pairs, both "datarel sdata4" relative to the header) is
 * what libunwind searches.  The header is parsed once per file from the
 * module layer's own mapping of it; the table and the FDEs are then read
 * from the target's memory through the page cache (libunwind's
 * dwarf_search_unwind_table does the search with a remote table
 * description, UNW_INFO_FORMAT_REMOTE_TABLE).  Reading the file the
 * module layer opened through /proc/PID/map_files, and the target's own
 * memory, is what makes deleted files, memfds and the [vdso] work.
 */
#include <config.h>

#include "unwind_priv.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

/* Exported by libunwind (libunwind-x86_64.so) but declared only in its
 * private headers; the perf tool uses it the same way. */
#define uw_dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)
extern int uw_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
					unw_dyn_info_t *di,
					unw_proc_info_t *pi,
					int need_unwind_info, void *arg);

/* DWARF pointer encodings (LSB Core, "DWARF Exception Header Encoding"). */
#define PE_OMIT 0xff
#define PE_FORMAT_MASK 0x0f
#define PE_APPL_MASK 0x70
#define PE_DATAREL 0x30
#define PE_SDATA4 0x0b

/* Size in bytes of a fixed-size pointer encoding, 0 for omitted, -1 for
 * variable-size ones (uleb128/sleb128) that a header never uses. */
static int pe_size(uint8_t enc)
{
	if (enc == PE_OMIT)
		return 0;
	switch (enc & PE_FORMAT_MASK) {
	case 0x00:		/* absptr */
	case 0x04:		/* udata8 */
	case 0x0c:		/* sdata8 */
		return 8;
	case 0x02:		/* udata2 */
	case 0x0a:		/* sdata2 */
		return 2;
	case 0x03:		/* udata4 */
	case 0x0b:		/* sdata4 */
		return 4;
	default:
		return -1;
	}
}

static uint64_t read_le(const uint8_t *p, int size)
{
	uint64_t v = 0;
	int i;

	for (i = size; i-- > 0;)
		v = (v << 8) | p[i];
	return v;
}

/* Parse the .eh_frame_hdr at HDR (LEN bytes, at ELF vaddr VADDR) into
 * T.  Only the layout libunwind's remote search understands is
 * accepted: a datarel sdata4 table with an absolute fde_count. */
static void parse_hdr(struct uw_table *t, const uint8_t *hdr, size_t len,
		      uint64_t vaddr)
{
	int ptr_size, count_size;
	size_t pos = 4;

	if (len < 4 || hdr[0] != 1 || hdr[3] != (PE_DATAREL | PE_SDATA4))
		return;
	ptr_size = pe_size(hdr[1]);
	count_size = pe_size(hdr[2]);
	if (ptr_size < 0 || count_size <= 0 || (hdr[2] & PE_APPL_MASK))
		return;
	pos += (size_t)ptr_size;
	if (pos + (size_t)count_size > len)
		return;
	t->fde_count = read_le(hdr + pos, count_size);
	pos += (size_t)count_size;
	if (t->fde_count == 0 || t->fde_count > (len - pos) / 8)
		return;
	t->hdr_vaddr = vaddr;
	t->table_vaddr = vaddr + pos;
	t->has = true;
}

/* Find PT_GNU_EH_FRAME in F and parse what it points at. */
static void locate(const struct mt_file *f, struct uw_table *t)
{
	size_t i, n, size;
	const uint8_t *img;
	GElf_Phdr ph;

	if (!f->elf || elf_getphdrnum(f->elf, &n) != 0)
		return;
	img = (const uint8_t *)elf_rawfile(f->elf, &size);
	if (!img)
		return;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph) ||
		    ph.p_type != PT_GNU_EH_FRAME)
			continue;
		if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
			return;
		parse_hdr(t, img + ph.p_offset, ph.p_filesz, ph.p_vaddr);
		return;
	}
}

static bool same_file(const struct uw_table *t, const struct mt_file *f)
{
	return t->file == f && t->st_dev == f->st_dev &&
	       t->st_ino == f->st_ino && t->size == f->size &&
	       t->mtime_ns == f->mtime_ns;
}

/* The array is searched from its end: the last files used are the ones a
 * walk comes back to. */
struct uw_table *uw_table_of(struct maptap_unwinder *u,
			     const struct mt_file *f)
{
	struct uw_table *t;
	size_t i;

	for (i = u->ntables; i-- > 0;)
		if (same_file(&u->tables[i], f))
			return &u->tables[i];
	if (u->ntables == u->tables_cap) {
		size_t cap = u->tables_cap ? 2 * u->tables_cap : 32;
		struct uw_table *nt = realloc(u->tables, cap * sizeof(*nt));

		if (!nt)
			return NULL;
		u->tables = nt;
		u->tables_cap = cap;
	}
	t = &u->tables[u->ntables++];
	memset(t, 0, sizeof(*t));
	t->file = f;
	t->st_dev = f->st_dev;
	t->st_ino = f->st_ino;
	t->size = f->size;
	t->mtime_ns = f->mtime_ns;
	locate(f, t);
	u->stats.tables_located++;
	return t;
}

void uw_tables_free(struct maptap_unwinder *u)
{
	size_t i;

	for (i = 0; i < u->ntables; i++)
		uw_table_cfi_free(&u->tables[i]);
	free(u->tables);
	u->tables = NULL;
	u->ntables = u->tables_cap = 0;
}

/* Fill DI, the remote table covering the instance IN; false if none. */
static bool dyn_info_of(struct maptap_unwinder *u, const struct mt_inst *in,
			unw_dyn_info_t *di)
{
	const struct uw_table *t = uw_table_of(u, in->file);

	if (!t || !t->has)
		return false;
	memset(di, 0, sizeof(*di));
	di->start_ip = in->file->info.lo + in->bias;
	di->end_ip = in->file->info.hi + in->bias;
	di->format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di->u.rti.segbase = t->hdr_vaddr + in->bias;
	di->u.rti.table_data = t->table_vaddr + in->bias;
	/* in words of unw_word_t; an entry is two 4-byte fields */
	di->u.rti.table_len = t->fde_count * 8 / sizeof(unw_word_t);
	return true;
}

int uw_find_proc_info(unw_addr_space_t as, unw_word_t ip,
		      unw_proc_info_t *pi, int need_unwind_info, void *arg)
{
	struct maptap_unwinder *u = arg;
	const struct mt_seg *seg;
	struct mt_inst *in;
	unw_dyn_info_t di;
	int rc;

	u->stats.table_lookups++;
	in = mt_inst_at(u->m, u->pid, ip, 0, &seg);
	if (!in || !in->file->elf || !dyn_info_of(u, in, &di) ||
	    ip < di.start_ip || ip >= di.end_ip) {
		u->missed = true;
		return -UNW_ENOINFO;
	}
	rc = uw_dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info,
					  arg);
	if (rc == -UNW_ENOINFO)
		u->missed = true;
	return rc;
}

void uw_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi,
			void *arg)
{
	/* libunwind's DWARF code frees the unwind info it allocated for
	 * tables (format UNW_INFO_FORMAT_TABLE) itself; nothing here is
	 * ours to free. */
	(void)as;
	(void)pi;
	(void)arg;
}

int uw_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dil_addr,
			      void *arg)
{
	/* No JIT registers unwind info with libunwind's _U_dyn_register in
	 * the targets maptap traces; saying so spares libunwind a lookup
	 * of _U_dyn_info_list_addr. */
	(void)as;
	(void)dil_addr;
	(void)arg;
	return -UNW_ENOINFO;
}
