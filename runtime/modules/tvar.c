/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tvar.c -- target variables from DWARF (maptap/tvar.h): finding a
 * variable at a probe address and compiling its access (pass 2), and
 * the -L list of a probe point's variables.  Reading them at a hit is
 * tvar_eval.c's.
 *
 * Rules: DWARF 5 section 2.5 (expressions), 2.6 (locations, location
 * lists, pieces), 2.5.1.7 (entry values); x86-64 psABI 3.6.2 for the
 * DWARF register numbers; stap's tapsets.cxx / dwflpp.cxx behaviour for
 * the messages and the $$parms text.
 */
#include <config.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>
#include <unistd.h>

#include <maptap/session.h>
#include <maptap/tvar.h>

#include "dwarf_priv.h"
#include "tvar_priv.h"

/* ---- module ---- */

int maptap_tvar_module_open(const char *path,
			    struct maptap_tvar_module **out)
{
	struct maptap_tvar_module *m = calloc(1, sizeof(*m));
	int err;

	if (!m)
		return -ENOMEM;
	err = mt_dwarf_open(path, &m->dw, &m->fd, &m->dfd);
	if (err) {
		free(m);
		return err;
	}
	m->path = strdup(path);
	m->efd = open(path, O_RDONLY | O_CLOEXEC);
	if (m->efd >= 0)
		m->elf = elf_begin(m->efd, ELF_C_READ_MMAP, NULL);
	m->cfi_dw = dwarf_getcfi(m->dw);
	if (m->elf)
		m->cfi_elf = dwarf_getcfi_elf(m->elf);
	m->refs = 1;
	if (!m->path) {
		maptap_tvar_module_put(m);
		return -ENOMEM;
	}
	*out = m;
	return 0;
}

void maptap_tvar_module_put(struct maptap_tvar_module *m)
{
	if (!m || --m->refs > 0)
		return;
	if (m->cfi_elf)
		dwarf_cfi_end(m->cfi_elf);
	elf_end(m->elf);
	if (m->efd >= 0)
		close(m->efd);
	mt_dwarf_close(m->dw, m->fd, m->dfd);
	free(m->path);
	free(m);
}

/* ---- messages and names ---- */


void mt_sb_vadd(struct sbuf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(b->p ? b->p + b->len : NULL,
		      b->p ? b->cap - b->len : 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = (b->len + (size_t)n + 1) * 2;
		char *p = realloc(b->p, cap);

		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	}
	b->len += (size_t)n;
}

void mt_sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mt_sb_vadd(b, fmt, ap);
	va_end(ap);
}

const char *mt_sb_str(struct sbuf *b)
{
	return b->p ? b->p : "";
}

static int fail(char **err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(char **err, const char *fmt, ...)
{
	struct sbuf b = { 0 };
	va_list ap;

	va_start(ap, fmt);
	mt_sb_vadd(&b, fmt, ap);
	va_end(ap);
	*err = b.p ? b.p : strdup("out of memory");
	return -1;
}

bool mt_tvar_type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, type);
}

/* A type's name as stap's -L prints it: "char const*", "struct foo*". */
static void type_name(struct sbuf *b, Dwarf_Die *t, int depth)
{
	Dwarf_Die sub;
	const char *n = dwarf_diename(t);
	bool has = mt_tvar_type_of(t, &sub);

	if (depth > 16) {
		mt_sb_add(b, "...");
		return;
	}
	switch (dwarf_tag(t)) {
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
		mt_sb_add(b, "struct %s", n ? n : "{...}");
		return;
	case DW_TAG_union_type:
		mt_sb_add(b, "union %s", n ? n : "{...}");
		return;
	case DW_TAG_enumeration_type:
		mt_sb_add(b, "enum %s", n ? n : "{...}");
		return;
	case DW_TAG_pointer_type:
		if (has)
			type_name(b, &sub, depth + 1);
		else
			mt_sb_add(b, "void");
		mt_sb_add(b, "*");
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		if (has)
			type_name(b, &sub, depth + 1);
		else
			mt_sb_add(b, "void");
		mt_sb_add(b, dwarf_tag(t) == DW_TAG_const_type ? " const" :
		       " volatile");
		return;
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		if (has)
			type_name(b, &sub, depth + 1);
		return;
	case DW_TAG_array_type: {
		Dwarf_Die r;
		if (has)
			type_name(b, &sub, depth + 1);
		if (dwarf_child(t, &r) == 0) {
			do {
				Dwarf_Attribute a;
				Dwarf_Word w;

				if (dwarf_tag(&r) != DW_TAG_subrange_type)
					continue;
				if (dwarf_formudata(dwarf_attr(&r, DW_AT_count,
							       &a), &w) == 0)
					mt_sb_add(b, "[%" PRIu64 "]", (uint64_t)w);
				else if (dwarf_formudata(dwarf_attr(&r,
						DW_AT_upper_bound, &a), &w) == 0)
					mt_sb_add(b, "[%" PRIu64 "]",
					       (uint64_t)w + 1);
				else
					mt_sb_add(b, "[]");
			} while (dwarf_siblingof(&r, &r) == 0);
		}
		return;
	}
	case DW_TAG_subroutine_type:
		mt_sb_add(b, "void(...)");	/* stap: a function's type */
		return;
	default:
		mt_sb_add(b, "%s", n ? n : "void");
	}
}

static char *type_str(Dwarf_Die *t)
{
	struct sbuf b = { 0 };

	if (t)
		type_name(&b, t, 0);
	else
		mt_sb_add(&b, "void");
	return b.p;
}

/* ---- scopes ---- */

/* The scopes at PC, innermost first; *CU the unit.  Returns their
 * number (> 0; free *SCOPES) or -1. */
static int scopes_at(struct maptap_tvar_module *m, uint64_t pc,
		     Dwarf_Die *cu, Dwarf_Die **scopes)
{
	if (!dwarf_addrdie(m->dw, pc, cu))
		return -1;
	return dwarf_getscopes(cu, pc, scopes);
}

/* The index of the innermost function (subprogram or inlined instance)
 * in SCOPES, or -1. */
static int func_scope(Dwarf_Die *scopes, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram ||
		    dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine)
			return i;
	return -1;
}

static bool is_var(Dwarf_Die *d, bool parms, bool locals)
{
	int tag = dwarf_tag(d);

	return ((parms && tag == DW_TAG_formal_parameter) ||
		(locals && tag == DW_TAG_variable)) && dwarf_diename(d);
}

/* Calls FN for the variables of the scopes at PC as maptap_tvar_list()
 * orders them: the function's parameters, then the locals innermost
 * block first (a name seen in an inner block hides the outer one). */
struct var_walk {
	int (*fn)(Dwarf_Die *var, void *arg);
	void *arg;
	const char **seen;
	size_t nseen, cap;
};

static bool seen_name(struct var_walk *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->nseen; i++)
		if (!strcmp(w->seen[i], name))
			return true;
	if (w->nseen == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		const char **v = realloc(w->seen, cap * sizeof(*v));

		if (!v)
			return true;
		w->seen = v;
		w->cap = cap;
	}
	w->seen[w->nseen++] = name;
	return false;
}

static int walk_children(struct var_walk *w, Dwarf_Die *scope, bool parms,
			 bool locals)
{
	Dwarf_Die c;
	int rc;

	if (dwarf_child(scope, &c) != 0)
		return 0;
	do {
		if (!is_var(&c, parms, locals) ||
		    seen_name(w, dwarf_diename(&c)))
			continue;
		rc = w->fn(&c, w->arg);
		if (rc)
			return rc;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int walk_vars(Dwarf_Die *scopes, int n, bool parms, bool locals,
		     int (*fn)(Dwarf_Die *var, void *arg), void *arg)
{
	struct var_walk w = { fn, arg, NULL, 0, 0 };
	int f = func_scope(scopes, n), i, rc = 0;

	if (f < 0) {
		free(w.seen);
		return 0;
	}
	if (parms)
		rc = walk_children(&w, &scopes[f], true, false);
	for (i = 0; i <= f && locals && !rc; i++)
		rc = walk_children(&w, &scopes[i], false, true);
	free(w.seen);
	return rc;
}

static int add_alt(Dwarf_Die *var, void *arg)
{
	struct sbuf *b = arg;

	mt_sb_add(b, "%s%s", b->len ? " " : "", dwarf_diename(var));
	return 0;
}

/* The CFA rule at PC, from .debug_frame or .eh_frame. */
static void find_cfa(struct maptap_tvar_module *m, uint64_t pc,
		     struct vloc *vl)
{
	Dwarf_CFI *c[2] = { m->cfi_dw, m->cfi_elf };
	Dwarf_Op *ops;
	size_t n;
	int i;

	for (i = 0; i < 2 && !vl->cfa; i++) {
		Dwarf_Frame *fr = NULL;

		if (!c[i] || dwarf_cfi_addrframe(c[i], pc, &fr) != 0)
			continue;
		if (dwarf_frame_cfa(fr, &ops, &n) == 0 && n) {
			vl->cfa = ops;
			vl->ncfa = n;
			vl->frame = fr;
		} else {
			free(fr);
		}
	}
}

/* DW_OP_entry_value(DW_OP_regN) blocks of VL's expression, decoded now
 * (ATTR: the location attribute they came from). */
static void find_entry_regs(Dwarf_Attribute *attr, struct vloc *vl)
{
	size_t i;

	for (i = 0; i < vl->n; i++) {
		Dwarf_Attribute res;
		Dwarf_Op *sub;
		size_t ns;
		uint8_t at = vl->ops[i].atom;

		if (at != DW_OP_entry_value && at != DW_OP_GNU_entry_value)
			continue;
		if (!vl->entry_reg) {
			size_t k;

			vl->entry_reg = malloc(vl->n * sizeof(int));
			if (!vl->entry_reg)
				return;
			for (k = 0; k < vl->n; k++)
				vl->entry_reg[k] = -1;
		}
		if (dwarf_getlocation_attr(attr, (Dwarf_Op *)&vl->ops[i],
					   &res) != 0 ||
		    dwarf_getlocation(&res, &sub, &ns) != 0 || ns != 1)
			continue;
		if (sub[0].atom >= DW_OP_reg0 && sub[0].atom <= DW_OP_reg31)
			vl->entry_reg[i] = sub[0].atom - DW_OP_reg0;
		else if (sub[0].atom == DW_OP_regx)
			vl->entry_reg[i] = (int)sub[0].number;
	}
}

/* The argument registers of the x86-64 SysV ABI (psABI 3.2.3), as
 * DWARF locations: rdi, rsi, rdx, rcx, r8, r9. */
static const Dwarf_Op abi_reg_ops[6] = {
	{ .atom = DW_OP_reg5 }, { .atom = DW_OP_reg4 },
	{ .atom = DW_OP_reg1 }, { .atom = DW_OP_reg2 },
	{ .atom = DW_OP_reg8 }, { .atom = DW_OP_reg9 },
};

/* Is T passed in one general register (INTEGER class, <= 8 bytes)? */
static bool int_class(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = 0, bs = 0;
	Dwarf_Die p;
	int tag;

	if (!t || dwarf_peel_type(t, &p) != 0)
		return false;
	tag = dwarf_tag(&p);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type)
		return true;
	if (tag == DW_TAG_enumeration_type)
		return true;
	if (tag != DW_TAG_base_type)
		return false;
	dwarf_formudata(dwarf_attr(&p, DW_AT_encoding, &a), &enc);
	dwarf_formudata(dwarf_attr(&p, DW_AT_byte_size, &a), &bs);
	return bs >= 1 && bs <= 8 && enc != DW_ATE_float &&
	       enc != DW_ATE_complex_float;
}

/* A parameter VAR of FN read at FN's first instruction, where -O0 code
 * has not yet stored it where DWARF says (its frame slot): the register
 * the caller passed it in, when every parameter up to it is of INTEGER
 * class (a struct returned in memory takes rdi first).  NULL: not so
 * simple, keep DWARF's location. */
static const Dwarf_Op *entry_arg_reg(Dwarf_Die *fn, Dwarf_Die *var)
{
	Dwarf_Die c, t, r;
	int i = 0;

	if (mt_tvar_type_of(fn, &r) && dwarf_peel_type(&r, &r) == 0 &&
	    mt_tvar_is_aggregate(dwarf_tag(&r))) {
		Dwarf_Word sz;

		if (dwarf_aggregate_size(&r, &sz) != 0 || sz > 16)
			i = 1;
		else
			return NULL;	/* returned in registers: fine, but
					 * keep to the plain case */
	}
	if (dwarf_child(fn, &c) != 0)
		return NULL;
	do {
		if (dwarf_tag(&c) != DW_TAG_formal_parameter)
			continue;
		if (!mt_tvar_type_of(&c, &t) || !int_class(&t) || i >= 6)
			return NULL;
		if (dwarf_dieoffset(&c) == dwarf_dieoffset(var))
			return &abi_reg_ops[i];
		i++;
	} while (dwarf_siblingof(&c, &c) == 0);
	return NULL;
}

/* Fill VL for VAR (declared in SCOPES[DECL..]) at PC.  Returns 0, or
 * -1 with *ERR. */
static int locate(struct maptap_tvar_module *m, Dwarf_Die *scopes, int n,
		  int decl, Dwarf_Die *var, uint64_t pc, unsigned flags,
		  struct vloc *vl, char **err)
{
	Dwarf_Attribute a, fba;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Addr lo;
	Dwarf_Sword sv;
	Dwarf_Die host;
	bool have_host = false;
	int i, f;

	memset(vl, 0, sizeof(*vl));
	if (dwarf_attr_integrate(var, DW_AT_const_value, &a)) {
		if (dwarf_formsdata(&a, &sv) != 0)
			return fail(err, "unsupported constant value of '%s'",
				    dwarf_diename(var));
		vl->cval = sv;
		return 0;
	}
	if (!dwarf_attr_integrate(var, DW_AT_location, &a) ||
	    dwarf_getlocation_addr(&a, pc, &ops, &nops, 1) != 1 || !nops) {
		vl->missing = true;
		return fail(err, "not accessible at this address (pc: %#"
			    PRIx64 ") [man error::dwarf]", pc);
	}
	vl->ops = ops;
	vl->n = nops;
	f = -1;
	for (i = decl; i < n && f < 0; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			f = i;
		} else if (dwarf_tag(&scopes[i]) ==
			   DW_TAG_inlined_subroutine) {
			/* the frame is the function it was inlined into:
			 * dwarf_getscopes() gives the abstract nesting,
			 * dwarf_getscopes_die() the concrete one */
			Dwarf_Die *phys = NULL;
			int k, np = dwarf_getscopes_die(&scopes[i], &phys);

			for (k = 0; k < np; k++)
				if (dwarf_tag(&phys[k]) == DW_TAG_subprogram) {
					host = phys[k];
					have_host = true;
					break;
				}
			free(phys);
			break;
		}
	}
	if (f >= 0) {
		host = scopes[f];
		have_host = true;
	}
	if (have_host) {
		if (dwarf_attr_integrate(&host, DW_AT_frame_base, &fba) &&
		    dwarf_getlocation_addr(&fba, pc, &ops, &nops, 1) == 1) {
			vl->fb = ops;
			vl->nfb = nops;
		}
		vl->at_entry = dwarf_entrypc(&host, &lo) == 0 &&
			       lo == pc;
		if (vl->at_entry && f >= 0 && f == decl && vl->n &&
		    vl->ops[0].atom == DW_OP_fbreg &&
		    dwarf_tag(var) == DW_TAG_formal_parameter) {
			const Dwarf_Op *r = entry_arg_reg(&host, var);

			if (r) {	/* before the prologue stored it */
				vl->ops = r;
				vl->n = 1;
			}
		}
	}
	find_cfa(m, pc, vl);
	find_entry_regs(&a, vl);
	if (vl->entry_reg && !vl->at_entry && (flags & MAPTAP_TVAR_ENTRY_REGS)) {
		vl->entry_regs = true;
	} else if (vl->entry_reg && !vl->at_entry) {
		vl->missing = true;
		return fail(err, "not accessible at this address (pc: %#"
			    PRIx64 ") [man error::dwarf]: only its value at "
			    "the function's entry (DW_OP_entry_value) is "
			    "described here", pc);
	}
	return 0;
}

/* Does VAR at PC need the registers of the function's entry? */
static bool needs_entry(Dwarf_Die *var, uint64_t pc)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n, i;

	if (dwarf_attr_integrate(var, DW_AT_const_value, &a))
		return false;
	if (!dwarf_attr_integrate(var, DW_AT_location, &a) ||
	    dwarf_getlocation_addr(&a, pc, &ops, &n, 1) != 1 || !n)
		return true;
	for (i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_entry_value ||
		    ops[i].atom == DW_OP_GNU_entry_value)
			return true;
	return false;
}

struct entry_check {
	uint64_t pc;
	bool bad;
};

static int check_parm(Dwarf_Die *var, void *arg)
{
	struct entry_check *c = arg;

	c->bad |= needs_entry(var, c->pc);
	return 0;
}

uint64_t maptap_tvar_entry_pc(struct maptap_tvar_module *m, uint64_t entry,
			      uint64_t body)
{
	struct entry_check c = { body, false };
	Dwarf_Die cu, *scopes = NULL;
	int n;

	if (body == entry)
		return entry;
	n = scopes_at(m, body, &cu, &scopes);
	if (n <= 0)
		return entry;
	walk_vars(scopes, n, true, false, check_parm, &c);
	free(scopes);
	return c.bad ? entry : body;
}

/* ---- types and steps ---- */

static int push_step(struct maptap_tvar *v, enum step_kind k, int64_t off)
{
	struct step *s;

	if (k == ST_ADD && v->nsteps && v->steps[v->nsteps - 1].kind == ST_ADD) {
		v->steps[v->nsteps - 1].k += off;
		return 0;
	}
	s = realloc(v->steps, (v->nsteps + 1) * sizeof(*s));
	if (!s)
		return -1;
	v->steps = s;
	s[v->nsteps].kind = k;
	s[v->nsteps++].k = off;
	return 0;
}

bool mt_tvar_peel(Dwarf_Die *t, Dwarf_Die *out)
{
	return dwarf_peel_type(t, out) == 0;
}

bool mt_tvar_is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

bool mt_tvar_bitfield(Dwarf_Die *member, int *bit_size, int *bit_off)
{
	Dwarf_Attribute a;
	Dwarf_Word bs, bo, sz;
	Dwarf_Die t;

	if (dwarf_formudata(dwarf_attr(member, DW_AT_bit_size, &a), &bs) != 0
	    || bs == 0 || bs > 64)
		return false;
	*bit_size = (int)bs;
	*bit_off = 0;
	if (dwarf_formudata(dwarf_attr(member, DW_AT_data_bit_offset, &a),
			    &bo) == 0) {
		*bit_off = (int)bo;	/* DWARF 4+: from the struct's bit 0 */
	} else if (dwarf_formudata(dwarf_attr(member, DW_AT_bit_offset, &a),
				   &bo) == 0) {
		/* DWARF 2/3: from the most significant bit of a storage
		 * unit of DW_AT_byte_size (else the type's) bytes at the
		 * member's location; little-endian x86-64 */
		if (dwarf_formudata(dwarf_attr(member, DW_AT_byte_size, &a),
				    &sz) != 0 &&
		    !(mt_tvar_type_of(member, &t) &&
		      dwarf_aggregate_size(&t, &sz) == 0))
			sz = 4;
		*bit_off = (int)(sz * 8 - bo - bs);
	}
	return true;
}

/* Member NAME of the struct/union S (anonymous members searched too):
 * its DIE and byte offset. */
static bool find_member(Dwarf_Die *s, const char *name, Dwarf_Die *out,
			int64_t *off, int depth)
{
	Dwarf_Die c, t;

	if (depth > 8 || dwarf_child(s, &c) != 0)
		return false;
	do {
		Dwarf_Attribute a;
		Dwarf_Word w = 0;
		const char *n;

		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		if (dwarf_attr(&c, DW_AT_data_member_location, &a))
			dwarf_formudata(&a, &w);
		n = dwarf_diename(&c);
		if (n && !strcmp(n, name)) {
			*out = c;
			*off = (int64_t)w;
			return true;
		}
		if (!n && mt_tvar_type_of(&c, &t) && mt_tvar_peel(&t, &t) &&
		    mt_tvar_is_aggregate(dwarf_tag(&t)) &&
		    find_member(&t, name, out, off, depth + 1)) {
			*off += (int64_t)w;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

static void member_names(struct sbuf *b, Dwarf_Die *s, int depth)
{
	Dwarf_Die c, t;

	if (depth > 8 || dwarf_child(s, &c) != 0)
		return;
	do {
		const char *n = dwarf_diename(&c);

		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		if (n)
			mt_sb_add(b, "%s%s", b->len ? " " : "", n);
		else if (mt_tvar_type_of(&c, &t) && mt_tvar_peel(&t, &t))
			member_names(b, &t, depth + 1);
	} while (dwarf_siblingof(&c, &c) == 0);
}

int64_t mt_tvar_type_size(Dwarf_Die *t)
{
	Dwarf_Word w;

	return dwarf_aggregate_size(t, &w) == 0 ? (int64_t)w : -1;
}

/* Walk OPS from the type T of V's base, adding V's steps. */
/* The element counts of array type A's dimensions into DIMS (at most
 * MAX; -1 unknown).  Returns the number of dimensions. */
static int array_dims(Dwarf_Die *a, int64_t *dims, int max)
{
	Dwarf_Die r;
	int n = 0;

	if (dwarf_child(a, &r) != 0)
		return 0;
	do {
		Dwarf_Attribute at;
		Dwarf_Word w;

		if (dwarf_tag(&r) != DW_TAG_subrange_type)
			continue;
		if (n < max) {
			if (dwarf_formudata(dwarf_attr(&r, DW_AT_count, &at),
					    &w) == 0)
				dims[n] = (int64_t)w;
			else if (dwarf_formudata(dwarf_attr(&r,
					DW_AT_upper_bound, &at), &w) == 0)
				dims[n] = (int64_t)w + 1;
			else
				dims[n] = -1;
		}
		n++;
	} while (dwarf_siblingof(&r, &r) == 0);
	return n;
}

static int walk_ops(struct maptap_tvar *v, Dwarf_Die *t,
		    const struct maptap_tvar_op *ops, size_t nops,
		    const char *what, char **err)
{
	size_t i;
	int adim = 0;		/* dimensions of the array T indexed so far */

	for (i = 0; i < nops; i++) {
		Dwarf_Die p, mem;
		int64_t off, sz;
		char *tn;
		int tag;

		if (!mt_tvar_peel(t, &p))
			return fail(err, "'%s' has no type", what);
		tag = dwarf_tag(&p);
		if (ops[i].kind == MAPTAP_TVAR_MEMBER) {
			if (tag == DW_TAG_pointer_type) {
				if (!mt_tvar_type_of(&p, &p) || !mt_tvar_peel(&p, &p))
					return fail(err, "unable to find member"
						    " '%s' of a void pointer",
						    ops[i].member);
				tag = dwarf_tag(&p);
				if (push_step(v, ST_DEREF, 0))
					return fail(err, "out of memory");
			}
			if (!mt_tvar_is_aggregate(tag)) {
				tn = type_str(&p);
				fail(err, "type %s isn't a struct/class/union",
				     tn ? tn : "?");
				free(tn);
				return -1;
			}
			if (!find_member(&p, ops[i].member, &mem, &off, 0)) {
				struct sbuf alt = { 0 };

				tn = type_str(&p);
				member_names(&alt, &p, 0);
				fail(err, "unable to find member '%s' for %s "
				     "(alternatives: %s)", ops[i].member,
				     tn ? tn : "?", mt_sb_str(&alt));
				free(alt.p);
				free(tn);
				return -1;
			}
			if (push_step(v, ST_ADD, off))
				return fail(err, "out of memory");
			if (!mt_tvar_type_of(&mem, t))
				return fail(err, "member '%s' has no type",
					    ops[i].member);
			if (i + 1 == nops)
				mt_tvar_bitfield(&mem, &v->bit_size,
						 &v->bit_off);
			continue;
		}
		/* [i] */
		if (tag == DW_TAG_array_type) {
			int64_t dims[8], rest = 1;
			int nd = array_dims(&p, dims, 8), k;

			if (!mt_tvar_type_of(&p, &mem))
				return fail(err, "array without element type");
			if (nd > 8)
				return fail(err, "'%s' has more than 8 "
					    "dimensions", what);
			/* int a[3][4]: [i] strides 4 elements and leaves an
			 * int[4] (T stays the array, ADIM counts the
			 * dimensions used); the last one gives the element */
			for (k = adim + 1; k < nd; k++)
				rest *= dims[k] > 0 ? dims[k] : 0;
			sz = mt_tvar_type_size(&mem);
			if (sz <= 0 || rest <= 0)
				return fail(err, "element of unknown size in "
					    "'%s'", what);
			if (push_step(v, ST_INDEX, sz * rest))
				return fail(err, "out of memory");
			if (++adim >= nd) {
				*t = mem;
				adim = 0;
			}
			continue;
		} else if (tag == DW_TAG_pointer_type) {
			if (!mt_tvar_type_of(&p, t))
				return fail(err, "cannot index a void pointer");
			if (push_step(v, ST_DEREF, 0))
				return fail(err, "out of memory");
		} else {
			tn = type_str(&p);
			fail(err, "type %s isn't an array or pointer",
			     tn ? tn : "?");
			free(tn);
			return -1;
		}
		sz = mt_tvar_type_size(t);
		if (sz <= 0)
			return fail(err, "element of unknown size in '%s'",
				    what);
		if (push_step(v, ST_INDEX, sz))
			return fail(err, "out of memory");
	}
	return 0;
}

/* How the result of type T reads: set V's OUT, SIZE, IS_SIGNED. */
static int finish(struct maptap_tvar *v, Dwarf_Die *t, const char *what,
		  char **err)
{
	Dwarf_Die p;
	Dwarf_Attribute a;
	Dwarf_Word enc = DW_ATE_unsigned, bs = 8;
	int tag;

	v->type = *t;
	v->has_type = true;
	if (v->flags & (MAPTAP_TVAR_PRETTY | MAPTAP_TVAR_DEEP)) {
		v->out = O_STRING;
		return 0;
	}
	if (v->flags & MAPTAP_TVAR_ADDR) {
		v->out = O_ADDR;
		return 0;
	}
	if (!mt_tvar_peel(t, &p))
		return fail(err, "'%s' has type void", what);
	tag = dwarf_tag(&p);
	if (mt_tvar_is_aggregate(tag))
		return fail(err, "struct/union '%s' is being accessed "
			    "instead of a member", what);
	if (tag == DW_TAG_array_type) {
		v->out = O_ADDR;	/* as C: the array's address */
		return 0;
	}
	if (tag == DW_TAG_pointer_type) {
		v->out = O_LONG;
		v->size = 8;
		return 0;
	}
	if (tag == DW_TAG_enumeration_type) {
		Dwarf_Die u;

		if (mt_tvar_type_of(&p, &u) && mt_tvar_peel(&u, &u))
			p = u;
		else
			enc = DW_ATE_signed;
	}
	if (tag != DW_TAG_base_type && tag != DW_TAG_enumeration_type)
		return fail(err, "'%s' is of a type maptap does not read",
			    what);
	dwarf_formudata(dwarf_attr_integrate(&p, DW_AT_encoding, &a), &enc);
	dwarf_formudata(dwarf_attr_integrate(&p, DW_AT_byte_size, &a), &bs);
	if (enc == DW_ATE_float)
		return fail(err, "'%s' is a floating-point value, which "
			    "scripts cannot hold", what);
	if (bs > 8 || bs == 0)
		return fail(err, "'%s' is wider than a long", what);
	v->out = O_LONG;
	v->size = (int)bs;
	v->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	return 0;
}

/* ---- compile ---- */

static struct maptap_tvar *tvar_new(struct maptap_tvar_module *m,
				    unsigned flags)
{
	struct maptap_tvar *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->m = m;
	m->refs++;
	v->flags = flags;
	return v;
}

void maptap_tvar_free(struct maptap_tvar *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->nitems; i++)
		maptap_tvar_free(v->items[i]);
	free(v->items);
	free(v->names);
	free(v->steps);
	mt_tvar_vloc_fini(&v->loc);
	maptap_tvar_module_put(v->m);
	free(v);
}

bool maptap_tvar_is_string(const struct maptap_tvar *v)
{
	return v->out == O_STRING;
}

struct list_ctx {
	struct maptap_tvar *list;
	struct maptap_tvar_module *m;
	Dwarf_Die *scopes;
	int n;
	uint64_t pc;
	unsigned flags;
	int rc;
};

static int add_item(struct list_ctx *c, const char *name, Dwarf_Die *var,
		    int decl)
{
	struct maptap_tvar *it = tvar_new(c->m, c->flags & ~MAPTAP_TVAR_ADDR);
	struct maptap_tvar **items;
	const char **names;
	char *e = NULL;

	if (!it)
		return -1;
	items = realloc(c->list->items, (c->list->nitems + 1) *
			sizeof(*items));
	if (items)
		c->list->items = items;
	names = realloc(c->list->names, (c->list->nitems + 1) *
			sizeof(*names));
	if (names)
		c->list->names = names;
	if (!items || !names) {
		maptap_tvar_free(it);
		return -1;
	}
	if (var && locate(c->m, c->scopes, c->n, decl, var, c->pc, c->flags,
			  &it->loc, &e) != 0)
		it->loc.missing = true;
	free(e);
	it->out = O_STRING;
	if (var && mt_tvar_type_of(var, &it->type))
		it->has_type = true;
	c->list->items[c->list->nitems] = it;
	c->list->names[c->list->nitems++] = name;
	return 0;
}

static int on_list_var(Dwarf_Die *var, void *arg)
{
	struct list_ctx *c = arg;
	Dwarf_Die d;
	int decl = dwarf_getscopevar(c->scopes, c->n, dwarf_diename(var), 0,
				     NULL, 0, 0, &d);

	return add_item(c, dwarf_diename(var), var, decl < 0 ? 0 : decl);
}

static const Dwarf_Op rax_op = { .atom = DW_OP_reg0 };

/* $return: rax, typed by the function at PC. */
static int compile_return(struct maptap_tvar *v, Dwarf_Die *scopes, int n,
			  const struct maptap_tvar_op *ops, size_t nops,
			  char **err)
{
	int f = func_scope(scopes, n);
	Dwarf_Die t;

	if (f < 0 || !mt_tvar_type_of(&scopes[f], &t))
		return fail(err, "unable to find return value: the function "
			    "returns void");
	v->loc.ops = &rax_op;
	v->loc.n = 1;
	if (walk_ops(v, &t, ops, nops, "$return", err))
		return -1;
	return finish(v, &t, "$return", err);
}

bool maptap_tvar_needs_entry_regs(const struct maptap_tvar *v)
{
	size_t i;

	if (v->loc.entry_regs)
		return true;
	for (i = 0; i < v->nitems; i++)
		if (maptap_tvar_needs_entry_regs(v->items[i]))
			return true;
	return false;
}

uint64_t maptap_tvar_func_entry(struct maptap_tvar_module *m, uint64_t pc)
{
	Dwarf_Die cu, *scopes = NULL, *phys = NULL;
	Dwarf_Addr lo = 0;
	int n = scopes_at(m, pc, &cu, &scopes), i, k, np;

	for (i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram) {
			if (dwarf_entrypc(&scopes[i], &lo) != 0)
				lo = 0;
			break;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		np = dwarf_getscopes_die(&scopes[i], &phys);
		for (k = 0; k < np; k++)
			if (dwarf_tag(&phys[k]) == DW_TAG_subprogram) {
				if (dwarf_entrypc(&phys[k], &lo) != 0)
					lo = 0;
				break;
			}
		free(phys);
		break;
	}
	free(scopes);
	return lo;
}

bool maptap_tvar_covers(struct maptap_tvar_module *m, uint64_t pc,
			const char *func)
{
	Dwarf_Die cu, *scopes = NULL;
	int n = scopes_at(m, pc, &cu, &scopes);
	int f = n > 0 ? func_scope(scopes, n) : -1;
	const char *name = f >= 0 ? dwarf_diename(&scopes[f]) : NULL;
	bool ok = f >= 0 && (!func || (name && !strcmp(name, func)));

	free(scopes);
	return ok;
}

int maptap_tvar_compile(struct maptap_tvar_module *m, uint64_t pc,
			const char *name, const struct maptap_tvar_op *ops,
			size_t nops, unsigned flags, struct maptap_tvar **out,
			char **err)
{
	struct maptap_tvar *v;
	Dwarf_Die cu, *scopes = NULL, var, t;
	int n, decl, rc = -1;

	*err = NULL;
	n = scopes_at(m, pc, &cu, &scopes);
	if (n <= 0)
		return fail(err, "no debuginfo for the address %#" PRIx64
			    " in %s [man error::dwarf]", pc, m->path);
	v = tvar_new(m, flags);
	if (!v) {
		free(scopes);
		return fail(err, "out of memory");
	}
	if (!strcmp(name, "$return")) {
		rc = compile_return(v, scopes, n, ops, nops, err);
	} else if (!strncmp(name, "$$", 2)) {
		struct list_ctx c = { v, m, scopes, n, pc, flags |
				      MAPTAP_TVAR_PRETTY, 0 };
		bool parms = !strcmp(name, "$$parms") ||
			     !strcmp(name, "$$vars");
		bool locals = !strcmp(name, "$$locals") ||
			      !strcmp(name, "$$vars");

		if (nops) {
			rc = fail(err, "%s cannot be dereferenced", name);
		} else if (!strcmp(name, "$$return")) {
			struct maptap_tvar *r = tvar_new(m, flags);

			v->base = B_LIST;
			v->out = O_STRING;
			int f = func_scope(scopes, n);
			Dwarf_Die rt;

			if (f >= 0 && !mt_tvar_type_of(&scopes[f], &rt)) {
				/* a void function: "" as stap's */
				maptap_tvar_free(r);
				r = NULL;
				rc = 0;
			} else {
				rc = r ? compile_return(r, scopes, n, NULL, 0,
							err) :
				     fail(err, "out of memory");
			}
			if (!rc && r) {
				r->out = O_STRING;
				v->items = malloc(sizeof(*v->items));
				v->names = malloc(sizeof(*v->names));
				if (v->items && v->names) {
					v->items[0] = r;
					v->names[0] = "return";
					v->nitems = 1;
					r = NULL;
				} else {
					rc = fail(err, "out of memory");
				}
			}
			maptap_tvar_free(r);
		} else if (!parms && !locals) {
			rc = fail(err, "unknown target variable %s (expected "
				  "$$parms, $$locals, $$vars or $$return)",
				  name);
		} else {
			v->base = B_LIST;
			v->out = O_STRING;
			rc = walk_vars(scopes, n, parms, locals, on_list_var,
				       &c) ? fail(err, "out of memory") : 0;
		}
	} else if ((decl = dwarf_getscopevar(scopes, n, name + 1, 0, NULL, 0,
					     0, &var)) < 0) {
		struct sbuf alt = { 0 };
		int f = func_scope(scopes, n);

		walk_vars(scopes, n, true, true, add_alt, &alt);
		rc = fail(err, "unable to find local '%s', [man error::dwarf] "
			  "dieoffset %#" PRIx64 " in %s, near pc %#" PRIx64
			  " in %s %s (%s%s%s)", name + 1,
			  (uint64_t)dwarf_dieoffset(&scopes[0]), m->path, pc,
			  f >= 0 && dwarf_diename(&scopes[f]) ?
			  dwarf_diename(&scopes[f]) : "<unknown>",
			  dwarf_diename(&cu) ? dwarf_diename(&cu) : "<unknown>",
			  alt.len ? "alternatives: " : "<no alternatives>",
			  mt_sb_str(&alt), "");
		free(alt.p);
	} else if (locate(m, scopes, n, decl, &var, pc, flags, &v->loc,
			  err) == 0) {
		if (!mt_tvar_type_of(&var, &t))
			rc = fail(err, "'%s' has no type", name);
		else if (walk_ops(v, &t, ops, nops, name, err) == 0)
			rc = finish(v, &t, name, err);
		if (!rc && v->out == O_ADDR && v->loc.ops &&
		    !(v->nsteps && v->steps[0].kind == ST_DEREF)) {
			/* &$x of a variable not in memory */
			uint8_t at = v->loc.ops[v->loc.n - 1].atom;

			if ((at >= DW_OP_reg0 && at <= DW_OP_reg31) ||
			    at == DW_OP_regx || at == DW_OP_stack_value ||
			    at == DW_OP_piece || at == DW_OP_implicit_value)
				rc = fail(err, "cannot take the address of "
					  "'%s': it is not in memory at pc "
					  "%#" PRIx64, name, pc);
		}
	}
	free(scopes);
	if (rc) {
		maptap_tvar_free(v);
		return -1;
	}
	*out = v;
	return 0;
}

static const Dwarf_Op cfa_op = { .atom = DW_OP_call_frame_cfa };

int maptap_tvar_compile_cfa(struct maptap_tvar_module *m, uint64_t pc,
			    struct maptap_tvar **out, char **err)
{
	struct maptap_tvar *v = tvar_new(m, MAPTAP_TVAR_ADDR);

	*err = NULL;
	if (!v)
		return fail(err, "out of memory");
	find_cfa(m, pc, &v->loc);
	if (!v->loc.cfa) {
		maptap_tvar_free(v);
		return fail(err, "no call frame information at pc %#" PRIx64
			    " in %s", pc, m->path);
	}
	v->loc.ops = &cfa_op;
	v->loc.n = 1;
	v->out = O_ADDR;
	*out = v;
	return 0;
}

/* ---- @cast ---- */

struct find_type {
	const char *name;
	int tag;			/* 0: typedef or base type */
	Dwarf_Die found;
	bool ok;
};

static bool find_type_in(Dwarf_Die *cu, struct find_type *ft)
{
	Dwarf_Die c;

	if (dwarf_child(cu, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);
		const char *n = dwarf_diename(&c);
		bool decl = dwarf_hasattr(&c, DW_AT_declaration);

		if (!n || strcmp(n, ft->name) || decl)
			continue;
		if (ft->tag ? tag == ft->tag :
		    tag == DW_TAG_typedef || tag == DW_TAG_base_type) {
			ft->found = c;
			return ft->ok = true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

int maptap_tvar_compile_cast(struct maptap_tvar_module *m, const char *type,
			     const struct maptap_tvar_op *ops, size_t nops,
			     unsigned flags, struct maptap_tvar **out,
			     char **err)
{
	struct find_type ft = { 0 };
	Dwarf_Off off = 0, next;
	size_t hsize, len;
	struct maptap_tvar *v;
	char name[256];
	int stars = 0;
	Dwarf_Die t;

	*err = NULL;
	while (*type == ' ')
		type++;
	if (!strncmp(type, "struct ", 7)) {
		ft.tag = DW_TAG_structure_type;
		type += 7;
	} else if (!strncmp(type, "union ", 6)) {
		ft.tag = DW_TAG_union_type;
		type += 6;
	} else if (!strncmp(type, "enum ", 5)) {
		ft.tag = DW_TAG_enumeration_type;
		type += 5;
	}
	while (*type == ' ')
		type++;
	len = strlen(type);
	while (len && (type[len - 1] == '*' || type[len - 1] == ' '))
		stars += type[--len] == '*';
	if (!len || len >= sizeof(name))
		return fail(err, "invalid @cast type '%s'", type);
	memcpy(name, type, len);
	name[len] = 0;
	ft.name = name;
	while (!ft.ok && dwarf_nextcu(m->dw, off, &next, &hsize, NULL, NULL,
				      NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(m->dw, off + hsize, &cu))
			find_type_in(&cu, &ft);
		off = next;
	}
	if (!ft.ok)
		return fail(err, "type definition '%s%s' not found in '%s'",
			    ft.tag == DW_TAG_structure_type ? "struct " :
			    ft.tag == DW_TAG_union_type ? "union " :
			    ft.tag == DW_TAG_enumeration_type ? "enum " : "",
			    name, m->path);
	if (stars)
		return fail(err, "@cast to a pointer type ('%s') is not "
			    "supported; cast to the type pointed to", type);
	v = tvar_new(m, flags);
	if (!v)
		return fail(err, "out of memory");
	v->base = B_CAST;
	t = ft.found;
	if (walk_ops(v, &t, ops, nops, "@cast", err) ||
	    finish(v, &t, "@cast", err)) {
		maptap_tvar_free(v);
		return -1;
	}
	*out = v;
	return 0;
}

/* ---- listing (-L) ---- */

struct list_walk {
	int (*fn)(const char *name, const char *type, void *arg);
	void *arg;
	int calls;
};

static int on_list(Dwarf_Die *var, void *arg)
{
	struct list_walk *w = arg;
	Dwarf_Die t;
	char *ts = mt_tvar_type_of(var, &t) ? type_str(&t) : strdup("void");
	int rc;

	if (!ts)
		return -ENOMEM;
	w->calls++;
	rc = w->fn(dwarf_diename(var), ts, w->arg);
	free(ts);
	return rc;
}

int maptap_tvar_list(const char *path, uint64_t pc, bool at_return,
		     int (*fn)(const char *name, const char *type,
			       void *arg),
		     void *arg)
{
	struct maptap_tvar_module *m;
	struct list_walk w = { fn, arg, 0 };
	Dwarf_Die cu, *scopes = NULL, t;
	int n, f, rc;

	rc = maptap_tvar_module_open(path, &m);
	if (rc)
		return rc;
	n = scopes_at(m, pc, &cu, &scopes);
	if (n <= 0) {
		maptap_tvar_module_put(m);
		return -ENODATA;
	}
	f = func_scope(scopes, n);
	rc = 0;
	if (at_return && f >= 0 && mt_tvar_type_of(&scopes[f], &t)) {
		char *ts = type_str(&t);

		rc = ts ? fn("return", ts, arg) : -ENOMEM;
		w.calls++;
		free(ts);
	}
	if (!rc)
		rc = walk_vars(scopes, n, true, true, on_list, &w);
	free(scopes);
	maptap_tvar_module_put(m);
	return rc ? rc : w.calls;
}
