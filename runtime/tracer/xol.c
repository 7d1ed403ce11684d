/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* xol.c -- out-of-line execution of displaced instructions (x86-64).
 *
 * Each breakpoint gets a slot of MT_XOL_SLOT bytes in a page the
 * session maps into the target: its instruction, made to work at the
 * slot's address, then an absolute jump back after the original.  A
 * thread at a hit is resumed in the slot; many threads may run one slot
 * at once, since a slot holds no per-thread state.  Rewrites (Capstone
 * decodes; the encodings are the Intel SDM's):
 *
 *   rip-relative operand   disp32 += original address - slot address
 *                          (the page is mapped within +-2 GiB)
 *   jmp rel                jmp [rip+0]; .quad target
 *   jcc/loop/jrcxz rel     jcc +14 (short form); jmp [rip+0] fallthrough;
 *                          jmp [rip+0] target
 *   call rel               lea rsp,[rsp-8]; mov dword [rsp],lo;
 *                          mov dword [rsp+4],hi (the original return
 *                          address, no flags touched); jmp [rip+0] target
 *   call r/m               the same push, then the instruction as jmp r/m
 *                          (ModRM reg 2 -> 4); refused when the operand
 *                          uses rsp, which the push moved
 *   anything else          as it is (ret never comes back)
 *
 * The page is mapped by running mmap(2) in a stopped thread of the
 * target: its registers are saved, set for the call at a syscall
 * instruction of the vdso, the thread runs to the call's exit stop
 * (PTRACE_SYSCALL), and the registers are put back.  The model learns
 * of the page from a full read: a map event without a system call.
 */
#include "uprobe_priv.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <linux/ptrace.h>

#define RANGE_OK(a, b) ((a) > (b) ? (a) - (b) < 0x7fff0000ull : \
			(b) - (a) < 0x7fff0000ull)

static csh handle(struct mt_uprobes *u)
{
	return (csh)u->cs;
}

int maptap_uprobe_set_handler(struct maptap_session *s, maptap_uprobe_fn fn,
			      void *arg)
{
	csh h;

	if (!s->up) {
		s->up = calloc(1, sizeof(*s->up));
		if (!s->up)
			return -ENOMEM;
		if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) {
			free(s->up);
			s->up = NULL;
			return -EIO;
		}
		cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
		s->up->cs = (size_t)h;
	}
	s->up->fn = fn;
	s->up->arg = arg;
	return 0;
}

/* Free S->up's decoder too: mt_uprobes_free() in uprobe.c frees the
 * struct, this its handle. */
static void close_decoder(struct mt_uprobes *u)
{
	csh h = handle(u);

	cs_close(&h);
}

/* One decoded instruction; NULL when BP's bytes do not decode. */
static cs_insn *decode(struct mt_uprobes *u, const struct mt_bp *bp)
{
	cs_insn *ci = NULL;

	if (cs_disasm(handle(u), bp->insn, 15, bp->addr, 1, &ci) != 1)
		return NULL;
	return ci;
}

static bool uses_rip(const cs_x86 *x)
{
	int k;

	for (k = 0; k < x->op_count; k++)
		if (x->operands[k].type == X86_OP_MEM &&
		    x->operands[k].mem.base == X86_REG_RIP)
			return true;
	return false;
}

static bool uses_rsp(const cs_x86 *x)
{
	int k;

	for (k = 0; k < x->op_count; k++)
		if (x->operands[k].type == X86_OP_MEM &&
		    (x->operands[k].mem.base == X86_REG_RSP ||
		     x->operands[k].mem.index == X86_REG_RSP))
			return true;
	return false;
}

int mt_xol_decode(struct mt_uprobes *u, struct mt_bp *bp)
{
	cs_insn *ci = decode(u, bp);
	int rc = 0;

	if (!ci)
		return -EINVAL;
	bp->len = (uint8_t)ci->size;
	bp->riprel = uses_rip(&ci->detail->x86);
	if (cs_insn_group(handle(u), ci, CS_GRP_CALL) &&
	    ci->detail->x86.op_count == 1 &&
	    ci->detail->x86.operands[0].type != X86_OP_IMM &&
	    (uses_rsp(&ci->detail->x86) ||
	     (ci->detail->x86.operands[0].type == X86_OP_REG &&
	      ci->detail->x86.operands[0].reg == X86_REG_RSP)))
		rc = -ENOTSUP;
	if (ci->id == X86_INS_LCALL || ci->id == X86_INS_LJMP)
		rc = -ENOTSUP;
	cs_free(ci, 1);
	return rc;
}

static size_t put_jmp_abs(uint8_t *p, uint64_t to)
{
	p[0] = 0xff;
	p[1] = 0x25;
	memset(p + 2, 0, 4);
	memcpy(p + 6, &to, 8);
	return 14;
}

/* lea rsp,[rsp-8]; mov dword [rsp],lo; mov dword [rsp+4],hi */
static size_t put_push(uint8_t *p, uint64_t v)
{
	static const uint8_t lea[] = { 0x48, 0x8d, 0x64, 0x24, 0xf8 };
	uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);

	memcpy(p, lea, 5);
	p[5] = 0xc7;
	p[6] = 0x04;
	p[7] = 0x24;
	memcpy(p + 8, &lo, 4);
	p[12] = 0xc7;
	p[13] = 0x44;
	p[14] = 0x24;
	p[15] = 0x04;
	memcpy(p + 16, &hi, 4);
	return 20;
}

/* Copy BP's instruction to OUT as it runs at SLOT + AT (its place in
 * the slot), rip-relative displacement fixed.  Returns its length or
 * -ERANGE. */
static int put_insn(uint8_t *out, const struct mt_bp *bp, const cs_x86 *x,
		    uint64_t where)
{
	int32_t disp;
	int64_t nd;

	memcpy(out, bp->insn, bp->len);
	if (!bp->riprel)
		return bp->len;
	if (!x->encoding.disp_offset || x->encoding.disp_size != 4)
		return -ERANGE;
	memcpy(&disp, bp->insn + x->encoding.disp_offset, 4);
	nd = (int64_t)disp + (int64_t)(bp->addr - where);
	if (nd < INT32_MIN || nd > INT32_MAX)
		return -ERANGE;
	disp = (int32_t)nd;
	memcpy(out + x->encoding.disp_offset, &disp, 4);
	return bp->len;
}

/* Build BP's slot at SLOT into OUT[MT_XOL_SLOT]; returns its length or
 * -errno. */
static int build(struct mt_uprobes *u, const struct mt_bp *bp, uint64_t slot,
		 uint8_t *out)
{
	cs_insn *ci = decode(u, bp);
	const cs_x86 *x;
	uint64_t next = bp->addr + bp->len;
	size_t n = 0;
	int k, rc = 0;

	if (!ci)
		return -EINVAL;
	x = &ci->detail->x86;
	if (cs_insn_group(handle(u), ci, CS_GRP_CALL)) {
		n = put_push(out, next);
		if (x->operands[0].type == X86_OP_IMM) {
			n += put_jmp_abs(out + n, (uint64_t)x->operands[0].imm);
		} else {
			k = put_insn(out + n, bp, x, slot + n);
			if (k < 0 || !x->encoding.modrm_offset) {
				rc = k < 0 ? k : -ENOTSUP;
			} else {
				/* ff /2 (call r/m64) -> ff /4 (jmp r/m64) */
				out[n + x->encoding.modrm_offset] =
					(uint8_t)((out[n + x->encoding.modrm_offset] &
						   ~0x38) | 0x20);
				n += (size_t)k;
			}
		}
	} else if (cs_insn_group(handle(u), ci, CS_GRP_JUMP) &&
		   x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
		uint64_t to = (uint64_t)x->operands[0].imm;
		uint8_t op = x->opcode[0];

		if (ci->id == X86_INS_JMP) {
			n = put_jmp_abs(out, to);
		} else {
			if (op == 0x0f)
				op = (uint8_t)(0x70 | (x->opcode[1] & 0x0f));
			out[0] = op;	/* 70-7f, e0-e3: short forms */
			out[1] = 14;
			n = 2;
			n += put_jmp_abs(out + n, next);
			n += put_jmp_abs(out + n, to);
		}
	} else {
		k = put_insn(out, bp, x, slot);
		if (k < 0)
			rc = k;
		else
			n = (size_t)k + put_jmp_abs(out + k, next);
	}
	cs_free(ci, 1);
	return rc ? rc : (int)n;
}

/* ---- mapping a page in the target ---- */

/* Run mmap(HINT, one page, r-x, private anonymous) in thread T, stopped;
 * *OUT: the address.  A signal that stops T meanwhile goes to *SIG. */
static int inject_mmap(struct maptap_session *s, struct mt_thread *t,
		       uint64_t sysaddr, uint64_t hint, uint64_t *out, int *sig)
{
	struct user_regs_struct saved, r;
	struct __ptrace_syscall_info info;
	int status, rc = -EIO;

	if (ptrace(PTRACE_GETREGS, t->tid, 0L, &saved) != 0)
		return -errno;
	r = saved;
	r.rax = SYS_mmap;
	r.orig_rax = (unsigned long long)-1;
	r.rdi = hint;
	r.rsi = MT_XOL_PAGE;
	r.rdx = PROT_READ | PROT_EXEC;
	r.r10 = MAP_PRIVATE | MAP_ANONYMOUS;
	r.r8 = (unsigned long long)-1;
	r.r9 = 0;
	r.rip = sysaddr;
	if (ptrace(PTRACE_SETREGS, t->tid, 0L, &r) != 0)
		return -errno;
	for (;;) {
		int stopsig, event;

		if (ptrace(PTRACE_SYSCALL, t->tid, 0L, 0L) != 0 ||
		    mt_wait_blocking(s, t->tid, &status) < 0) {
			rc = -errno;
			break;
		}
		if (!WIFSTOPPED(status)) {
			rc = -ESRCH;	/* killed: its exit is lost to the
					 * loop, mt_forget_lost() says so */
			break;
		}
		stopsig = WSTOPSIG(status);
		event = status >> 16;
		if (event == PTRACE_EVENT_EXIT) {
			rc = -ESRCH;
			break;
		}
		if (stopsig == (SIGTRAP | 0x80)) {
			if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid,
				   (void *)sizeof(info), &info) > 0 &&
			    info.op == PTRACE_SYSCALL_INFO_EXIT) {
				rc = info.exit.rval < 0 &&
				     info.exit.rval > -4096 ?
				     (int)info.exit.rval : 0;
				*out = (uint64_t)info.exit.rval;
				break;
			}
			continue;
		}
		if (event == 0)
			*sig = stopsig;	/* delivered on resume */
	}
	ptrace(PTRACE_SETREGS, t->tid, 0L, &saved);
	/* A mapping the model has not seen: its map event comes from a
	 * full read (once per XOL page), with no system call of the
	 * program's own to name. */
	if (rc == 0)
		mt_refresh_full(s, t->proc, t->tid, false);
	return rc;
}

static int new_page(struct maptap_session *s, struct mt_thread *t,
		    struct mt_bps *b, uint64_t near, int *sig)
{
	uint64_t page = 0, hint;
	int rc;

	if (b->nxol == MT_XOL_MAX)
		return -ENOSPC;
	if (!b->sysaddr)
		b->sysaddr = mt_vdso_syscall(t->proc->pid);
	if (!b->sysaddr)
		return -ENOEXEC;
	/* Below the module, else above: the kernel takes a free hint. */
	hint = (near & ~0xfffffull) > 0x2000000 ?
	       (near & ~0xfffffull) - 0x1000000 : near + 0x10000000;
	rc = inject_mmap(s, t, b->sysaddr, hint, &page, sig);
	if (rc)
		return rc;
	b->xol[b->nxol] = page;
	b->xol_used[b->nxol] = MT_XOL_FIRST;
	b->nxol++;
	return 0;
}

int mt_xol_slot(struct maptap_session *s, struct mt_thread *t,
		struct mt_bps *b, struct mt_bp *bp, int *sig)
{
	uint8_t code[MT_XOL_SLOT];
	uint64_t slot = 0;
	int i, rc, n;

	for (;;) {
		for (i = 0; i < b->nxol; i++)
			if (b->xol_used[i] + MT_XOL_SLOT <= MT_XOL_PAGE &&
			    (!bp->riprel || RANGE_OK(b->xol[i], bp->addr)))
				break;
		if (i < b->nxol)
			break;
		rc = new_page(s, t, b, bp->addr, sig);
		if (rc)
			return rc;
		if (bp->riprel && !RANGE_OK(b->xol[b->nxol - 1], bp->addr))
			return -ERANGE;	/* the kernel put it far away */
	}
	slot = b->xol[i] + b->xol_used[i];
	memset(code, 0xcc, sizeof(code));
	n = build(s->up, bp, slot, code);
	if (n < 0)
		return n;
	rc = mt_bps_write(b, t->proc->pid, slot, code, sizeof(code));
	if (rc)
		return rc;
	b->xol_used[i] += MT_XOL_SLOT;
	bp->slot = slot;
	return 0;
}

void mt_uprobes_free(struct mt_uprobes *u)
{
	if (!u)
		return;
	close_decoder(u);
	free(u);
}
