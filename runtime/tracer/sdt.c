/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sdt.c -- what SDT markers need from a traced process (maptap/sdt.h):
 * their semaphores, counted up while probed and down at the let-go, and
 * the values of their arguments at a hit.
 */
#include "uprobe_priv.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>

#include <maptap/sdt.h>
#include <maptap/session.h>

/* ---- semaphores ---- */

/* Index of ADDR in B's semaphores, or where it would go (*FOUND). */
static size_t sema_find(const struct mt_bps *b, uint64_t addr, bool *found)
{
	size_t lo = 0, hi = b->nsema;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->sema[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < b->nsema && b->sema[lo].addr == addr;
	return lo;
}

int maptap_uprobe_semaphore(struct maptap_session *s, pid_t pid,
			    uint64_t addr)
{
	struct mt_proc *p = mt_proc_find(s, pid);
	struct mt_bps *b;
	uint16_t v;
	size_t pos;
	bool found;
	int rc;

	if (!p)
		return -ESRCH;
	if (s->detaching)
		return 0;
	b = mt_bps_get(p->mm);
	if (!b)
		return -ENOMEM;
	pos = sema_find(b, addr, &found);
	if (found && b->sema[pos].added)
		return 0;
	if (!found && b->nsema == b->semacap) {
		size_t cap = b->semacap ? 2 * b->semacap : 8;
		struct mt_sema *nv = realloc(b->sema, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		b->sema = nv;
		b->semacap = cap;
	}
	rc = mt_bps_read(b, pid, addr, &v, sizeof(v));
	if (rc < 0)
		return rc;
	if (rc != sizeof(v))
		return -EFAULT;
	v++;
	rc = mt_bps_write(b, pid, addr, &v, sizeof(v));
	if (rc)
		return rc;
	if (!found) {
		memmove(&b->sema[pos + 1], &b->sema[pos],
			(b->nsema - pos) * sizeof(*b->sema));
		b->nsema++;
	}
	b->sema[pos].addr = addr;
	b->sema[pos].added = 1;
	return 1;
}

void mt_sema_restore(struct mt_bps *b, pid_t pid)
{
	size_t i;

	for (i = 0; i < b->nsema; i++) {
		struct mt_sema *m = &b->sema[i];
		uint16_t v;

		if (!m->added)
			continue;
		/* Another tracer may have taken its own off meanwhile: never
		 * below zero. */
		if (mt_bps_read(b, pid, m->addr, &v, sizeof(v)) ==
		    sizeof(v)) {
			v = v >= m->added ? (uint16_t)(v - m->added) : 0;
			mt_bps_write(b, pid, m->addr, &v, sizeof(v));
		}
		m->added = 0;
	}
}

size_t mt_sema_forget(struct mt_bps *b, uint64_t lo, uint64_t hi)
{
	size_t from, to;
	bool found;

	if (!b->nsema || lo >= hi)
		return 0;
	from = sema_find(b, lo, &found);
	to = sema_find(b, hi, &found);
	memmove(&b->sema[from], &b->sema[to],
		(b->nsema - to) * sizeof(*b->sema));
	b->nsema -= to - from;
	return to - from;
}

int mt_sema_copy(struct mt_bps *dst, const struct mt_bps *src)
{
	dst->sema = NULL;
	dst->nsema = dst->semacap = 0;
	if (!src->nsema)
		return 0;
	dst->sema = malloc(src->nsema * sizeof(*dst->sema));
	if (!dst->sema)
		return -ENOMEM;
	memcpy(dst->sema, src->sema, src->nsema * sizeof(*dst->sema));
	dst->nsema = dst->semacap = src->nsema;
	return 0;
}

/* ---- argument values ---- */

static uint64_t reg_value(const struct user_regs_struct *r, int reg)
{
	switch (reg) {
	case 0: return r->rax;
	case 1: return r->rbx;
	case 2: return r->rcx;
	case 3: return r->rdx;
	case 4: return r->rsi;
	case 5: return r->rdi;
	case 6: return r->rbp;
	case 7: return r->rsp;
	case 8: return r->r8;
	case 9: return r->r9;
	case 10: return r->r10;
	case 11: return r->r11;
	case 12: return r->r12;
	case 13: return r->r13;
	case 14: return r->r14;
	case 15: return r->r15;
	case 16: return r->rip;
	}
	return 0;
}

static int64_t extend(uint64_t v, int size, bool is_signed)
{
	int bits = size * 8;

	if (bits >= 64)
		return (int64_t)v;
	v &= (1ull << bits) - 1;
	if (is_signed && (v >> (bits - 1)) & 1)
		v |= ~0ull << bits;
	return (int64_t)v;
}

int maptap_sdt_arg_value(const struct maptap_sdt_arg *a, pid_t pid,
			 const struct user_regs_struct *regs, uint64_t bias,
			 int64_t *value)
{
	uint64_t v = 0, addr;

	switch (a->kind) {
	case MAPTAP_SDT_ARG_REG:
		v = reg_value(regs, a->reg) >> a->reg_shift;
		if (a->reg_bits < 64)
			v &= (1ull << a->reg_bits) - 1;
		break;
	case MAPTAP_SDT_ARG_IMM:
		v = (uint64_t)a->disp;
		break;
	case MAPTAP_SDT_ARG_MEM:
		addr = (uint64_t)a->disp;
		if (a->rel_bias)
			addr += bias;
		if (a->reg >= 0)
			addr += reg_value(regs, a->reg);
		if (a->index >= 0)
			addr += reg_value(regs, a->index) *
				(uint64_t)a->scale;
		if (maptap_read_user(pid, addr, &v, (size_t)a->size) !=
		    (ssize_t)a->size)
			return -EFAULT;
		break;
	}
	*value = extend(v, a->size, a->is_signed);
	return 0;
}
