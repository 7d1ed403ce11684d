/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tvar.c -- target variables from DWARF (maptap/tvar.h): finding a
 * variable at a probe address and compiling its access (pass 2), and
 * reading it at a hit (a DWARF expression evaluator over the stopped
 * thread's registers and memory).
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

struct maptap_tvar_module {
	Dwarf *dw;
	int fd, dfd, efd;
	Elf *elf;			/* the file itself, for .eh_frame */
	Dwarf_CFI *cfi_dw, *cfi_elf;
	char *path;
	int refs;
};

/* The location of one variable at one address. */
struct vloc {
	const Dwarf_Op *ops;		/* NULL: DW_AT_const_value */
	size_t n;
	int64_t cval;
	const Dwarf_Op *fb;		/* frame base, or NULL */
	size_t nfb;
	const Dwarf_Op *cfa;		/* CFA rule at the address, or NULL */
	size_t ncfa;
	Dwarf_Frame *frame;		/* owns CFA */
	int *entry_reg;			/* per op: DW_OP_entry_value(regN) */
	bool at_entry;			/* the address is the function's entry */
	bool missing;			/* no location here ($$parms: "?") */
};

enum step_kind { ST_ADD, ST_DEREF, ST_INDEX };

struct step {
	enum step_kind kind;
	int64_t k;			/* ADD: offset; INDEX: stride */
};

enum base_kind { B_VAR, B_CAST, B_LIST };

enum out_kind { O_LONG, O_ADDR, O_STRING };

struct maptap_tvar {
	struct maptap_tvar_module *m;
	enum base_kind base;
	struct vloc loc;
	struct step *steps;
	size_t nsteps;
	Dwarf_Die type;			/* of the result (unpeeled) */
	bool has_type;
	int size;			/* O_LONG: bytes to read */
	bool is_signed;
	int bit_size, bit_off;		/* a bit-field (bit_off from bit 0) */
	enum out_kind out;
	unsigned flags;
	/* B_LIST: $$parms and friends */
	struct maptap_tvar **items;
	const char **names;
	size_t nitems;
};

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

struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void sb_vadd(struct sbuf *b, const char *fmt, va_list ap)
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

static void __attribute__((format(printf, 2, 3)))
sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vadd(b, fmt, ap);
	va_end(ap);
}

static const char *sb_str(struct sbuf *b)
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
	sb_vadd(&b, fmt, ap);
	va_end(ap);
	*err = b.p ? b.p : strdup("out of memory");
	return -1;
}

static bool type_of(Dwarf_Die *die, Dwarf_Die *type)
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
	bool has = type_of(t, &sub);

	if (depth > 16) {
		sb_add(b, "...");
		return;
	}
	switch (dwarf_tag(t)) {
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
		sb_add(b, "struct %s", n ? n : "{...}");
		return;
	case DW_TAG_union_type:
		sb_add(b, "union %s", n ? n : "{...}");
		return;
	case DW_TAG_enumeration_type:
		sb_add(b, "enum %s", n ? n : "{...}");
		return;
	case DW_TAG_pointer_type:
		if (has)
			type_name(b, &sub, depth + 1);
		else
			sb_add(b, "void");
		sb_add(b, "*");
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		if (has)
			type_name(b, &sub, depth + 1);
		else
			sb_add(b, "void");
		sb_add(b, dwarf_tag(t) == DW_TAG_const_type ? " const" :
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
					sb_add(b, "[%" PRIu64 "]", (uint64_t)w);
				else if (dwarf_formudata(dwarf_attr(&r,
						DW_AT_upper_bound, &a), &w) == 0)
					sb_add(b, "[%" PRIu64 "]",
					       (uint64_t)w + 1);
				else
					sb_add(b, "[]");
			} while (dwarf_siblingof(&r, &r) == 0);
		}
		return;
	}
	case DW_TAG_subroutine_type:
		sb_add(b, "void(...)");	/* stap: a function's type */
		return;
	default:
		sb_add(b, "%s", n ? n : "void");
	}
}

static char *type_str(Dwarf_Die *t)
{
	struct sbuf b = { 0 };

	if (t)
		type_name(&b, t, 0);
	else
		sb_add(&b, "void");
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

	sb_add(b, "%s%s", b->len ? " " : "", dwarf_diename(var));
	return 0;
}

/* ---- locations ---- */

/* DWARF register N's value (x86-64 psABI numbering), false for the ones
 * not in user_regs_struct. */
static bool reg_value(const struct user_regs_struct *r, unsigned n,
		      uint64_t *v)
{
	switch (n) {
	case 0: *v = r->rax; return true;
	case 1: *v = r->rdx; return true;
	case 2: *v = r->rcx; return true;
	case 3: *v = r->rbx; return true;
	case 4: *v = r->rsi; return true;
	case 5: *v = r->rdi; return true;
	case 6: *v = r->rbp; return true;
	case 7: *v = r->rsp; return true;
	case 8: *v = r->r8; return true;
	case 9: *v = r->r9; return true;
	case 10: *v = r->r10; return true;
	case 11: *v = r->r11; return true;
	case 12: *v = r->r12; return true;
	case 13: *v = r->r13; return true;
	case 14: *v = r->r14; return true;
	case 15: *v = r->r15; return true;
	case 16: *v = r->rip; return true;
	}
	return false;
}

/* Where an object is: in memory, a register, a computed value, or bytes
 * put together from pieces. */
enum loc_kind { L_MEM, L_REG, L_VAL, L_BYTES };

#define LOC_BYTES 64

struct loc {
	enum loc_kind kind;
	uint64_t v;			/* MEM: address; REG: number; VAL */
	unsigned char bytes[LOC_BYTES];
	size_t nbytes;
};

/* LEN bytes of target memory at ADDR, through F's cache: a miss
 * fills the window from ADDR on (a short read keeps what it got). */
static int read_mem(const struct maptap_tvar_frame *f, uint64_t addr,
		    void *dst, size_t len)
{
	struct maptap_tvar_cache *c = f->cache;
	ssize_t got;

	if (c && c->len && addr >= c->addr && len <= c->len &&
	    addr - c->addr <= c->len - len) {
		memcpy(dst, c->buf + (addr - c->addr), len);
		return 0;
	}
	if (c && len <= sizeof(c->buf)) {
		got = maptap_read_user(f->pid, addr, c->buf, sizeof(c->buf));
		c->addr = addr;
		c->len = got > 0 ? (size_t)got : 0;
		if (c->len >= len) {
			memcpy(dst, c->buf, len);
			return 0;
		}
	}
	return maptap_read_user(f->pid, addr, dst, len) == (ssize_t)len ?
	       0 : -EFAULT;
}

static int read_bytes(const struct maptap_tvar_frame *f, const struct loc *l,
		      uint64_t off, void *dst, size_t len)
{
	unsigned char tmp[8];
	uint64_t v;

	switch (l->kind) {
	case L_MEM:
		return read_mem(f, l->v + off, dst, len);
	case L_REG:
		if (!reg_value(f->regs, (unsigned)l->v, &v))
			return -ENOENT;
		/* fall through */
	case L_VAL:
		if (l->kind == L_VAL)
			v = l->v;
		if (off + len > 8)
			return -ENOENT;
		memcpy(tmp, &v, 8);
		memcpy(dst, tmp + off, len);
		return 0;
	case L_BYTES:
		if (off + len > l->nbytes)
			return -ENOENT;
		memcpy(dst, l->bytes + off, len);
		return 0;
	}
	return -ENOENT;
}

#define STACK 64

static int eval_ops(const struct vloc *vl, const Dwarf_Op *ops, size_t n,
		    const struct maptap_tvar_frame *f, int depth,
		    struct loc *out);

/* The value of an expression used as a value (frame base, CFA). */
static int eval_value(const struct vloc *vl, const Dwarf_Op *ops, size_t n,
		      const struct maptap_tvar_frame *f, int depth,
		      uint64_t *v)
{
	struct loc l;
	int rc;

	if (depth > 4)
		return -ENOENT;
	rc = eval_ops(vl, ops, n, f, depth + 1, &l);
	if (rc)
		return rc;
	if (l.kind == L_REG)
		return reg_value(f->regs, (unsigned)l.v, v) ? 0 : -ENOENT;
	if (l.kind == L_BYTES)
		return -ENOENT;
	*v = l.v;
	return 0;
}

/* Add N bytes of L at the end of OUT's pieces (a piece with no location:
 * zeros, an optimised-out part). */
static int add_piece(const struct maptap_tvar_frame *f, struct loc *out,
		     const struct loc *l, bool empty, uint64_t n)
{
	if (out->nbytes + n > LOC_BYTES)
		return -ENOENT;
	if (empty)
		memset(out->bytes + out->nbytes, 0, n);
	else if (read_bytes(f, l, 0, out->bytes + out->nbytes, n))
		return -EFAULT;
	out->nbytes += n;
	return 0;
}

static int eval_ops(const struct vloc *vl, const Dwarf_Op *ops, size_t n,
		    const struct maptap_tvar_frame *f, int depth,
		    struct loc *out)
{
	uint64_t st[STACK], a, b;
	int sp = 0;
	size_t i;
	struct loc pieces = { .kind = L_BYTES };
	struct loc cur;
	bool have = false, is_loc = false, have_pieces = false;
	int rc;

#define PUSH(x) do { uint64_t x_ = (x); if (sp >= STACK) return -ENOENT; \
	st[sp++] = x_; } while (0)
#define NEED(k) do { if (sp < (k)) return -ENOENT; } while (0)

	memset(&cur, 0, sizeof(cur));
	for (i = 0; i < n; i++) {
		const Dwarf_Op *op = &ops[i];
		uint8_t at = op->atom;

		if (at >= DW_OP_lit0 && at <= DW_OP_lit31) {
			PUSH(at - DW_OP_lit0);
			continue;
		}
		if (at >= DW_OP_reg0 && at <= DW_OP_reg31) {
			cur.kind = L_REG;
			cur.v = at - DW_OP_reg0;
			have = is_loc = true;
			continue;
		}
		if (at >= DW_OP_breg0 && at <= DW_OP_breg31) {
			if (!reg_value(f->regs, at - DW_OP_breg0, &a))
				return -ENOENT;
			PUSH(a + (uint64_t)(int64_t)op->number);
			continue;
		}
		switch (at) {
		case DW_OP_addr:
			PUSH(op->number + f->bias);
			break;
		case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
		case DW_OP_const8u: case DW_OP_constu:
		case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
		case DW_OP_const8s: case DW_OP_consts:
			PUSH(op->number);
			break;
		case DW_OP_dup: NEED(1); PUSH(st[sp - 1]); break;
		case DW_OP_drop: NEED(1); sp--; break;
		case DW_OP_over: NEED(2); PUSH(st[sp - 2]); break;
		case DW_OP_pick:
			if (op->number >= (uint64_t)sp)
				return -ENOENT;
			PUSH(st[sp - 1 - (int)op->number]);
			break;
		case DW_OP_swap:
			NEED(2);
			a = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = a;
			break;
		case DW_OP_rot:
			NEED(3);
			a = st[sp - 1]; st[sp - 1] = st[sp - 2];
			st[sp - 2] = st[sp - 3]; st[sp - 3] = a;
			break;
		case DW_OP_deref:
		case DW_OP_deref_size: {
			size_t len = at == DW_OP_deref ? 8 : op->number;

			NEED(1);
			a = 0;
			if (len > 8 || read_mem(f, st[sp - 1], &a, len))
				return -EFAULT;
			st[sp - 1] = a;
			break;
		}
		case DW_OP_plus_uconst: NEED(1); st[sp - 1] += op->number;
			break;
		case DW_OP_neg: NEED(1); st[sp - 1] = -st[sp - 1]; break;
		case DW_OP_not: NEED(1); st[sp - 1] = ~st[sp - 1]; break;
		case DW_OP_abs:
			NEED(1);
			if ((int64_t)st[sp - 1] < 0)
				st[sp - 1] = -st[sp - 1];
			break;
		case DW_OP_plus: case DW_OP_minus: case DW_OP_mul:
		case DW_OP_and: case DW_OP_or: case DW_OP_xor:
		case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
		case DW_OP_div: case DW_OP_mod:
		case DW_OP_eq: case DW_OP_ne: case DW_OP_lt: case DW_OP_gt:
		case DW_OP_le: case DW_OP_ge:
			NEED(2);
			b = st[--sp];
			a = st[sp - 1];
			switch (at) {
			case DW_OP_plus: a += b; break;
			case DW_OP_minus: a -= b; break;
			case DW_OP_mul: a *= b; break;
			case DW_OP_and: a &= b; break;
			case DW_OP_or: a |= b; break;
			case DW_OP_xor: a ^= b; break;
			case DW_OP_shl: a = b < 64 ? a << b : 0; break;
			case DW_OP_shr: a = b < 64 ? a >> b : 0; break;
			case DW_OP_shra:
				a = (uint64_t)((int64_t)a >> (b < 63 ? b : 63));
				break;
			case DW_OP_div:
				if (!b)
					return -ENOENT;
				a = (uint64_t)((int64_t)a / (int64_t)b);
				break;
			case DW_OP_mod:
				if (!b)
					return -ENOENT;
				a %= b;
				break;
			case DW_OP_eq: a = a == b; break;
			case DW_OP_ne: a = a != b; break;
			case DW_OP_lt: a = (int64_t)a < (int64_t)b; break;
			case DW_OP_gt: a = (int64_t)a > (int64_t)b; break;
			case DW_OP_le: a = (int64_t)a <= (int64_t)b; break;
			case DW_OP_ge: a = (int64_t)a >= (int64_t)b; break;
			}
			st[sp - 1] = a;
			break;
		case DW_OP_regx:
			cur.kind = L_REG;
			cur.v = op->number;
			have = is_loc = true;
			break;
		case DW_OP_bregx:
			if (!reg_value(f->regs, (unsigned)op->number, &a))
				return -ENOENT;
			PUSH(a + op->number2);
			break;
		case DW_OP_fbreg:
			if (!vl->fb)
				return -ENOENT;
			rc = eval_value(vl, vl->fb, vl->nfb, f, depth, &a);
			if (rc)
				return rc;
			PUSH(a + (uint64_t)(int64_t)op->number);
			break;
		case DW_OP_call_frame_cfa:
			if (!vl->cfa)
				return -ENOENT;
			rc = eval_value(vl, vl->cfa, vl->ncfa, f, depth, &a);
			if (rc)
				return rc;
			PUSH(a);
			break;
		case DW_OP_stack_value:
			NEED(1);
			cur.kind = L_VAL;
			cur.v = st[sp - 1];
			have = is_loc = true;
			break;
		case DW_OP_implicit_value:
			if (op->number > LOC_BYTES)
				return -ENOENT;
			cur.kind = L_BYTES;
			cur.nbytes = op->number;
			memcpy(cur.bytes, (const void *)(uintptr_t)op->number2,
			       op->number);
			have = is_loc = true;
			break;
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value: {
			int r = vl->entry_reg && ops == vl->ops ?
				vl->entry_reg[i] : -1;

			if (r < 0 || !vl->at_entry ||
			    !reg_value(f->regs, (unsigned)r, &a))
				return -ENOENT;
			PUSH(a);
			break;
		}
		case DW_OP_piece:
			if (!have && sp > 0) {
				cur.kind = L_MEM;
				cur.v = st[sp - 1];
				have = true;
			}
			rc = add_piece(f, &pieces, &cur, !have, op->number);
			if (rc)
				return rc;
			have = is_loc = false;
			have_pieces = true;
			sp = 0;
			break;
		case DW_OP_nop:
			break;
		default:
			return -ENOENT;	/* not evaluated by maptap */
		}
	}
#undef PUSH
#undef NEED
	if (have_pieces) {
		*out = pieces;
		return 0;
	}
	if (is_loc) {
		*out = cur;
		return 0;
	}
	if (!sp)
		return -ENOENT;
	out->kind = L_MEM;
	out->v = st[sp - 1];
	return 0;
}

static int var_loc(const struct vloc *vl, const struct maptap_tvar_frame *f,
		   struct loc *out)
{
	if (vl->missing)
		return -ENOENT;
	if (!vl->ops) {
		out->kind = L_VAL;
		out->v = (uint64_t)vl->cval;
		return 0;
	}
	return eval_ops(vl, vl->ops, vl->n, f, 0, out);
}

static void vloc_fini(struct vloc *vl)
{
	free(vl->frame);
	free(vl->entry_reg);
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

static bool is_aggregate_tag(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
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

	if (type_of(fn, &r) && dwarf_peel_type(&r, &r) == 0 &&
	    is_aggregate_tag(dwarf_tag(&r))) {
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
		if (!type_of(&c, &t) || !int_class(&t) || i >= 6)
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
		  int decl, Dwarf_Die *var, uint64_t pc, struct vloc *vl,
		  char **err)
{
	Dwarf_Attribute a, fba;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Addr lo;
	Dwarf_Sword sv;
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
	for (i = decl; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			f = i;
			break;
		}
	if (f >= 0) {
		if (dwarf_attr_integrate(&scopes[f], DW_AT_frame_base, &fba) &&
		    dwarf_getlocation_addr(&fba, pc, &ops, &nops, 1) == 1) {
			vl->fb = ops;
			vl->nfb = nops;
		}
		vl->at_entry = dwarf_entrypc(&scopes[f], &lo) == 0 &&
			       lo == pc;
		if (vl->at_entry && f == decl && vl->n &&
		    vl->ops[0].atom == DW_OP_fbreg &&
		    dwarf_tag(var) == DW_TAG_formal_parameter) {
			const Dwarf_Op *r = entry_arg_reg(&scopes[f], var);

			if (r) {	/* before the prologue stored it */
				vl->ops = r;
				vl->n = 1;
			}
		}
	}
	find_cfa(m, pc, vl);
	find_entry_regs(&a, vl);
	if (vl->entry_reg && !vl->at_entry) {
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

static bool peel(Dwarf_Die *t, Dwarf_Die *out)
{
	return dwarf_peel_type(t, out) == 0;
}

static bool is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
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
		if (!n && type_of(&c, &t) && peel(&t, &t) &&
		    is_aggregate(dwarf_tag(&t)) &&
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
			sb_add(b, "%s%s", b->len ? " " : "", n);
		else if (type_of(&c, &t) && peel(&t, &t))
			member_names(b, &t, depth + 1);
	} while (dwarf_siblingof(&c, &c) == 0);
}

static int64_t type_size(Dwarf_Die *t)
{
	Dwarf_Word w;

	return dwarf_aggregate_size(t, &w) == 0 ? (int64_t)w : -1;
}

/* Walk OPS from the type T of V's base, adding V's steps. */
static int walk_ops(struct maptap_tvar *v, Dwarf_Die *t,
		    const struct maptap_tvar_op *ops, size_t nops,
		    const char *what, char **err)
{
	size_t i;

	for (i = 0; i < nops; i++) {
		Dwarf_Die p, mem;
		int64_t off, sz;
		char *tn;
		int tag;

		if (!peel(t, &p))
			return fail(err, "'%s' has no type", what);
		tag = dwarf_tag(&p);
		if (ops[i].kind == MAPTAP_TVAR_MEMBER) {
			if (tag == DW_TAG_pointer_type) {
				if (!type_of(&p, &p) || !peel(&p, &p))
					return fail(err, "unable to find member"
						    " '%s' of a void pointer",
						    ops[i].member);
				tag = dwarf_tag(&p);
				if (push_step(v, ST_DEREF, 0))
					return fail(err, "out of memory");
			}
			if (!is_aggregate(tag)) {
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
				     tn ? tn : "?", sb_str(&alt));
				free(alt.p);
				free(tn);
				return -1;
			}
			if (push_step(v, ST_ADD, off))
				return fail(err, "out of memory");
			if (!type_of(&mem, t))
				return fail(err, "member '%s' has no type",
					    ops[i].member);
			if (i + 1 == nops) {
				Dwarf_Attribute a;
				Dwarf_Word bs, bo;

				if (dwarf_formudata(dwarf_attr(&mem,
					DW_AT_bit_size, &a), &bs) == 0) {
					v->bit_size = (int)bs;
					if (dwarf_formudata(dwarf_attr(&mem,
						DW_AT_data_bit_offset, &a),
						&bo) == 0) {
						v->bit_off = (int)bo;
						v->steps[v->nsteps - 1].k =
							0;
					}
				}
			}
			continue;
		}
		/* [i] */
		if (tag == DW_TAG_array_type) {
			if (!type_of(&p, t))
				return fail(err, "array without element type");
		} else if (tag == DW_TAG_pointer_type) {
			if (!type_of(&p, t))
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
		sz = type_size(t);
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
	if (!peel(t, &p))
		return fail(err, "'%s' has type void", what);
	tag = dwarf_tag(&p);
	if (is_aggregate(tag))
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

		if (type_of(&p, &u) && peel(&u, &u))
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
	vloc_fini(&v->loc);
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
	if (var && locate(c->m, c->scopes, c->n, decl, var, c->pc, &it->loc,
			  &e) != 0)
		it->loc.missing = true;
	free(e);
	it->out = O_STRING;
	if (var && type_of(var, &it->type))
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

	if (f < 0 || !type_of(&scopes[f], &t))
		return fail(err, "unable to find return value: the function "
			    "returns void");
	v->loc.ops = &rax_op;
	v->loc.n = 1;
	if (walk_ops(v, &t, ops, nops, "$return", err))
		return -1;
	return finish(v, &t, "$return", err);
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

			if (f >= 0 && !type_of(&scopes[f], &rt)) {
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
			  sb_str(&alt), "");
		free(alt.p);
	} else if (locate(m, scopes, n, decl, &var, pc, &v->loc, err) == 0) {
		if (!type_of(&var, &t))
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

/* ---- reading ---- */

/* The object V designates: its location plus offset. */
static int locate_obj(const struct maptap_tvar *v,
		      const struct maptap_tvar_frame *f, struct loc *l,
		      uint64_t *off)
{
	size_t i, ix = 0;
	uint64_t p;
	int rc;

	*off = 0;
	if (v->base == B_CAST) {
		l->kind = L_MEM;
		l->v = f->cast_addr;
	} else {
		rc = var_loc(&v->loc, f, l);
		if (rc)
			return rc;
	}
	for (i = 0; i < v->nsteps; i++) {
		const struct step *s = &v->steps[i];

		switch (s->kind) {
		case ST_ADD:
			*off += (uint64_t)s->k;
			break;
		case ST_INDEX:
			*off += (uint64_t)(f->index ? f->index[ix] : 0) *
				(uint64_t)s->k;
			ix++;
			break;
		case ST_DEREF:
			p = 0;
			rc = read_bytes(f, l, *off, &p, 8);
			if (rc)
				return rc;
			l->kind = L_MEM;
			l->v = p;
			*off = 0;
			break;
		}
	}
	return 0;
}

static int read_int(const struct maptap_tvar_frame *f, const struct loc *l,
		    uint64_t off, int size, bool sign, int64_t *out)
{
	uint64_t u = 0;
	int rc = read_bytes(f, l, off, &u, (size_t)size);

	if (rc)
		return rc;
	if (sign && size < 8 && (u >> (size * 8 - 1)) & 1)
		u |= ~0ull << (size * 8);
	*out = (int64_t)u;
	return 0;
}

int maptap_tvar_read_long(const struct maptap_tvar *v,
			  const struct maptap_tvar_frame *f, int64_t *out)
{
	struct loc l;
	uint64_t off;
	int rc;

	if (v->out == O_STRING)
		return -EINVAL;
	rc = locate_obj(v, f, &l, &off);
	if (rc)
		return rc;
	if (v->out == O_ADDR) {
		if (l.kind != L_MEM)
			return -ENOENT;
		*out = (int64_t)(l.v + off);
		return 0;
	}
	if (v->bit_size) {
		uint64_t u = 0;
		int64_t r;
		int bs = v->bit_size, bo = v->bit_off;
		size_t nb = (size_t)((bo % 8 + bs + 7) / 8);

		if (nb > 8)
			return -ENOENT;
		rc = read_bytes(f, &l, off + (uint64_t)bo / 8, &u, nb);
		if (rc)
			return rc;
		u = (u >> (bo % 8)) & (bs >= 64 ? ~0ull : (1ull << bs) - 1);
		r = (int64_t)u;
		if (v->is_signed && bs < 64 && (u >> (bs - 1)) & 1)
			r = (int64_t)(u | (~0ull << bs));
		*out = r;
		return 0;
	}
	return read_int(f, &l, off, v->size, v->is_signed, out);
}

/* ---- pretty printing (stap's $$parms and $var$) ---- */

static void put_str(struct sbuf *b, const struct maptap_tvar_frame *f,
		    uint64_t addr, size_t max)
{
	char s[128];
	size_t i, n = max < sizeof(s) ? max : sizeof(s);
	ssize_t got = maptap_read_user(f->pid, addr, s, n);

	if (got <= 0) {
		sb_add(b, "0x%" PRIx64, addr);
		return;
	}
	sb_add(b, "\"");
	for (i = 0; i < (size_t)got && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			sb_add(b, "\\%c", c);
		else if (c == '\n')
			sb_add(b, "\\n");
		else if (c < 32 || c >= 127)
			sb_add(b, "\\%03o", c);
		else
			sb_add(b, "%c", c);
	}
	sb_add(b, "\"");
}

static bool is_char(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = 0, bs = 0;
	Dwarf_Die p;

	if (!peel(t, &p) || dwarf_tag(&p) != DW_TAG_base_type)
		return false;
	dwarf_formudata(dwarf_attr(&p, DW_AT_encoding, &a), &enc);
	dwarf_formudata(dwarf_attr(&p, DW_AT_byte_size, &a), &bs);
	return bs == 1 && (enc == DW_ATE_signed_char ||
			   enc == DW_ATE_unsigned_char);
}

static void pretty(struct sbuf *b, const struct maptap_tvar_frame *f,
		   Dwarf_Die *t, const struct loc *l, uint64_t off,
		   int level, int max_level, bool hex);

static void pretty_members(struct sbuf *b, const struct maptap_tvar_frame *f,
			   Dwarf_Die *s, const struct loc *l, uint64_t off,
			   int level, int max_level, bool *first)
{
	Dwarf_Die c, t;

	if (dwarf_child(s, &c) != 0)
		return;
	do {
		Dwarf_Attribute a;
		Dwarf_Word w = 0;
		const char *n = dwarf_diename(&c);

		if (dwarf_tag(&c) != DW_TAG_member || !type_of(&c, &t))
			continue;
		if (dwarf_attr(&c, DW_AT_data_member_location, &a))
			dwarf_formudata(&a, &w);
		if (!n) {
			Dwarf_Die p;

			if (peel(&t, &p))
				pretty_members(b, f, &p, l, off + w, level,
					       max_level, first);
			continue;
		}
		sb_add(b, "%s.%s=", *first ? "" : ", ", n);
		*first = false;
		if (dwarf_hasattr(&c, DW_AT_bit_size)) {
			sb_add(b, "?");	/* bit-fields: read them by name */
			continue;
		}
		pretty(b, f, &t, l, off + w, level + 1, max_level, false);
	} while (dwarf_siblingof(&c, &c) == 0);
}

static void pretty(struct sbuf *b, const struct maptap_tvar_frame *f,
		   Dwarf_Die *t, const struct loc *l, uint64_t off,
		   int level, int max_level, bool hex)
{
	Dwarf_Die p, e;
	Dwarf_Attribute a;
	Dwarf_Word enc = DW_ATE_unsigned, bs = 8;
	int64_t v;
	int tag;

	if (!peel(t, &p)) {
		sb_add(b, "?");
		return;
	}
	tag = dwarf_tag(&p);
	if (is_aggregate(tag)) {
		bool first = true;

		if (level > max_level) {
			sb_add(b, "{...}");
			return;
		}
		sb_add(b, "{");
		pretty_members(b, f, &p, l, off, level, max_level, &first);
		sb_add(b, "}");
		return;
	}
	if (tag == DW_TAG_array_type) {
		int64_t n = 0, es, i;

		if (!type_of(&p, &e) || (es = type_size(&e)) <= 0) {
			sb_add(b, "?");
			return;
		}
		n = type_size(&p) / es;
		if (is_char(&e) && l->kind == L_MEM) {
			put_str(b, f, l->v + off, (size_t)n);
			return;
		}
		if (level > max_level && peel(&e, &p) &&
		    (is_aggregate(dwarf_tag(&p)) ||
		     dwarf_tag(&p) == DW_TAG_array_type)) {
			sb_add(b, "[...]");
			return;
		}
		sb_add(b, "[");
		for (i = 0; i < n && i < 16; i++) {
			if (i)
				sb_add(b, ", ");
			pretty(b, f, &e, l, off + (uint64_t)(i * es), level + 1,
			       max_level, false);
		}
		sb_add(b, n > 16 ? ", ...]" : "]");
		return;
	}
	if (tag == DW_TAG_pointer_type) {
		uint64_t pv = 0;

		if (read_bytes(f, l, off, &pv, 8)) {
			sb_add(b, "?");
			return;
		}
		if (!hex && type_of(&p, &e) && is_char(&e) && pv) {
			put_str(b, f, pv, 100);
		} else if (!hex && level == 0 && pv && type_of(&p, &e) &&
			   peel(&e, &e) && is_aggregate(dwarf_tag(&e))) {
			/* $p$ of a pointer to a struct: the struct */
			struct loc d = { .kind = L_MEM, .v = pv };

			pretty(b, f, &e, &d, 0, level, max_level, false);
		} else
			sb_add(b, "0x%" PRIx64, pv);
		return;
	}
	if (tag == DW_TAG_enumeration_type) {
		if (type_of(&p, &e) && peel(&e, &e))
			p = e;
		else
			enc = DW_ATE_signed;
	}
	if (dwarf_tag(&p) != DW_TAG_base_type &&
	    tag != DW_TAG_enumeration_type) {
		sb_add(b, "?");
		return;
	}
	dwarf_formudata(dwarf_attr_integrate(&p, DW_AT_encoding, &a), &enc);
	dwarf_formudata(dwarf_attr_integrate(&p, DW_AT_byte_size, &a), &bs);
	if (enc == DW_ATE_float || bs > 8 || bs == 0 ||
	    read_int(f, l, off, (int)bs, enc == DW_ATE_signed ||
		     enc == DW_ATE_signed_char, &v)) {
		sb_add(b, "?");
		return;
	}
	if (hex)
		sb_add(b, "0x%" PRIx64, (uint64_t)v);
	else if (bs == 1 && (enc == DW_ATE_signed_char ||
			     enc == DW_ATE_unsigned_char) &&
		 v >= 32 && v < 127)
		sb_add(b, "'%c'", (int)v);
	else if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
		sb_add(b, "%" PRId64, v);
	else
		sb_add(b, "%" PRIu64, (uint64_t)v);
}

/* One item of $$parms: stap prints integers and pointers in hex
 * ("x=0x5"), aggregates as {...}; with $ (pretty) decimal, strings and
 * members one level deep; with $$ every level. */
static void put_item(struct sbuf *b, const struct maptap_tvar *it,
		     const struct maptap_tvar_frame *f, unsigned flags)
{
	struct loc l;
	uint64_t off;
	Dwarf_Die t = it->type;
	bool pr = flags & (MAPTAP_TVAR_PRETTY | MAPTAP_TVAR_DEEP);

	if (!it->has_type || locate_obj(it, f, &l, &off)) {
		sb_add(b, "?");
		return;
	}
	pretty(b, f, &t, &l, off, pr ? 0 : 1,
	       flags & MAPTAP_TVAR_DEEP ? 100 : 0, !pr);
}

int maptap_tvar_read_string(const struct maptap_tvar *v,
			    const struct maptap_tvar_frame *f, char *buf,
			    size_t size)
{
	struct sbuf b = { 0 };
	int rc = 0, n;
	size_t i;

	if (v->base == B_LIST) {
		unsigned fl = v->flags;

		for (i = 0; i < v->nitems; i++) {
			sb_add(&b, "%s%s=", i ? " " : "", v->names[i]);
			put_item(&b, v->items[i], f, fl);
		}
	} else if (v->out == O_STRING) {
		struct loc l;
		uint64_t off;
		Dwarf_Die t = v->type;

		rc = locate_obj(v, f, &l, &off);
		if (!rc)
			pretty(&b, f, &t, &l, off, 0,
			       v->flags & MAPTAP_TVAR_DEEP ? 100 : 0, false);
	} else {
		int64_t x;

		rc = maptap_tvar_read_long(v, f, &x);
		if (!rc)
			sb_add(&b, "0x%" PRIx64, (uint64_t)x);
	}
	if (rc || b.oom) {
		free(b.p);
		return rc ? rc : -ENOMEM;
	}
	n = (int)b.len;
	if (size) {
		size_t k = b.len < size ? b.len : size - 1;

		memcpy(buf, sb_str(&b), k);
		buf[k] = 0;
	}
	free(b.p);
	return n;
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
	char *ts = type_of(var, &t) ? type_str(&t) : strdup("void");
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
	if (at_return && f >= 0 && type_of(&scopes[f], &t)) {
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
