/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uprobe.c -- breakpoint tables, hits, return probes, and the fork, exec
 * and detach rules of maptap/uprobe.h.  The out-of-line area is xol.c's.
 */
#include "uprobe_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <unistd.h>

#define INT3 0xcc

void mt_ustack_free(struct mt_ustack *u)
{
	if (!u)
		return;
	free(u->v);
	free(u);
}

void mt_bps_free(struct mt_bps *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->n; i++)
		free(b->v[i].ids);
	free(b->v);
	free(b->sema);
	if (b->memfd >= 0)
		close(b->memfd);
	free(b);
}

/* ---- memory of the target ---- */

static int mem_open(struct mt_bps *b, pid_t pid)
{
	char path[64];

	if (b->memfd >= 0 && b->mempid == pid)
		return 0;
	if (b->memfd >= 0)
		close(b->memfd);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	b->memfd = open(path, O_RDWR | O_CLOEXEC);
	b->mempid = pid;
	return b->memfd < 0 ? -errno : 0;
}

/* /proc/PID/mem writes private read-only mappings too (FOLL_FORCE, as
 * PTRACE_POKETEXT), never the file. */
int mt_bps_write(struct mt_bps *b, pid_t pid, uint64_t addr,
		 const void *buf, size_t len)
{
	int rc = mem_open(b, pid);

	if (rc)
		return rc;
	if (pwrite(b->memfd, buf, len, (off_t)addr) != (ssize_t)len)
		return -EFAULT;
	return 0;
}

/* Returns the number of bytes read (short at an unmapped page), or
 * -errno. */
int mt_bps_read(struct mt_bps *b, pid_t pid, uint64_t addr, void *buf,
		size_t len)
{
	int rc = mem_open(b, pid);
	ssize_t n;

	if (rc)
		return rc;
	n = pread(b->memfd, buf, len, (off_t)addr);
	return n <= 0 ? -EFAULT : (int)n;
}

/* ---- the table ---- */

/* Index of ADDR in B, or -1; *POS: where it would go. */
static long bp_find(const struct mt_bps *b, uint64_t addr, size_t *pos)
{
	size_t lo = 0, hi = b ? b->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (pos)
		*pos = lo;
	return b && lo < b->n && b->v[lo].addr == addr ? (long)lo : -1;
}

struct mt_bps *mt_bps_get(struct mt_mm *mm)
{
	if (!mm->bps) {
		mm->bps = calloc(1, sizeof(*mm->bps));
		if (mm->bps)
			mm->bps->memfd = -1;
	}
	return mm->bps;
}

static int add_id(struct mt_bp *bp, const struct mt_bp_id *id)
{
	struct mt_bp_id *v;
	int i;

	for (i = 0; i < bp->nids; i++)
		if (bp->ids[i].id == id->id && bp->ids[i].ret == id->ret &&
		    bp->ids[i].ifunc == id->ifunc)
			return 0;
	v = realloc(bp->ids, sizeof(*v) * (size_t)(bp->nids + 1));
	if (!v)
		return -ENOMEM;
	v[bp->nids] = *id;
	bp->ids = v;
	bp->nids++;
	bp->has_ret |= id->ret || id->ifunc;
	return 0;
}

/* Read and decode the instruction at BP->addr of PID into BP. */
static int load_insn(struct maptap_session *s, struct mt_bps *b, pid_t pid,
		     struct mt_bp *bp)
{
	int n;

	memset(bp->insn, 0, sizeof(bp->insn));
	n = mt_bps_read(b, pid, bp->addr, bp->insn, 15);
	if (n < 0)
		return n;
	if (bp->insn[0] == INT3)
		return -EINVAL;
	return mt_xol_decode(s->up, bp);
}

/* maptap_uprobe_insert() of ID at ADDR of P. */
static int insert_bp(struct maptap_session *s, struct mt_proc *p,
		     uint64_t addr, const struct mt_bp_id *id)
{
	pid_t pid = p->pid;
	uint8_t cc = INT3, cur;
	struct mt_bps *b;
	struct mt_bp nb, *bp;
	size_t pos;
	long i;
	int rc;

	if (s->detaching)
		return 0;
	b = mt_bps_get(p->mm);
	if (!b)
		return -ENOMEM;
	if (b->let_go)
		return -EPERM;	/* mt_uprobe_let_go() */
	i = bp_find(b, addr, &pos);
	if (i >= 0) {
		bp = &b->v[i];
		if (bp->bad)
			return -ENOTSUP;
		rc = mt_bps_read(b, pid, addr, &cur, 1);
		if (rc < 0)
			return rc;
		if (cur != INT3) {
			/* Mapped again over the text (ld.so maps a
			 * library's segments with MAP_FIXED over its first
			 * mapping): the bytes are the file's again. */
			rc = load_insn(s, b, pid, bp);
			if (rc)
				return rc;
			bp->slot = 0;
			rc = mt_bps_write(b, pid, addr, &cc, 1);
			if (rc)
				return rc;
		}
		return add_id(bp, id);
	}
	memset(&nb, 0, sizeof(nb));
	nb.addr = addr;
	rc = load_insn(s, b, pid, &nb);
	if (rc)
		return rc;
	rc = add_id(&nb, id);
	if (rc)
		return rc;
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;
		struct mt_bp *v = realloc(b->v, cap * sizeof(*v));

		if (!v) {
			free(nb.ids);
			return -ENOMEM;
		}
		b->v = v;
		b->cap = cap;
	}
	rc = mt_bps_write(b, pid, addr, &cc, 1);
	if (rc) {
		free(nb.ids);
		return rc;
	}
	memmove(&b->v[pos + 1], &b->v[pos], (b->n - pos) * sizeof(*b->v));
	b->v[pos] = nb;
	b->n++;
	return 0;
}

int maptap_uprobe_insert(struct maptap_session *s, pid_t pid, uint64_t addr,
			 int id, bool is_return)
{
	struct mt_proc *p = mt_proc_find(s, pid);
	struct mt_bp_id bid = { id, is_return, false };

	if (!p)
		return -ESRCH;
	if (!s->up)
		return -EIO;
	return insert_bp(s, p, addr, &bid);
}

/* An IFUNC's choice is in its text segment and is not the resolver
 * itself. */
static bool ifunc_choice(const struct maptap_uprobe_ifunc *f, uint64_t bias,
			 uint64_t v)
{
	return v >= bias + f->text_lo && v < bias + f->text_hi &&
	       v != bias + f->resolver;
}

int maptap_uprobe_insert_ifunc(struct maptap_session *s, pid_t pid,
			       const struct maptap_uprobe_ifunc *f,
			       uint64_t bias, int id, bool is_return)
{
	struct mt_proc *p = mt_proc_find(s, pid);
	struct mt_bp_id at_resolver = { id, is_return, true };
	struct mt_bp_id at_choice = { id, is_return, false };
	size_t k;
	int rc;

	if (!p)
		return -ESRCH;
	if (!s->up)
		return -EIO;
	rc = insert_bp(s, p, bias + f->resolver, &at_resolver);
	/* Already chosen: the GOT word holds it once relocated (before,
	 * it holds the file's bytes; while ld.so maps the library, what
	 * the first mapping shows there, never an address in the text
	 * at this load bias but by a freak). */
	for (k = 0; k < f->nslots && k < MAPTAP_UPROBE_IFUNC_SLOTS; k++) {
		uint64_t v;

		if (!p->mm->bps ||
		    mt_bps_read(p->mm->bps, pid, bias + f->slot[k], &v,
				sizeof(v)) != (int)sizeof(v) ||
		    v == f->init[k] || !ifunc_choice(f, bias, v))
			continue;
		insert_bp(s, p, v, &at_choice);
		break;
	}
	return rc;
}

int maptap_uprobe_forget(struct maptap_session *s, pid_t pid, uint64_t lo,
			 uint64_t hi)
{
	struct mt_proc *p = mt_proc_find(s, pid);
	struct mt_bps *b;
	size_t from, to;

	if (!p)
		return -ESRCH;
	b = p->mm->bps;
	if (!b)
		return 0;
	bp_find(b, lo, &from);
	bp_find(b, hi, &to);
	for (size_t k = from; k < to; k++)
		free(b->v[k].ids);
	memmove(&b->v[from], &b->v[to], (b->n - to) * sizeof(*b->v));
	b->n -= to - from;
	return (int)(to - from + mt_sema_forget(b, lo, hi));
}

uint64_t maptap_uprobe_hits(const struct maptap_session *s)
{
	return s->up ? s->up->hits : 0;
}

/* ---- hits ---- */

static int set_rip(pid_t tid, uint64_t rip)
{
	return ptrace(PTRACE_POKEUSER, tid,
		      (void *)offsetof(struct user_regs_struct, rip),
		      (void *)rip) ? -errno : 0;
}

static void call_handlers(struct maptap_session *s, struct mt_thread *t,
			  const struct mt_bp *bp, struct maptap_uprobe_hit *h)
{
	int i, rc;

	h->pid = t->proc->pid;
	h->tid = t->tid;
	h->time_ns = mt_now_ns();
	for (i = 0; bp && i < bp->nids && !s->quiet; i++) {
		if (bp->ids[i].ret != h->is_return || bp->ids[i].ifunc)
			continue;
		h->id = bp->ids[i].id;
		rc = s->up->fn(h, s->up->arg);
		if (rc)
			mt_callback_stop(s, rc, "uprobe handler");
	}
}

/* Drop U's frames below SP (stale: left by longjmp or an exception). */
static void drop_stale(struct mt_ustack *u, uint64_t sp)
{
	while (u && u->n && u->v[u->n - 1].sp < sp)
		u->n--;
}

static int push_frame(struct mt_thread *t, const struct mt_ret_frame *f)
{
	struct mt_ustack *u = t->ustack;

	if (!u) {
		u = t->ustack = calloc(1, sizeof(*u));
		if (!u)
			return -ENOMEM;
	}
	if (u->n == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 16;
		struct mt_ret_frame *v = realloc(u->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		u->v = v;
		u->cap = cap;
	}
	u->v[u->n++] = *f;
	return 0;
}

/* A breakpoint at return site RET of process P (no ids of its own):
 * where a return probe's function returns to.  Returns 0 or -errno. */
static int insert_site(struct maptap_session *s, struct mt_proc *p,
		       struct mt_bps *b, uint64_t ret)
{
	uint8_t cc = INT3;
	struct mt_bp nb;
	size_t pos;
	long i = bp_find(b, ret, &pos);
	int rc;

	if (i >= 0) {
		b->v[i].site = true;
		return b->v[i].bad ? -ENOTSUP : 0;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;
		struct mt_bp *v = realloc(b->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		b->v = v;
		b->cap = cap;
	}
	memset(&nb, 0, sizeof(nb));
	nb.addr = ret;
	nb.site = true;
	rc = load_insn(s, b, p->pid, &nb);
	if (!rc)
		rc = mt_bps_write(b, p->pid, ret, &cc, 1);
	if (rc)
		return rc;
	memmove(&b->v[pos + 1], &b->v[pos], (b->n - pos) * sizeof(*b->v));
	b->v[pos] = nb;
	b->n++;
	return 0;
}

/* The entry of a function with return probes: remember where it
 * returns to (the word at rsp) and break there.  The stack is left as
 * it is, so unwinders (C++ exceptions, backtraces) see the real return
 * addresses. */
static void note_return(struct maptap_session *s, struct mt_thread *t,
			struct mt_bps *b, const struct user_regs_struct *r,
			uint64_t func)
{
	struct mt_ret_frame f;
	long word;
	int rc;

	drop_stale(t->ustack, r->rsp + 1);
	errno = 0;
	word = ptrace(PTRACE_PEEKDATA, t->tid, (void *)r->rsp, NULL);
	if (errno)
		return;
	/* No return address at rsp: a function entered by a jump, as the
	 * kernel enters _start (rsp points at argc).  Below the lowest
	 * address mmap(2) gives (vm.mmap_min_addr's default), no code. */
	if ((uint64_t)word < 0x10000)
		return;
	f.sp = r->rsp;
	f.ret = (uint64_t)word;
	f.func = func;
	rc = insert_site(s, t->proc, b, f.ret);
	if (rc) {
		mt_diag(s, "pid %d: no return probe for the call of 0x%llx returning to 0x%llx: %s",
			(int)t->proc->pid, (unsigned long long)func,
			(unsigned long long)f.ret, strerror(-rc));
		return;
	}
	push_frame(t, &f);
}

/* The probes an IFUNC resolver's return hands on to its choice. */
struct ifunc_pending {
	uint64_t choice;
	struct mt_bp_id *ids;		/* malloc'd */
	int n;
};

/* Into PEND: the IFUNC ids of resolver BP, for its choice (rax, as
 * the SysV ABI returns a pointer). */
static void ifunc_returned(struct maptap_session *s, struct mt_thread *t,
			   const struct mt_bp *bp,
			   const struct user_regs_struct *r,
			   struct ifunc_pending *pend)
{
	int i;

	for (i = 0; i < bp->nids; i++) {
		struct mt_bp_id *v;

		if (!bp->ids[i].ifunc)
			continue;
		v = realloc(pend->ids, sizeof(*v) * (size_t)(pend->n + 1));
		if (!v) {
			mt_diag(s, "pid %d: IFUNC at 0x%llx: out of memory",
				(int)t->proc->pid,
				(unsigned long long)bp->addr);
			return;
		}
		v[pend->n] = bp->ids[i];
		v[pend->n++].ifunc = false;
		pend->ids = v;
	}
	pend->choice = r->rax;
}

/* Probe the IFUNC choice PEND names (after the hit: it moves the
 * table). */
static void ifunc_place(struct maptap_session *s, struct mt_thread *t,
			struct ifunc_pending *pend)
{
	int i, rc;

	for (i = 0; i < pend->n; i++) {
		rc = insert_bp(s, t->proc, pend->choice, &pend->ids[i]);
		if (rc) {
			mt_diag(s, "pid %d: no probe at 0x%llx, the function an IFUNC resolver chose: %s",
				(int)t->proc->pid,
				(unsigned long long)pend->choice,
				strerror(-rc));
			break;
		}
	}
	free(pend->ids);
}

/* A hit of return site AT by T: the return of its top frame when that
 * frame's return address was at rsp - 8 (ret popped it).  Fires its
 * return probes; an IFUNC resolver's return goes into PEND. */
static void site_hit(struct maptap_session *s, struct mt_thread *t,
		     struct mt_bps *b, struct user_regs_struct *r, uint64_t at,
		     struct ifunc_pending *pend)
{
	struct maptap_uprobe_hit h;
	struct mt_ustack *u = t->ustack;
	struct mt_ret_frame f;
	long i;
	int k;

	drop_stale(u, r->rsp - 8);
	if (!u || !u->n || u->v[u->n - 1].sp != r->rsp - 8 ||
	    u->v[u->n - 1].ret != at)
		return;
	f = u->v[--u->n];
	i = bp_find(b, f.func, NULL);
	if (i < 0)
		return;
	for (k = 0; k < b->v[i].nids; k++)
		if (b->v[i].ids[k].ret && !b->v[i].ids[k].ifunc)
			break;
	if (k < b->v[i].nids)
		s->up->hits++;
	memset(&h, 0, sizeof(h));
	h.is_return = true;
	h.addr = f.func;
	h.ret_addr = f.ret;
	h.regs = r;
	call_handlers(s, t, &b->v[i], &h);
	ifunc_returned(s, t, &b->v[i], r, pend);
}

static void bp_hit(struct maptap_session *s, struct mt_thread *t,
		   struct mt_bps *b, struct mt_bp *bp,
		   struct user_regs_struct *r)
{
	struct maptap_uprobe_hit h;
	struct ifunc_pending pend = { 0, NULL, 0 };
	uint64_t at = bp->addr, slot;
	bool site = bp->site, entry = false, ret = bp->has_ret;
	int i, sig = 0;

	for (i = 0; i < bp->nids; i++)
		entry |= !bp->ids[i].ret && !bp->ids[i].ifunc;

	r->rip = at;
	set_rip(t->tid, at);
	if (!bp->slot && mt_xol_slot(s, t, b, bp, &sig) != 0) {
		/* Cannot be stepped over: put the original back for good
		 * (this hit is still reported). */
		mt_diag(s, "pid %d: the breakpoint at 0x%llx cannot be stepped over; removed",
			(int)t->proc->pid, (unsigned long long)at);
		mt_bps_write(b, t->proc->pid, at, bp->insn, 1);
		bp->bad = true;
	}
	slot = bp->bad ? 0 : bp->slot;
	/* A return to here comes before a new call made from here. */
	if (site)
		site_hit(s, t, b, r, at, &pend);
	if (entry) {
		s->up->hits++;
		memset(&h, 0, sizeof(h));
		h.addr = at;
		h.regs = r;
		call_handlers(s, t, bp, &h);
	}
	/* Last: it may add a breakpoint, which moves the table. */
	if (ret)
		note_return(s, t, b, r, at);
	if (pend.n)
		ifunc_place(s, t, &pend);
	if (slot)
		set_rip(t->tid, slot);
	mt_resume(s, t, sig);
}

/* A SIGTRAP from an int3 has si_code SI_KERNEL (arch/x86, do_int3);
 * kill(2), tgkill(2) and raise(3) give SI_USER or SI_TKILL. */
static bool int3_trap(struct mt_thread *t, struct user_regs_struct *r)
{
	siginfo_t si;

	if (ptrace(PTRACE_GETSIGINFO, t->tid, 0L, &si) != 0 ||
	    si.si_code != SI_KERNEL)
		return false;
	return ptrace(PTRACE_GETREGS, t->tid, 0L, r) == 0;
}

bool mt_uprobe_trap(struct maptap_session *s, struct mt_thread *t)
{
	struct mt_bps *b = t->proc->mm->bps;
	struct user_regs_struct r;
	long i;

	if (!b || !s->up || !int3_trap(t, &r))
		return false;
	i = bp_find(b, r.rip - 1, NULL);
	if (i < 0)
		return false;
	bp_hit(s, t, b, &b->v[i], &r);
	return true;
}

bool mt_uprobe_trap_detach(struct maptap_session *s, struct mt_thread *t)
{
	struct mt_bps *b = t->proc->mm->bps;
	struct user_regs_struct r;

	if (!b || !s->up || !int3_trap(t, &r))
		return false;
	if (bp_find(b, r.rip - 1, NULL) < 0)
		return false;
	set_rip(t->tid, r.rip - 1);	/* the original is back */
	return true;
}

/* ---- let go, fork, exec ---- */

static void restore_text(struct mt_bps *b, pid_t pid)
{
	uint8_t cur;
	size_t i;

	for (i = 0; i < b->n; i++) {
		struct mt_bp *bp = &b->v[i];

		if (bp->bad || mt_bps_read(b, pid, bp->addr, &cur, 1) != 1 ||
		    cur != INT3)
			continue;
		mt_bps_write(b, pid, bp->addr, bp->insn, 1);
		bp->bad = true;	/* stays known for a trap in flight */
	}
	mt_sema_restore(b, pid);
}

void mt_uprobe_restore_all(struct maptap_session *s)
{
	struct mt_proc *p;

	for (p = s->procs; p; p = p->next)
		if (p->mm->bps)
			restore_text(p->mm->bps, p->pid);
}

/* A thread let go must never meet an int3 of ours: untraced, its
 * SIGTRAP kills the process.  Detaching (s->detaching) restored every
 * byte already.  The last thread of an mm takes the text back with it;
 * one let go while others in the mm stay traced (another tracer
 * attaching to it, PTRACE_TRACEME by one thread, a CLONE_VM child) takes
 * every breakpoint of the mm away for the rest of the run: the probes
 * of a process are worth less than the process. */
void mt_uprobe_let_go(struct maptap_session *s, struct mt_thread *t)
{
	struct mt_proc *p = t->proc;
	struct mt_bps *b = p->mm->bps;
	size_t i, live = 0;

	if (t->ustack)
		t->ustack->n = 0;
	if (!b || s->detaching)
		return;
	if (p->nthreads == 1 && p->mm->refs == 1) {
		restore_text(b, p->pid);
		return;
	}
	if (b->let_go)
		return;
	b->let_go = true;
	for (i = 0; i < b->n; i++)
		live += !b->v[i].bad;
	if (live)
		mt_diag(s, "pid %d: thread %d let go while its address space stays traced: its %zu breakpoint probe sites removed (a hit untraced would kill it)",
			(int)p->pid, (int)t->tid, live);
	restore_text(b, p->pid);
}

/* Whether stopped thread T may have the SIGTRAP of an int3 of ours
 * queued: it hit one just as a PTRACE_INTERRUPT or a group stop came,
 * and get_signal() (kernel/signal.c) reports the job-control trap
 * before it takes any signal.  Let go now, the thread would take that
 * SIGTRAP untraced and die (uprobes.py, "threads detach" in CI).  False
 * when it cannot be known (the read failed): nothing better is left. */
bool mt_uprobe_trap_queued(struct maptap_session *s, struct mt_thread *t)
{
	uint64_t pending;

	if (!t->proc->mm->bps || !s->up ||
	    mt_thread_sigpending(t->tid, &pending) != 0)
		return false;
	return pending & (1ull << (SIGTRAP - 1));
}

void mt_uprobe_fork(struct maptap_session *s, struct mt_thread *parent,
		    struct mt_proc *child, struct mt_thread *ct)
{
	const struct mt_bps *pb = parent->proc->mm->bps;
	struct mt_bps *cb;
	size_t i;

	(void)s;
	if (!pb)
		return;
	if (ct && parent->ustack && parent->ustack->n && !ct->ustack) {
		for (i = 0; i < parent->ustack->n; i++)
			if (push_frame(ct, &parent->ustack->v[i]))
				break;
	}
	if (child->mm == parent->proc->mm || child->mm->bps)
		return;
	cb = calloc(1, sizeof(*cb));
	if (!cb)
		return;
	*cb = *pb;
	cb->memfd = -1;
	cb->sema = NULL;
	cb->nsema = cb->semacap = 0;
	cb->v = calloc(pb->cap ? pb->cap : 1, sizeof(*cb->v));
	if (!cb->v) {
		free(cb);
		return;
	}
	mt_sema_copy(cb, pb);
	for (i = 0; i < pb->n; i++) {
		cb->v[i] = pb->v[i];
		cb->v[i].ids = malloc(sizeof(*cb->v[i].ids) *
				      (size_t)(pb->v[i].nids ? pb->v[i].nids : 1));
		if (!cb->v[i].ids) {
			cb->n = i;
			break;
		}
		memcpy(cb->v[i].ids, pb->v[i].ids,
		       sizeof(*cb->v[i].ids) * (size_t)pb->v[i].nids);
	}
	child->mm->bps = cb;
}

void mt_uprobe_exec(struct maptap_session *s, struct mt_thread *t)
{
	(void)s;
	mt_bps_free(t->proc->mm->bps);
	t->proc->mm->bps = NULL;
	if (t->ustack)
		t->ustack->n = 0;
}
