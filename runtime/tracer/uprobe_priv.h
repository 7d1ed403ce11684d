/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uprobe_priv.h -- private: breakpoint tables (uprobe.c) and the
 * out-of-line execution area (xol.c).  maptap/uprobe.h says what they do.
 */
#ifndef MAPTAP_RUNTIME_UPROBE_PRIV_H
#define MAPTAP_RUNTIME_UPROBE_PRIV_H

#include "tracer_priv.h"

#include <maptap/uprobe.h>

#define MT_XOL_PAGE 4096u
#define MT_XOL_SLOT 64u		/* bytes per breakpoint's slot */
#define MT_XOL_FIRST 0u
#define MT_XOL_MAX 64		/* pages per address space */

struct mt_bp_id {
	int id;
	bool ret;
	bool ifunc;			/* at an IFUNC resolver: ID (and RET)
					 * go to the function it returns
					 * (maptap_uprobe_insert_ifunc()) */
};

/* One breakpoint in one address space. */
struct mt_bp {
	uint64_t addr;
	uint8_t insn[16];		/* the original instruction */
	uint8_t len;
	bool riprel;			/* needs a slot within +-2 GiB */
	bool has_ret;			/* a return probe or an IFUNC id
					 * among IDS: its returns are caught */
	bool site;			/* a return site of a probed call */
	bool bad;			/* cannot be stepped over: removed */
	uint64_t slot;			/* its XOL slot; 0 not built yet */
	struct mt_bp_id *ids;
	int nids;
};

/* A marker's semaphore this session incremented (sdt.c). */
struct mt_sema {
	uint64_t addr;
	unsigned added;			/* what to take off at the let-go */
};

/* The breakpoints of one address space (struct mt_mm.bps). */
struct mt_bps {
	struct mt_bp *v;		/* sorted by addr */
	size_t n, cap;
	uint64_t xol[MT_XOL_MAX];	/* XOL pages */
	unsigned xol_used[MT_XOL_MAX];	/* bytes used in each */
	int nxol;
	uint64_t sysaddr;		/* a syscall instruction (vdso); 0 */
	int memfd;			/* /proc/MEMPID/mem, or -1 */
	pid_t mempid;
	struct mt_sema *sema;		/* sorted by addr (sdt.c) */
	size_t nsema, semacap;
	bool let_go;			/* a thread of the mm was let go while
					 * others stay traced: text restored,
					 * no breakpoint placed again */
};

/* A pending return of a probed call in one thread (struct
 * mt_thread.ustack). */
struct mt_ret_frame {
	uint64_t sp;			/* where the return address is */
	uint64_t ret;			/* the return address */
	uint64_t func;			/* the probed entry address */
};

struct mt_ustack {
	struct mt_ret_frame *v;
	size_t n, cap;
};

/* Per session (struct maptap_session.up). */
struct mt_uprobes {
	maptap_uprobe_fn fn;
	void *arg;
	size_t cs;			/* capstone handle (csh) */
	uint64_t hits;
};

/* uprobe.c */
int mt_bps_write(struct mt_bps *b, pid_t pid, uint64_t addr,
		 const void *buf, size_t len);
int mt_bps_read(struct mt_bps *b, pid_t pid, uint64_t addr, void *buf,
		size_t len);

/* The table of MM, made on first use; NULL when out of memory. */
struct mt_bps *mt_bps_get(struct mt_mm *mm);

/* sdt.c: semaphores (maptap/sdt.h) */
/* Take off what the session added to B's semaphores in PID's memory. */
void mt_sema_restore(struct mt_bps *b, pid_t pid);
/* Forget the semaphores in [LO, HI); returns how many. */
size_t mt_sema_forget(struct mt_bps *b, uint64_t lo, uint64_t hi);
/* DST's semaphore table a copy of SRC's (a fork's child).  0 or
 * -ENOMEM (DST's table then empty). */
int mt_sema_copy(struct mt_bps *dst, const struct mt_bps *src);

/* xol.c */
/* Decode the instruction in BP->insn (at BP->addr): its length and
 * whether it is rip-relative.  Returns 0, -EINVAL, -ENOTSUP. */
int mt_xol_decode(struct mt_uprobes *u, struct mt_bp *bp);
/* Give BP a slot in B's XOL area, mapping a page with thread T (in a
 * ptrace stop) when none fits; *SIG receives a signal that arrived
 * meanwhile (to deliver on resume).  Returns 0 or -errno. */
int mt_xol_slot(struct maptap_session *s, struct mt_thread *t,
		struct mt_bps *b, struct mt_bp *bp, int *sig);

#endif
