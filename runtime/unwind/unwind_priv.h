/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* unwind_priv.h -- the unwinder's objects, shared by unwind*.c.  Private
 * to libmaptap.
 *
 * One maptap_unwind() call is one "stop": it reads the registers once,
 * starts a new page-cache generation (pages of an older generation are
 * stale, since the target ran in between) and flushes libunwind's own
 * caches of the address space, which are keyed by pc only and so would
 * mix up two processes that have different code at one address.
 */
#ifndef MAPTAP_UNWIND_PRIV_H
#define MAPTAP_UNWIND_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include <libunwind.h>

#include <maptap/unwind.h>

#include "../modules/module_priv.h"

/* Cache granule: one page, the unit the kernel maps (x86_64). */
#define UW_PAGE 4096ULL
/* Direct-mapped slots.  A depth-20 walk touches 1-3 stack pages plus
 * a few pages of .eh_frame_hdr/.eh_frame per module. */
#define UW_SLOTS 64

struct uw_page {
	uint64_t gen;		/* valid when == the unwinder's gen */
	uint64_t base;		/* page address in the target */
	bool ok;		/* the read worked (else: unreadable page) */
	uint8_t data[UW_PAGE];
};

/* Where a file's .eh_frame_hdr search table is, in ELF vaddrs (bytes):
 * add an instance's bias to get target addresses.  Keyed by the file
 * object and its identity, so a freed file whose address is reused by
 * another never matches. */
struct uw_table {
	const struct mt_file *file;
	uint64_t st_dev, st_ino, size, mtime_ns;
	bool has;		/* a usable PT_GNU_EH_FRAME */
	uint64_t hdr_vaddr;	/* start of .eh_frame_hdr */
	uint64_t table_vaddr;	/* its binary search table */
	uint64_t fde_count;	/* entries (8 bytes each) */
	/* .debug_frame of the file or of its separate debuginfo, from the
	 * symbol index's Dwfl (borrowed), looked for on the first pc that
	 * .eh_frame does not cover (unwind_dwarf.c) */
	bool dcfi_tried;
	struct Dwarf_CFI_s *dcfi;
	uint64_t dcfi_bias;
	/* .eh_frame as libdw reads it from the file's image (owned; the
	 * module layer's files live as long as its tracker) */
	bool ecfi_tried;
	struct Dwarf_CFI_s *ecfi;
};

struct maptap_unwinder {
	struct maptap_modules *m;
	unw_addr_space_t as;
	/* the current stop */
	pid_t pid, tid;
	struct user_regs_struct regs;
	/* the registers libunwind sees: REGS, or a frame found by frame
	 * pointer from which libunwind starts over (unwind.c) */
	const struct user_regs_struct *cur;
	struct user_regs_struct fp_regs;
	uint64_t gen;
	/* A sample's walk (maptap_unwind_sample()): the stack is STK_LEN
	 * bytes copied from STK_LO when the sample was taken, and nothing
	 * else of the target's writable memory may be read, since the
	 * target has run on since. */
	bool sample;
	const uint8_t *stk;
	uint64_t stk_lo, stk_len;
	bool missed;		/* find_proc_info found no CFI */
	struct uw_page *pages;	/* UW_SLOTS */
	/* located tables, most recent last */
	struct uw_table *tables;
	size_t ntables, tables_cap;
	struct maptap_unwind_stats stats;
};

/* ---- unwind_mem.c: the stop's registers and memory ---- */

/* Start a stop of thread TID of PID: PTRACE_GETREGS and a new cache
 * generation.  Returns 0 or -errno of ptrace(2) (-ESRCH: not a stopped
 * tracee). */
int uw_stop_begin(struct maptap_unwinder *u, pid_t pid, pid_t tid);

/* Start a sample's walk: REGS, the stack copy, a new cache
 * generation. */
void uw_sample_begin(struct maptap_unwinder *u, pid_t pid, pid_t tid,
		     const struct user_regs_struct *regs, const void *stack,
		     size_t stack_len);

/* libunwind accessors (unw_accessors_t in libunwind-common.h). */
int uw_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val,
		  int write, void *arg);
int uw_access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val,
		  int write, void *arg);
int uw_access_fpreg(unw_addr_space_t as, unw_regnum_t reg,
		    unw_fpreg_t *val, int write, void *arg);

/* Set register REG (libunwind's x86_64 number, the psABI's DWARF number
 * for 0-16) of R to V; other numbers are ignored. */
void uw_regs_set(struct user_regs_struct *r, int reg, uint64_t v);

/* The registers of cursor C's frame into OUT: what libunwind gives for
 * it (at least %rip, %rsp and the callee-saved registers it recovered),
 * the registers libunwind was started from for the rest. */
void uw_regs_of_cursor(struct maptap_unwinder *u, unw_cursor_t *c,
		       struct user_regs_struct *out);

/* ---- unwind_tables.c: unwind tables through the module layer ---- */

int uw_find_proc_info(unw_addr_space_t as, unw_word_t ip,
		      unw_proc_info_t *pi, int need_unwind_info, void *arg);
void uw_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi,
			void *arg);
int uw_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dil_addr,
			      void *arg);

/* The located table of file F, located now if never seen; NULL on
 * ENOMEM. */
struct uw_table *uw_table_of(struct maptap_unwinder *u,
			     const struct mt_file *f);

void uw_tables_free(struct maptap_unwinder *u);

/* ---- unwind_dwarf.c: a step by CFI with libdw ---- */

/* Step frame F (cursor C) to its caller by the .eh_frame CFI of F's
 * module, evaluated here, and restart C there; as uw_debug_frame_step().
 * This is the first try for every frame: libunwind's own unw_step()
 * blocks and restores all signals around each of its locks, five times
 * a step (see docs/unwind.md). */
int uw_eh_frame_step(struct maptap_unwinder *u, unw_cursor_t *c,
		     const struct maptap_frame *f);

/* Free the CFI T owns. */
void uw_table_cfi_free(struct uw_table *t);

/* No .eh_frame covers frame F (cursor C): step to its caller by the
 * .debug_frame CFI of F's module, and restart C there.  Returns 1 when
 * stepped (U->cur then points at the caller's registers), 0 when the
 * CFI marks F as the outermost frame (return address undefined), -1
 * when there is no such CFI or it cannot be evaluated. */
int uw_debug_frame_step(struct maptap_unwinder *u, unw_cursor_t *c,
			const struct maptap_frame *f);

#endif
