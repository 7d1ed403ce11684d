/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* unwind_mem.c -- registers and memory of the stopped thread, as
 * libunwind's accessors.
 *
 * libunwind asks for one aligned word at a time.  A ptrace tracer's
 * obvious answer, PTRACE_PEEKDATA per word (libunwind-ptrace's
 * _UPT_access_mem), is one system call per word; a backtrace asks for
 * hundreds of words from a handful of pages (the stack, .eh_frame_hdr,
 * .eh_frame).  So each page is read once per stop and served from the
 * cache after that; an unreadable page is remembered as such too.  A
 * stack page is read together with the page above it.
 *
 * A page of a read-only segment of a module (.eh_frame_hdr, .eh_frame,
 * code) holds the bytes of the file the module layer already has open
 * and mapped: the kernel maps file pages as they are (mmap(2)), and the
 * loader only writes to writable segments.  Those pages are copied from
 * the module's own image, with no system call; only the stack and
 * writable data are read with process_vm_readv(2).  What this gives up:
 * text the target patched at run time (DT_TEXTREL objects, code it
 * mprotect()s writable) reads as the file has it; unwinding needs only
 * its CFI, which no such patching touches in practice.
 */
#include <config.h>

#include "unwind_priv.h"

#include <errno.h>
#include <gelf.h>
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

int uw_stop_begin(struct maptap_unwinder *u, pid_t pid, pid_t tid)
{
	if (ptrace(PTRACE_GETREGS, tid, NULL, &u->regs) != 0)
		return -errno;
	u->pid = pid;
	u->tid = tid;
	u->cur = &u->regs;
	u->sample = false;
	/* Generation 0 never matches: slots start zeroed. */
	u->gen++;
	return 0;
}

void uw_sample_begin(struct maptap_unwinder *u, pid_t pid, pid_t tid,
		     const struct user_regs_struct *regs, const void *stack,
		     size_t stack_len)
{
	u->regs = *regs;
	u->pid = pid;
	u->tid = tid;
	u->cur = &u->regs;
	u->sample = true;
	u->stk = stack;
	u->stk_lo = regs->rsp;
	u->stk_len = stack ? stack_len : 0;
	u->gen++;
}

/* Copy the page at BASE from the file of the module mapping it, when
 * that page is one of a read-only PT_LOAD's file pages.  The loader maps
 * whole pages of the file, so the last page of a segment holds the file
 * bytes that follow it too, and zeros past the end of the file (mmap(2));
 * small programs have all of .eh_frame_hdr and .eh_frame in such a
 * page.  True when done. */
static bool page_from_file(struct maptap_unwinder *u, uint64_t base,
			   uint8_t *data)
{
	const struct mt_seg *seg, *end;
	struct mt_inst *in = mt_inst_at(u->m, u->pid, base, 0, &seg);
	uint64_t lo, hi, off;
	const char *img;
	size_t size, n;

	if (!in || !seg || (seg->flags & PF_W) || !in->file->elf)
		return false;
	/* the segment's pages: [floor(vaddr), vaddr + filesz) + bias */
	lo = ((seg->vaddr & ~(UW_PAGE - 1)) + in->bias);
	hi = seg->vaddr + seg->filesz + in->bias;
	if (base < lo || base >= hi)
		return false;
	/* a writable segment sharing the page: the loader mapped its own
	 * (relocated) copy over it */
	end = mt_elf_seg_at(&in->file->info, base + UW_PAGE - 1 - in->bias);
	if (end && end != seg && (end->flags & PF_W))
		return false;
	off = base - lo + (seg->offset & ~(UW_PAGE - 1));
	img = elf_rawfile(in->file->elf, &size);
	if (!img || off >= size)
		return false;
	n = size - off < UW_PAGE ? size - off : UW_PAGE;
	memcpy(data, img + off, n);
	memset(data + n, 0, UW_PAGE - n);
	return true;
}

static struct uw_page *slot_of(struct maptap_unwinder *u, uint64_t base)
{
	return &u->pages[(base / UW_PAGE) % UW_SLOTS];
}

/* Read the page at P->base from the target, and the page above it into
 * its own slot in the same system call: a walk goes up the stack, and
 * the frames of one backtrace span two pages more often than one.  A
 * page above that cannot be read is left unread (the read stops at the
 * first unmapped byte, process_vm_readv(2)), not marked unreadable. */
static void page_read(struct maptap_unwinder *u, struct uw_page *p)
{
	struct uw_page *next = slot_of(u, p->base + UW_PAGE);
	struct iovec local[2], remote;
	bool ahead = p->base + UW_PAGE > p->base && next != p &&
		     !(next->gen == u->gen && next->base == p->base + UW_PAGE);
	ssize_t n;

	local[0].iov_base = p->data;
	local[0].iov_len = UW_PAGE;
	local[1].iov_base = next->data;
	local[1].iov_len = UW_PAGE;
	remote.iov_base = (void *)(uintptr_t)p->base;
	remote.iov_len = ahead ? 2 * UW_PAGE : UW_PAGE;
	u->stats.page_reads++;
	if (ahead)	/* its old contents are about to be overwritten */
		next->gen = 0;
	n = process_vm_readv(u->pid, local, ahead ? 2 : 1, &remote, 1, 0);
	p->ok = n >= (ssize_t)UW_PAGE;
	if (!p->ok)
		u->stats.read_fails++;
	if (ahead && n == (ssize_t)(2 * UW_PAGE)) {
		next->gen = u->gen;
		next->base = p->base + UW_PAGE;
		next->ok = true;
	}
}

static struct uw_page *page_get(struct maptap_unwinder *u, uint64_t base)
{
	struct uw_page *p = slot_of(u, base);

	if (p->gen == u->gen && p->base == base)
		return p;
	p->gen = u->gen;
	p->base = base;
	if (page_from_file(u, base, p->data)) {
		u->stats.file_pages++;
		p->ok = true;
		return p;
	}
	if (u->sample) {
		/* the live process is not the sampled one any more */
		p->ok = false;
		return p;
	}
	page_read(u, p);
	return p;
}

/* LEN bytes at ADDR (within one page) into BUF; 0 or -1. */
static int read_in_page(struct maptap_unwinder *u, uint64_t addr,
			void *buf, size_t len)
{
	uint64_t base = addr & ~(UW_PAGE - 1);
	struct uw_page *p = page_get(u, base);

	if (!p->ok)
		return -1;
	memcpy(buf, p->data + (addr - base), len);
	return 0;
}

int uw_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val,
		  int write, void *arg)
{
	struct maptap_unwinder *u = arg;
	uint64_t off = addr & (UW_PAGE - 1);
	size_t first = sizeof(*val);
	uint8_t buf[sizeof(*val)];

	(void)as;
	/* libunwind writes only to resume a target, which maptap never
	 * asks it to do. */
	if (write)
		return -UNW_EINVAL;
	u->stats.mem_words++;
	if (u->sample && addr >= u->stk_lo &&
	    addr - u->stk_lo + sizeof(*val) <= u->stk_len) {
		memcpy(val, u->stk + (addr - u->stk_lo), sizeof(*val));
		return 0;
	}
	if (off + sizeof(*val) > UW_PAGE)
		first = UW_PAGE - off;
	if (read_in_page(u, addr, buf, first) != 0)
		return -UNW_EINVAL;
	if (first < sizeof(*val) &&
	    read_in_page(u, addr + first, buf + first,
			 sizeof(*val) - first) != 0)
		return -UNW_EINVAL;
	memcpy(val, buf, sizeof(*val));
	return 0;
}

/* libunwind's x86_64 register numbers (libunwind-x86_64.h, the DWARF
 * order of the SysV psABI) to fields of struct user_regs_struct. */
static const size_t reg_offsets[] = {
	[UNW_X86_64_RAX] = offsetof(struct user_regs_struct, rax),
	[UNW_X86_64_RDX] = offsetof(struct user_regs_struct, rdx),
	[UNW_X86_64_RCX] = offsetof(struct user_regs_struct, rcx),
	[UNW_X86_64_RBX] = offsetof(struct user_regs_struct, rbx),
	[UNW_X86_64_RSI] = offsetof(struct user_regs_struct, rsi),
	[UNW_X86_64_RDI] = offsetof(struct user_regs_struct, rdi),
	[UNW_X86_64_RBP] = offsetof(struct user_regs_struct, rbp),
	[UNW_X86_64_RSP] = offsetof(struct user_regs_struct, rsp),
	[UNW_X86_64_R8] = offsetof(struct user_regs_struct, r8),
	[UNW_X86_64_R9] = offsetof(struct user_regs_struct, r9),
	[UNW_X86_64_R10] = offsetof(struct user_regs_struct, r10),
	[UNW_X86_64_R11] = offsetof(struct user_regs_struct, r11),
	[UNW_X86_64_R12] = offsetof(struct user_regs_struct, r12),
	[UNW_X86_64_R13] = offsetof(struct user_regs_struct, r13),
	[UNW_X86_64_R14] = offsetof(struct user_regs_struct, r14),
	[UNW_X86_64_R15] = offsetof(struct user_regs_struct, r15),
	[UNW_X86_64_RIP] = offsetof(struct user_regs_struct, rip),
};

int uw_access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val,
		  int write, void *arg)
{
	struct maptap_unwinder *u = arg;
	unsigned long long v;

	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	if (reg < 0 ||
	    (size_t)reg >= sizeof(reg_offsets) / sizeof(reg_offsets[0]))
		return -UNW_EBADREG;
	memcpy(&v, (const char *)u->cur + reg_offsets[reg], sizeof(v));
	*val = v;
	return 0;
}

void uw_regs_set(struct user_regs_struct *r, int reg, uint64_t v)
{
	unsigned long long w = v;

	if (reg < 0 ||
	    (size_t)reg >= sizeof(reg_offsets) / sizeof(reg_offsets[0]))
		return;
	memcpy((char *)r + reg_offsets[reg], &w, sizeof(w));
}

void uw_regs_of_cursor(struct maptap_unwinder *u, unw_cursor_t *c,
		       struct user_regs_struct *out)
{
	unw_word_t w;
	int i;

	*out = *u->cur;
	for (i = 0; i <= UNW_X86_64_RIP; i++)
		if (unw_get_reg(c, i, &w) == 0)
			uw_regs_set(out, i, w);
}

int uw_access_fpreg(unw_addr_space_t as, unw_regnum_t reg,
		    unw_fpreg_t *val, int write, void *arg)
{
	/* CFI of the SysV x86_64 ABI never needs vector registers to find a
	 * caller; reading them would cost a PTRACE_GETFPREGS per stop. */
	(void)as;
	(void)reg;
	(void)val;
	(void)write;
	(void)arg;
	return -UNW_EBADREG;
}
