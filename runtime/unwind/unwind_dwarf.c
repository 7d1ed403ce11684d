/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* unwind_dwarf.c -- one frame step by DWARF CFI, decoded by elfutils'
 * libdw: from .eh_frame first, and from .debug_frame for code whose CFI
 * is not in .eh_frame (built with -fno-asynchronous-unwind-tables, older
 * or hand-written objects), possibly only in a separate debuginfo file.
 *
 * Why not libunwind for these: libunwind 1.6 reads .debug_frame only
 * for its own local unwinding (the table format UNW_INFO_FORMAT_TABLE is
 * searched in the tracer's own memory through internal structures, and
 * its remote table search always decodes .eh_frame's CIE ids and
 * pc-relative FDE addresses); and each unw_step() blocks and restores
 * all signals around its locks, five system calls a step, which cost
 * more than the rest of a walk (bench/unwind/README.md).
 *
 * libdw reads .eh_frame from the module layer's image of the file
 * (dwarf_getcfi_elf()); libdwfl finds .debug_frame the way the symbol
 * layer finds debuginfo (the symbol index's Dwfl, sym_index.c).  libdw
 * decodes the row for the pc (dwarf_cfi_addrframe(), dwarf_frame_cfa(),
 * dwarf_frame_register()); the few DWARF operations a CFI row yields are
 * evaluated here against the frame's registers and the stop's page
 * cache.  libunwind's cursor then starts over from the caller's
 * registers, as after a frame-pointer step (unwind.c).
 */
#include <config.h>

#include "unwind_priv.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* DWARF register numbers of x86_64 (psABI, 3.6.2, "DWARF Register
 * Number Mapping"): 0-15 are rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp,
 * r8-r15, 16 the return address.  libunwind's UNW_X86_64_* numbers are
 * the same for 0-16. */
#define DW_NREGS 17
#define DW_RA 16

/* The registers of one frame as DWARF numbers; KNOWN marks those the
 * cursor could give. */
struct dw_regs {
	uint64_t v[DW_NREGS];
	bool known[DW_NREGS];
};

#define STACK_MAX 8

/* Is OP one of DW_OP_reg0..31, regx (a register location) or
 * breg0..31, bregx (a register's value plus an offset)?  Its register
 * in *REG, whether a location in *LOC. */
static bool reg_op(const Dwarf_Op *op, unsigned *reg, bool *loc)
{
	uint8_t a = op->atom;

	*loc = (a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx;
	if (a == DW_OP_regx || a == DW_OP_bregx)
		*reg = (unsigned)op->number;
	else if (*loc)
		*reg = (unsigned)a - DW_OP_reg0;
	else if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
		*reg = (unsigned)a - DW_OP_breg0;
	else
		return false;
	return true;
}

/* A binary operation of DWARF 5, 2.5.1.4, on the top two entries (A
 * below B); false for another operation.  DW_OP_ge compares as signed
 * and gives 1 or 0 (the PLT's CFA expression uses it). */
static bool binary_op(uint8_t op, uint64_t a, uint64_t b, uint64_t *out)
{
	switch (op) {
	case DW_OP_plus:	*out = a + b; return true;
	case DW_OP_minus:	*out = a - b; return true;
	case DW_OP_and:		*out = a & b; return true;
	case DW_OP_or:		*out = a | b; return true;
	case DW_OP_shl:		*out = b < 64 ? a << b : 0; return true;
	case DW_OP_shr:		*out = b < 64 ? a >> b : 0; return true;
	case DW_OP_ge:		*out = (int64_t)a >= (int64_t)b; return true;
	default:		return false;
	}
}

/* Evaluate OPS[0..N) (a CFI expression) with CFA as the value of
 * DW_OP_call_frame_cfa.  Sets *VAL and *IS_VALUE (false: *VAL is an
 * address to read the value from; true: it is the value itself).
 * Returns 0, or -1 for an operation outside what CFI rows use, a
 * register the cursor does not know, or unreadable memory. */
static int eval(struct maptap_unwinder *u, const struct dw_regs *r,
		uint64_t cfa, const Dwarf_Op *ops, size_t n, uint64_t *val,
		bool *is_value)
{
	uint64_t st[STACK_MAX];
	size_t i, sp = 0;
	unsigned reg;
	bool loc;

	*is_value = false;
	for (i = 0; i < n; i++) {
		uint8_t op = ops[i].atom;

		if (sp == STACK_MAX)
			return -1;
		if (reg_op(&ops[i], &reg, &loc)) {
			if (reg >= DW_NREGS || !r->known[reg])
				return -1;
			if (loc) {	/* the value is in that register */
				*val = r->v[reg];
				*is_value = true;
				return i + 1 == n ? 0 : -1;
			}
			st[sp++] = r->v[reg] + (op == DW_OP_bregx ?
						ops[i].number2 :
						ops[i].number);
		} else if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			st[sp++] = op - DW_OP_lit0;
		} else if (op == DW_OP_call_frame_cfa) {
			st[sp++] = cfa;
		} else if (op >= DW_OP_const1u && op <= DW_OP_consts) {
			st[sp++] = ops[i].number;
		} else if (op == DW_OP_plus_uconst && sp) {
			st[sp - 1] += ops[i].number;
		} else if (op == DW_OP_deref && sp) {
			if (uw_access_mem(u->as, st[sp - 1], &st[sp - 1], 0,
					  u) < 0)
				return -1;
		} else if (op == DW_OP_stack_value && sp && i + 1 == n) {
			*is_value = true;
		} else if (sp >= 2 &&
			   binary_op(op, st[sp - 2], st[sp - 1],
				     &st[sp - 2])) {
			sp--;
		} else {
			return -1;
		}
	}
	if (!sp)
		return -1;
	*val = st[sp - 1];
	return 0;
}

/* The caller's value of register REG by FRAME's rule into *OUT.
 * Returns 1 when set, 0 when the rule says "same value" (the caller's is
 * the callee's) or "undefined", -1 when it cannot be computed.
 * *UNDEF says which of the two a 0 was. */
static int reg_rule(struct maptap_unwinder *u, Dwarf_Frame *frame,
		    const struct dw_regs *r, uint64_t cfa, int reg,
		    uint64_t *out, bool *undef)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	uint64_t v;
	bool is_value;

	*undef = false;
	if (dwarf_frame_register(frame, reg, mem, &ops, &n) != 0)
		return -1;
	if (n == 0) {
		*undef = ops != NULL;
		return 0;
	}
	if (eval(u, r, cfa, ops, n, &v, &is_value) != 0)
		return -1;
	if (!is_value && uw_access_mem(u->as, v, &v, 0, u) < 0)
		return -1;
	*out = v;
	return 1;
}

/* The .debug_frame CFI of the file of IN (borrowed from its symbol
 * index), and its bias (CFI addresses = ELF vaddrs - bias), once per
 * located table. */
static Dwarf_CFI *debug_cfi_of(struct maptap_unwinder *u,
			       const struct mt_inst *in, uint64_t *bias)
{
	struct uw_table *t = uw_table_of(u, in->file);
	struct mt_symtab *st;

	if (!t)
		return NULL;
	if (!t->dcfi_tried) {
		t->dcfi_tried = true;
		st = mt_symtab_get(u->m, in->file);
		t->dcfi = st ? mt_symtab_debug_cfi(st, &t->dcfi_bias) : NULL;
	}
	*bias = t->dcfi_bias;
	return t->dcfi;
}

/* The .eh_frame CFI of the file of IN, read by libdw from the module
 * layer's image of the file (its addresses are ELF vaddrs), once per
 * located table; freed with the tables. */
static Dwarf_CFI *eh_cfi_of(struct maptap_unwinder *u,
			    const struct mt_inst *in, uint64_t *bias)
{
	struct uw_table *t = uw_table_of(u, in->file);

	if (!t)
		return NULL;
	if (!t->ecfi_tried) {
		t->ecfi_tried = true;
		t->ecfi = dwarf_getcfi_elf(in->file->elf);
	}
	*bias = 0;
	return t->ecfi;
}

void uw_table_cfi_free(struct uw_table *t)
{
	if (t->ecfi)
		dwarf_cfi_end(t->ecfi);
	t->ecfi = NULL;
}

/* The registers of cursor C's frame that libunwind can give. */
static void cursor_regs(unw_cursor_t *c, struct dw_regs *r)
{
	unw_word_t w;
	int i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < DW_NREGS; i++) {
		if (unw_get_reg(c, i, &w) == 0) {
			r->v[i] = w;
			r->known[i] = true;
		}
	}
}

/* Apply FRAME's row to R: the caller's registers into OUT (whose other
 * registers stay as the caller found them).  Every register with a rule
 * is restored: a signal frame's CFI (glibc's __restore_rt) restores the
 * caller-saved ones and %rsp too; without a rule %rsp is the CFA (psABI,
 * 3.7, the CFA is the value of %rsp at the call site).  Returns 1, 0
 * when the return address is undefined (the outermost frame), -1. */
static int apply_row(struct maptap_unwinder *u, Dwarf_Frame *frame,
		     const struct dw_regs *r, struct user_regs_struct *out)
{
	Dwarf_Op *ops;
	size_t n;
	uint64_t cfa, v;
	bool is_value, undef;
	int rc, reg;

	if (dwarf_frame_cfa(frame, &ops, &n) != 0 || n == 0 ||
	    eval(u, r, 0, ops, n, &cfa, &is_value) != 0)
		return -1;
	rc = reg_rule(u, frame, r, cfa, DW_RA, &v, &undef);
	if (rc <= 0)
		return rc == 0 && undef ? 0 : -1;
	out->rip = v;
	out->rsp = cfa;
	for (reg = 0; reg < DW_RA; reg++) {
		rc = reg_rule(u, frame, r, cfa, reg, &v, &undef);
		if (rc < 0)
			return -1;
		if (rc > 0)	/* else the same value, or lost to the call */
			uw_regs_set(out, reg, v);
	}
	return 1;
}

/* Step C from frame F by CFI (BIAS as debug_cfi_of() says); as
 * uw_debug_frame_step(). */
static int cfi_step(struct maptap_unwinder *u, unw_cursor_t *c,
		    const struct maptap_frame *f, const struct mt_inst *in,
		    Dwarf_CFI *cfi, uint64_t bias)
{
	/* a signal trampoline's CFI starts a byte early for this lookup at
	 * the exact pc, as does an activation's */
	uint64_t at = f->activation || f->signal ? f->pc : f->pc - 1;
	struct user_regs_struct caller, old_regs;
	const struct user_regs_struct *old_cur;
	Dwarf_Frame *frame = NULL;
	struct dw_regs r;
	int rc;

	if (dwarf_cfi_addrframe(cfi, at - in->bias - bias, &frame) != 0)
		return -1;
	cursor_regs(c, &r);
	uw_regs_of_cursor(u, c, &caller);
	rc = apply_row(u, frame, &r, &caller);
	free(frame);
	if (rc <= 0)
		return rc;
	old_cur = u->cur;
	old_regs = u->fp_regs;
	u->fp_regs = caller;
	u->cur = &u->fp_regs;
	if (unw_init_remote(c, u->as, u) == 0)
		return 1;
	/* leave the fallbacks the registers they expect */
	u->fp_regs = old_regs;
	u->cur = old_cur;
	return -1;
}

static const struct mt_inst *inst_of(struct maptap_unwinder *u,
				     const struct maptap_frame *f)
{
	uint64_t at = f->activation || f->signal ? f->pc : f->pc - 1;
	const struct mt_seg *seg;
	struct mt_inst *in = mt_inst_at(u->m, u->pid, at, 0, &seg);

	return in && in->file->elf ? in : NULL;
}

int uw_eh_frame_step(struct maptap_unwinder *u, unw_cursor_t *c,
		     const struct maptap_frame *f)
{
	const struct mt_inst *in = inst_of(u, f);
	Dwarf_CFI *cfi;
	uint64_t bias;

	if (!in || !(cfi = eh_cfi_of(u, in, &bias)))
		return -1;
	return cfi_step(u, c, f, in, cfi, bias);
}

int uw_debug_frame_step(struct maptap_unwinder *u, unw_cursor_t *c,
			const struct maptap_frame *f)
{
	const struct mt_inst *in = inst_of(u, f);
	Dwarf_CFI *cfi;
	uint64_t bias;

	if (!in || !(cfi = debug_cfi_of(u, in, &bias)))
		return -1;
	return cfi_step(u, c, f, in, cfi, bias);
}
