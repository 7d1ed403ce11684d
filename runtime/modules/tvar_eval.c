/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tvar_eval.c -- reading target variables at a stop (maptap/tvar.h): a
 * DWARF expression evaluator over the stopped thread's registers and
 * memory (DWARF 5 sections 2.5 and 2.6; x86-64 psABI 3.6.2 for the
 * register numbers), the member/index steps tvar.c compiled, and the
 * pretty printing of stap's $$parms and $var$.
 */
#include <config.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/user.h>

#include <maptap/tvar.h>

#include "tvar_priv.h"

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

/* Up to LEN bytes at ADDR of F's process, by F's reader. */
static ssize_t read_user(const struct maptap_tvar_frame *f, uint64_t addr,
			 void *dst, size_t len)
{
	struct iovec local = { dst, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (f->read)
		return f->read(f->pid, addr, dst, len);
	n = process_vm_readv(f->pid, &local, 1, &remote, 1, 0);
	return n < 0 ? -errno : n;
}

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
		got = read_user(f, addr, c->buf, sizeof(c->buf));
		c->addr = addr;
		c->len = got > 0 ? (size_t)got : 0;
		if (c->len >= len) {
			memcpy(dst, c->buf, len);
			return 0;
		}
	}
	return read_user(f, addr, dst, len) == (ssize_t)len ?
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

			if (r < 0 || (!vl->at_entry && !f->entry_regs) ||
			    !reg_value(vl->at_entry ? f->regs : f->entry_regs,
				       (unsigned)r, &a))
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

void mt_tvar_vloc_fini(struct vloc *vl)
{
	free(vl->frame);
	free(vl->entry_reg);
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

/* A bit-field of BS bits from bit BO of OFF in L, sign-extended when
 * SIGN. */
static int read_bits(const struct maptap_tvar_frame *f, const struct loc *l,
		     uint64_t off, int bo, int bs, bool sign, int64_t *out)
{
	uint64_t u = 0;
	size_t nb = (size_t)((bo % 8 + bs + 7) / 8);
	int rc;

	if (nb > 8)
		return -ENOENT;
	rc = read_bytes(f, l, off + (uint64_t)bo / 8, &u, nb);
	if (rc)
		return rc;
	u = (u >> (bo % 8)) & (bs >= 64 ? ~0ull : (1ull << bs) - 1);
	*out = (int64_t)u;
	if (sign && bs < 64 && (u >> (bs - 1)) & 1)
		*out = (int64_t)(u | (~0ull << bs));
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
	if (v->bit_size)
		return read_bits(f, &l, off, v->bit_off, v->bit_size,
				 v->is_signed, out);
	return read_int(f, &l, off, v->size, v->is_signed, out);
}

/* ---- pretty printing (stap's $$parms and $var$) ---- */

static void put_str(struct sbuf *b, const struct maptap_tvar_frame *f,
		    uint64_t addr, size_t max)
{
	char s[128];
	size_t i, n = max < sizeof(s) ? max : sizeof(s);
	ssize_t got = read_user(f, addr, s, n);

	if (got <= 0) {
		mt_sb_add(b, "0x%" PRIx64, addr);
		return;
	}
	mt_sb_add(b, "\"");
	for (i = 0; i < (size_t)got && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			mt_sb_add(b, "\\%c", c);
		else if (c == '\n')
			mt_sb_add(b, "\\n");
		else if (c < 32 || c >= 127)
			mt_sb_add(b, "\\%03o", c);
		else
			mt_sb_add(b, "%c", c);
	}
	mt_sb_add(b, "\"");
}

static bool is_char(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = 0, bs = 0;
	Dwarf_Die p;

	if (!mt_tvar_peel(t, &p) || dwarf_tag(&p) != DW_TAG_base_type)
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
		int bs, bo;

		if (dwarf_tag(&c) != DW_TAG_member || !mt_tvar_type_of(&c, &t))
			continue;
		if (dwarf_attr(&c, DW_AT_data_member_location, &a))
			dwarf_formudata(&a, &w);
		if (!n) {
			Dwarf_Die p;

			if (mt_tvar_peel(&t, &p))
				pretty_members(b, f, &p, l, off + w, level,
					       max_level, first);
			continue;
		}
		mt_sb_add(b, "%s.%s=", *first ? "" : ", ", n);
		*first = false;
		if (mt_tvar_bitfield(&c, &bs, &bo)) {
			Dwarf_Die p;
			Dwarf_Word enc = DW_ATE_unsigned;
			Dwarf_Attribute ea;
			int64_t x;

			if (mt_tvar_peel(&t, &p))
				dwarf_formudata(dwarf_attr_integrate(&p,
					DW_AT_encoding, &ea), &enc);
			if (read_bits(f, l, off + w, bo, bs,
				      enc == DW_ATE_signed ||
				      enc == DW_ATE_signed_char, &x))
				mt_sb_add(b, "?");
			else if (enc == DW_ATE_signed ||
				 enc == DW_ATE_signed_char)
				mt_sb_add(b, "%" PRId64, x);
			else
				mt_sb_add(b, "%" PRIu64, (uint64_t)x);
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

	if (!mt_tvar_peel(t, &p)) {
		mt_sb_add(b, "?");
		return;
	}
	tag = dwarf_tag(&p);
	if (mt_tvar_is_aggregate(tag)) {
		bool first = true;

		if (level > max_level) {
			mt_sb_add(b, "{...}");
			return;
		}
		mt_sb_add(b, "{");
		pretty_members(b, f, &p, l, off, level, max_level, &first);
		mt_sb_add(b, "}");
		return;
	}
	if (tag == DW_TAG_array_type) {
		int64_t n = 0, es, i;

		if (!mt_tvar_type_of(&p, &e) || (es = mt_tvar_type_size(&e)) <= 0) {
			mt_sb_add(b, "?");
			return;
		}
		n = mt_tvar_type_size(&p) / es;
		if (is_char(&e) && l->kind == L_MEM) {
			put_str(b, f, l->v + off, (size_t)n);
			return;
		}
		if (level > max_level && mt_tvar_peel(&e, &p) &&
		    (mt_tvar_is_aggregate(dwarf_tag(&p)) ||
		     dwarf_tag(&p) == DW_TAG_array_type)) {
			mt_sb_add(b, "[...]");
			return;
		}
		mt_sb_add(b, "[");
		for (i = 0; i < n && i < 16; i++) {
			if (i)
				mt_sb_add(b, ", ");
			pretty(b, f, &e, l, off + (uint64_t)(i * es), level + 1,
			       max_level, false);
		}
		mt_sb_add(b, n > 16 ? ", ...]" : "]");
		return;
	}
	if (tag == DW_TAG_pointer_type) {
		uint64_t pv = 0;

		if (read_bytes(f, l, off, &pv, 8)) {
			mt_sb_add(b, "?");
			return;
		}
		if (!hex && mt_tvar_type_of(&p, &e) && is_char(&e) && pv) {
			put_str(b, f, pv, 100);
		} else if (!hex && level == 0 && pv && mt_tvar_type_of(&p, &e) &&
			   mt_tvar_peel(&e, &e) && mt_tvar_is_aggregate(dwarf_tag(&e))) {
			/* $p$ of a pointer to a struct: the struct */
			struct loc d = { .kind = L_MEM, .v = pv };

			pretty(b, f, &e, &d, 0, level, max_level, false);
		} else
			mt_sb_add(b, "0x%" PRIx64, pv);
		return;
	}
	if (tag == DW_TAG_enumeration_type) {
		if (mt_tvar_type_of(&p, &e) && mt_tvar_peel(&e, &e))
			p = e;
		else
			enc = DW_ATE_signed;
	}
	if (dwarf_tag(&p) != DW_TAG_base_type &&
	    tag != DW_TAG_enumeration_type) {
		mt_sb_add(b, "?");
		return;
	}
	dwarf_formudata(dwarf_attr_integrate(&p, DW_AT_encoding, &a), &enc);
	dwarf_formudata(dwarf_attr_integrate(&p, DW_AT_byte_size, &a), &bs);
	if (enc == DW_ATE_float || bs > 8 || bs == 0 ||
	    read_int(f, l, off, (int)bs, enc == DW_ATE_signed ||
		     enc == DW_ATE_signed_char, &v)) {
		mt_sb_add(b, "?");
		return;
	}
	if (hex)
		mt_sb_add(b, "0x%" PRIx64, (uint64_t)v);
	else if (bs == 1 && (enc == DW_ATE_signed_char ||
			     enc == DW_ATE_unsigned_char) &&
		 v >= 32 && v < 127)
		mt_sb_add(b, "'%c'", (int)v);
	else if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
		mt_sb_add(b, "%" PRId64, v);
	else
		mt_sb_add(b, "%" PRIu64, (uint64_t)v);
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
		mt_sb_add(b, "?");
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
			mt_sb_add(&b, "%s%s=", i ? " " : "", v->names[i]);
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
			mt_sb_add(&b, "0x%" PRIx64, (uint64_t)x);
	}
	if (rc || b.oom) {
		free(b.p);
		return rc ? rc : -ENOMEM;
	}
	n = (int)b.len;
	if (size) {
		size_t k = b.len < size ? b.len : size - 1;

		memcpy(buf, mt_sb_str(&b), k);
		buf[k] = 0;
	}
	free(b.p);
	return n;
}
