/* SPDX-License-Identifier: GPL-2.0-or-later */
/* builtins_usymbols.c -- script functions of what the model knows of a
 * user address: its symbol (usymname, usymdata, usymfile, usymline,
 * usymfileline), its module (umodname, umodaddr, umodbuildid), as
 * stap's tapset/linux/ucontext-symbols.stp and ucontext.stp have them
 * (formats of runtime/sym.c _stp_snprint_addr()), and its VMA (vma_*,
 * maptap's own; issue 5).  Split from builtins_user.c (as stap keeps
 * its symbols apart from ucontext and its conversions); the code is as
 * it was there.
 *
 * Group 4 of builtins.c's groups: ids from 4 * TR_BUILTIN_GROUP_BASE.
 * None reads the stopped thread: they ask the model about an address.
 */
#include <config.h>

#include <string.h>

#include <maptap/module.h>
#include <maptap/session.h>
#include <maptap/symbols.h>

#include "builtins_user.h"

#define ID(n) (4 * TR_BUILTIN_GROUP_BASE + (n))

enum {
	U_USYMNAME = ID(0), U_USYMDATA, U_USYMFILE, U_USYMLINE,
	U_USYMFILELINE, U_UMODNAME, U_UMODADDR, U_UMODBUILDID,
	U_VMA_MAPPED, U_VMA_START, U_VMA_END, U_VMA_OFFSET, U_VMA_PERMS,
	U_VMA_NAME, U_VMA_SEGMENT_KIND, U_VMA_MODULE,
};

#define L TY_LONG
#define S TY_STRING
#define U TY_UNKNOWN
static const struct tr_builtin table[] = {
	{ "usymname", 1, 1, { L }, S, U_USYMNAME },
	{ "usymdata", 1, 1, { L }, S, U_USYMDATA },
	{ "usymfile", 1, 1, { L }, S, U_USYMFILE },
	{ "usymline", 1, 1, { L }, S, U_USYMLINE },
	{ "usymfileline", 1, 1, { L }, S, U_USYMFILELINE },
	{ "umodname", 1, 1, { L }, S, U_UMODNAME },
	{ "umodaddr", 1, 1, { L }, L, U_UMODADDR },
	{ "umodbuildid", 1, 1, { L }, S, U_UMODBUILDID },
	{ "vma_mapped", 1, 1, { L }, L, U_VMA_MAPPED },
	{ "vma_start", 1, 1, { L }, L, U_VMA_START },
	{ "vma_end", 1, 1, { L }, L, U_VMA_END },
	{ "vma_offset", 1, 1, { L }, L, U_VMA_OFFSET },
	{ "vma_perms", 1, 1, { L }, S, U_VMA_PERMS },
	{ "vma_name", 1, 1, { L }, S, U_VMA_NAME },
	{ "vma_segment_kind", 1, 1, { L }, S, U_VMA_SEGMENT_KIND },
	{ "vma_module", 1, 1, { L }, S, U_VMA_MODULE },
};

#undef L
#undef S
#undef U

/* ---- symbols and modules ---- */

/* Look ADDR up in the current process.  False when there is no process
 * context or no module covers ADDR. */
static bool sym_lookup(struct interp *I, uint64_t addr, unsigned flags,
		       struct maptap_sym_info *si)
{
	const struct tr_target *t = I->tgt;

	if (!t || !t->mods || t->pid <= 0)
		return false;
	return maptap_sym_lookup(t->mods, t->pid, addr, 0, flags, si) == 0 &&
	       si->where.has_module;
}

/* The symbol of an address: stap keeps function and data symbols in
 * one table, so an address in an object resolves to the object. */
static const struct maptap_sym *best_sym(const struct maptap_sym_info *si)
{
	if (si->func.name)
		return &si->func;
	if (si->data.name)
		return &si->data;
	return NULL;
}

/* usymname, usymdata, usymfile, usymline, usymfileline: the cases of
 * _stp_snprint_addr() for their flags; the address in hex when nothing
 * is known. */
static int format_sym(struct interp *I, int id, uint64_t addr,
		      struct maptap_script_buf *b)
{
	unsigned flags = MAPTAP_SYM_FUNC | MAPTAP_SYM_DATA;
	struct maptap_sym_info si;
	const struct maptap_module_info *m = &si.where.module;
	const struct maptap_sym *sym;
	bool found;

	if (id == U_USYMFILE || id == U_USYMLINE || id == U_USYMFILELINE)
		flags = MAPTAP_SYM_LINE;
	found = sym_lookup(I, addr, flags, &si);
	if (!found)
		return add_hex(b, addr);
	sym = best_sym(&si);
	switch (id) {
	case U_USYMNAME:
		if (sym)
			return maptap_script_buf_adds(b, sym->name);
		break;
	case U_USYMDATA:
		if (sym)
			return maptap_script_buf_printf(b,
				"%s+0x%" PRIx64 "/0x%" PRIx64 " [%s]",
				sym->name, sym->offset, sym->size, m->path);
		return maptap_script_buf_printf(b,
			"0x%" PRIx64 " [%s+0x%" PRIx64 "/0x%" PRIx64 "]",
			addr, m->path, addr - m->lo, m->hi - m->lo);
	case U_USYMFILE:
		if (si.src_file)
			return maptap_script_buf_adds(b, si.src_file);
		break;
	case U_USYMLINE:
		if (si.src_line > 0)
			return maptap_script_buf_printf(b, "%d", si.src_line);
		break;
	case U_USYMFILELINE:
		if (si.src_line > 0)
			return maptap_script_buf_printf(b, "%s:%d",
				si.src_file ? si.src_file : "??",
				si.src_line);
		if (si.src_file)
			return maptap_script_buf_adds(b, si.src_file);
		break;
	}
	return add_hex(b, addr);
}

/* The module instance at ADDR, or a catchable error with the words of
 * stap's umodname() (ucontext.stp). */
static const struct maptap_module_info *
find_module(struct interp *I, struct node *n, uint64_t addr,
	    struct maptap_module_desc *d)
{
	const struct tr_target *t = I->tgt;

	if (!t || !t->mods || t->pid <= 0 ||
	    maptap_modules_find(t->mods, t->pid, addr, d) < 0 ||
	    !d->has_module)
		tr_rt_error(I, n->tok, "module cannot be found");
	return &d->module;
}

/* ---- vma_* ---- */

/* The VMA at ADDR in the current process's model, or a catchable
 * error. */
static const struct maptap_vma *find_vma(struct interp *I, struct node *n,
					 uint64_t addr)
{
	const struct tr_target *t = I->tgt;
	const struct maptap_mm *mm;
	const struct maptap_vma *v;

	if (!t || !t->sess || t->pid <= 0)
		tr_rt_error(I, n->tok, "no process context for 0x%" PRIx64,
			    addr);
	mm = maptap_session_mm(t->sess, t->pid);
	v = mm ? maptap_mm_find(mm, addr) : NULL;
	if (!v)
		tr_rt_error(I, n->tok, "no VMA at 0x%" PRIx64, addr);
	return v;
}

static bool vma_mapped(struct interp *I, uint64_t addr)
{
	const struct tr_target *t = I->tgt;
	const struct maptap_mm *mm;

	if (!t || !t->sess || t->pid <= 0)
		return false;
	mm = maptap_session_mm(t->sess, t->pid);
	return mm && maptap_mm_find(mm, addr);
}

static int64_t call_vma_long(struct interp *I, struct node *n, int id)
{
	uint64_t addr = (uint64_t)arg_l(I, n, 0);
	const struct maptap_vma *v;

	if (id == U_VMA_MAPPED)
		return vma_mapped(I, addr);
	v = find_vma(I, n, addr);
	if (id == U_VMA_START)
		return (int64_t)v->start;
	if (id == U_VMA_END)
		return (int64_t)v->end;
	return (int64_t)v->offset;
}

static int call_vma_string(struct interp *I, struct node *n, int id,
			   uint64_t addr, struct maptap_script_buf *b)
{
	const struct maptap_vma *v = find_vma(I, n, addr);
	struct maptap_module_desc d;
	char perms[5];

	switch (id) {
	case U_VMA_PERMS:
		return maptap_script_buf_adds(b, maptap_perms_str(v->perms,
								  perms));
	case U_VMA_NAME:
		return maptap_script_buf_add(b, v->name, v->name_len);
	}
	/* the VMA exists; its module and segment may not */
	if (!I->tgt->mods ||
	    maptap_modules_find(I->tgt->mods, I->tgt->pid, addr, &d) < 0)
		d.has_module = d.has_segment = false;
	if (id == U_VMA_MODULE)
		return d.has_module ? maptap_script_buf_adds(b, d.module.path)
				    : 0;
	return maptap_script_buf_adds(b, maptap_segment_kind_name(
		d.has_segment ? d.segment.kind : MAPTAP_SEG_NONE));
}

static void call_string(struct interp *I, struct node *n, int id,
			struct sref *s)
{
	uint64_t addr = (uint64_t)arg_l(I, n, 0);
	const struct maptap_module_info *m;
	struct maptap_module_desc d;
	struct maptap_script_buf *b;

	/* the temporary only after the argument: evaluating it may grow
	 * (and move) the array temporaries live in */
	b = tr_tmp_get(I);
	switch (id) {
	case U_USYMNAME:
	case U_USYMDATA:
	case U_USYMFILE:
	case U_USYMLINE:
	case U_USYMFILELINE:
		check(I, n, format_sym(I, id, addr, b));
		break;
	case U_UMODNAME:
		m = find_module(I, n, addr, &d);
		check(I, n, maptap_script_buf_adds(b, m->path));
		break;
	case U_UMODBUILDID:
		m = find_module(I, n, addr, &d);
		if (m->build_id)
			check(I, n, maptap_script_buf_adds(b, m->build_id));
		break;
	default:
		check(I, n, call_vma_string(I, n, id, addr, b));
	}
	result(I, b, s);
}

static void call(struct interp *I, struct node *n, int64_t *l,
		 struct sref *s)
{
	int id = n->builtin;
	struct maptap_module_desc d;
	uint64_t addr;

	*l = 0;
	switch (id) {
	case U_UMODADDR:
		addr = (uint64_t)arg_l(I, n, 0);
		*l = (int64_t)(addr - find_module(I, n, addr, &d)->bias);
		return;
	case U_VMA_MAPPED:
	case U_VMA_START:
	case U_VMA_END:
	case U_VMA_OFFSET:
		*l = call_vma_long(I, n, id);
		return;
	}
	call_string(I, n, id, s);
}

/* The symbol, module and VMA functions ask the model about an address:
 * not the thread (no at_stop). */
const struct tr_builtin_group tr_builtins_usymbols = {
	.set = {
		.table = table,
		.n = sizeof(table) / sizeof(table[0]),
	},
	.call = call,
};
