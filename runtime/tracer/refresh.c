/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* refresh.c -- bring an address-space model up to date after a call, an
 * exec or an attach, and hand the differences to the session as events.
 *
 * Only the range a call touched is re-read (DESIGN.md: a full read at
 * 60,000 VMAs costs thousands of times more than one PROCMAP_QUERY).
 */
#include "tracer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* The top of the address space, page aligned: covers [vsyscall]. */
#define MT_TOP (UINT64_MAX & ~4095ULL)
#define PAGE_DOWN(a) ((a) & ~4095ULL)
#define PAGE_UP(a) (((a) + 4095ULL) & ~4095ULL)

static int emit_cb(const struct maptap_event *ev, void *arg)
{
	return mt_emit(arg, (struct maptap_event *)ev);
}

static int ensure_reader(struct maptap_session *s, struct mt_proc *p)
{
	int err;

	if (p->mm->reader)
		return 0;
	err = maptap_maps_open(p->pid, s->opts.maps_source, &p->mm->reader);
	if (err == -ENOENT)
		err = -ESRCH;
	return err;
}

static void hint_init(struct maptap_mm_hint *h, struct mt_proc *p, pid_t tid,
		      const struct maptap_syscall *sc)
{
	memset(h, 0, sizeof(*h));
	h->pid = p->pid;
	h->tid = tid;
	h->time_ns = mt_now_ns();
	h->syscall_nr = sc ? sc->nr : -1;
	h->syscall = sc ? sc->name : NULL;
}

static int refresh_full(struct maptap_session *s, struct mt_proc *p,
			pid_t tid, bool snapshot)
{
	struct maptap_mm_hint h;
	int err = ensure_reader(s, p);

	if (!err && s->fault)
		err = s->fault(s->fault_arg, MT_FAULT_FULL, NULL);
	if (err)
		return err;
	maptap_vma_buf_clear(&s->buf);
	err = maptap_maps_read_all(p->mm->reader, &s->buf);
	if (err)
		return err;
	s->stats.full_reads++;
	hint_init(&h, p, tid, NULL);
	h.snapshot = snapshot;
	return maptap_mm_update(p->mm->model, 0, MT_TOP, s->buf.v, s->buf.n,
				&h, emit_cb, s);
}

/* The range a brk call touched: between the old break and the new one.
 * The old break is the last one seen; before any, the end of [heap], or
 * the start of the heap area from /proc/PID/stat when there is no heap
 * yet.  Returns 0 when nothing can have changed. */
static int brk_range(struct mt_proc *p, int64_t ret, uint64_t *lo,
		     uint64_t *hi)
{
	uint64_t old = p->mm->brk, now = (uint64_t)ret;
	const struct maptap_vma *heap = NULL;

	if (ret <= 0)
		return 0;
	p->mm->brk = now;
	if (!old) {
		long start = 0;

		if (mt_proc_stat_field(p->pid, 47, &start) != 0 || start <= 0)
			return 0;
		old = (uint64_t)start;
		heap = maptap_mm_find(p->mm->model, old);
		if (heap)
			old = heap->end;
	}
	if (PAGE_UP(old) == PAGE_UP(now))
		return 0;
	*lo = PAGE_DOWN(old < now ? old : now);
	*hi = PAGE_UP(old < now ? now : old);
	return 1;
}

/* Merge two address-ordered reads into one array without duplicates (one
 * VMA can intersect both ranges).  Returns the count or -ENOMEM. */
static ssize_t merge_reads(const struct maptap_vma_buf *a,
			   const struct maptap_vma_buf *b,
			   struct maptap_vma **out)
{
	size_t i = 0, j = 0, n = 0;
	struct maptap_vma *v = malloc((a->n + b->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	while (i < a->n || j < b->n) {
		const struct maptap_vma *x;

		if (j >= b->n || (i < a->n && a->v[i].start <= b->v[j].start))
			x = &a->v[i++];
		else
			x = &b->v[j++];
		if (n && v[n - 1].start == x->start)
			continue;
		v[n++] = *x;
	}
	*out = v;
	return (ssize_t)n;
}

/* Stack growth happens in page faults, not system calls: compare the
 * kernel's VMA at ADDR (one PROCMAP_QUERY, or a text read) with the model
 * and report a change of [stack] with a null syscall, naming TID. */
static void stack_at(struct maptap_session *s, struct mt_proc *p, pid_t tid,
		     uint64_t addr)
{
	const struct maptap_vma *m, *k;
	struct maptap_mm_hint h;
	uint64_t lo, hi;

	maptap_vma_buf_clear(&s->buf2);
	if (maptap_maps_read_range(p->mm->reader, addr, addr + 1, &s->buf2) ||
	    s->buf2.n == 0)
		return;
	k = &s->buf2.v[0];
	/* Only [stack] grows in page faults.  A thread's stack is an
	 * mmap'd VMA, which the kernel may merge with a sibling's mapping
	 * next to it: comparing that here would report a sibling's call
	 * still in progress as a change without a call. */
	if (k->kind != MAPTAP_VMA_STACK)
		return;
	m = maptap_mm_find(p->mm->model, addr);
	if (m && m->start == k->start && m->end == k->end)
		return;
	lo = m && m->start < k->start ? m->start : k->start;
	hi = m && m->end > k->end ? m->end : k->end;
	s->stats.refreshes++;
	hint_init(&h, p, tid, NULL);
	h.in_place = true;
	maptap_mm_update(p->mm->model, lo, hi, s->buf2.v, s->buf2.n, &h,
			 emit_cb, s);
}

/* After a call: the VMA under the thread's stack pointer at its entry,
 * when a read of it is one PROCMAP_QUERY (a text read per call would
 * cost a full read), and only when the model has no VMA there: the
 * stack grew to reach it.  A stack pointer inside a VMA the model has
 * (its [stack], or a thread's mmap'd stack) needs no read (issue 16: one
 * PROCMAP_QUERY per call at most); growth the thread made and came back
 * from is seen at a later call whose stack pointer lies below the
 * model's [stack], a fork, an exec or the process's exit
 * (mt_check_main_stack()). */
static void check_stack(struct maptap_session *s, struct mt_thread *t)
{
	if (!t->sp ||
	    maptap_maps_source_of(t->proc->mm->reader) != MAPTAP_MAPS_QUERY ||
	    maptap_mm_find(t->proc->mm->model, t->sp))
		return;
	stack_at(s, t->proc, t->proc->pid, t->sp);
}

void mt_check_main_stack(struct maptap_session *s, struct mt_proc *p,
			 pid_t tid)
{
	long at = 0;

	if (ensure_reader(s, p))
		return;
	/* mm->start_stack (field 28 of /proc/PID/stat, shown to a tracer)
	 * lies in the main stack's VMA for the life of the image. */
	if (!p->mm->stack_addr &&
	    mt_proc_stat_field(p->pid, 28, &at) == 0 && at > 0)
		p->mm->stack_addr = (uint64_t)at;
	if (p->mm->stack_addr)
		stack_at(s, p, tid, p->mm->stack_addr);
}

static int count_vma(const struct maptap_vma *v, void *arg)
{
	(void)v;
	++*(size_t *)arg;
	return 0;
}

/* The range pending call O touches, known from its arguments alone and
 * re-read at its exit whatever it returns: as maptap_syscall_range()
 * with the return value it would have where the arguments fix it
 * (MAP_FIXED); for an mremap, its old range.  0 when only the return
 * value will say (a placed mmap). */
static int pending_range(const struct mt_thread *o, uint64_t *a, uint64_t *b,
			 uint64_t *a2, uint64_t *b2)
{
	uint64_t at = 0;

	switch (o->call->range) {
	case MAPTAP_RANGE_MMAP:
		if (!(o->args[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE)))
			return 0;
		at = o->args[0];
		break;
	case MAPTAP_RANGE_RET_LEN:
		return 0;
	case MAPTAP_RANGE_MREMAP:
		/* Where else it maps is known at its exit only: it may
		 * move (MREMAP_MAYMOVE), and a failed one re-reads no more
		 * than its old range (see remaps_elsewhere()). */
		*a2 = *b2 = 0;
		*a = PAGE_DOWN(o->args[0]);
		*b = PAGE_UP(o->args[0] + o->args[1]);
		return *b > *a;
	default:
		break;
	}
	return maptap_syscall_range(o->call, o->args, (int64_t)at, a, b, a2,
				    b2);
}

/* Whether pending mremap O may map beyond its old range: grow, move
 * (MREMAP_MAYMOVE, MREMAP_FIXED, MREMAP_DONTUNMAP).  Its exit reads
 * where it did, which its arguments cannot tell: in place or moved,
 * and nothing beyond the old range when it failed.  So a range it may
 * have mapped is not one its exit will read for sure, and leaving what
 * a sibling's munmap found there to that exit lost the mapping when
 * the mremap moved instead (mapstorm.py, remap storm). */
static bool remaps_elsewhere(const struct mt_thread *o)
{
	return o->call->range == MAPTAP_RANGE_MREMAP &&
	       (o->args[2] > o->args[1] ||
		(o->args[3] & (MREMAP_MAYMOVE | MREMAP_FIXED)));
}

enum pending_kind { PENDING_ANY, PENDING_UNMAP, PENDING_MAPPER };

/* The thread of SELF's mm, other than SELF, whose pending call (only a
 * munmap for PENDING_UNMAP, anything but one for PENDING_MAPPER) covers
 * [LO, HI), or NULL; its first range in [*A, *B). */
static struct mt_thread *pending_over(struct maptap_session *s,
				      struct mt_thread *self, uint64_t lo,
				      uint64_t hi, enum pending_kind kind,
				      uint64_t *a, uint64_t *b)
{
	size_t i;

	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *o = s->threads.slot[i];
		uint64_t a2, b2;

		/* A call already reported was matched to an earlier
		 * mapping of this range; it cannot have freed this one. */
		if (!o || o == (struct mt_thread *)1 || o == self || !o->call ||
		    o->reported || o->call->cls != MAPTAP_SC_MAP ||
		    o->proc->mm != self->proc->mm ||
		    (kind == PENDING_UNMAP &&
		     o->call->range != MAPTAP_RANGE_UNMAP) ||
		    (kind == PENDING_MAPPER &&
		     o->call->range == MAPTAP_RANGE_UNMAP))
			continue;
		if (pending_range(o, a, b, &a2, &b2) != 1)
			continue;
		if ((*a < hi && lo < *b) || (a2 < hi && lo < b2))
			return o;
	}
	return NULL;
}

/* Report, whole and in their names, the pending munmaps of T's siblings
 * over [LO, HI) while the model still has memory there.  For callers
 * that know the memory there is gone: each such munmap ran already, and
 * munmap(2) takes its whole range at once, so all of it is gone; by its
 * exit other calls may have mapped any part of it again.  One reported
 * already is taken again: it was reported when a hole appeared that
 * another munmap may have made, and a read since, made before it ran,
 * may have put back memory it has freed since.  But only after every
 * munmap not yet reported: a reported one was matched to an earlier
 * hole, and taking it first unmapped, whole, memory mapped since it ran
 * (a sibling's mmap that landed where it freed), which then came back
 * in that mmap's name a second time when the right munmap's exit
 * re-read its range (testsuite/system/mapstorm.py, 6391 pages mapped of
 * 6388).  AGAIN false: only those not yet reported. */
static void prune_after(struct maptap_session *s, struct mt_thread *t,
			uint64_t lo, uint64_t hi, bool own_only);

static int report_pending_unmaps(struct maptap_session *s,
				 struct mt_thread *t, uint64_t lo, uint64_t hi,
				 bool again)
{
	struct mt_proc *p = t->proc;
	struct maptap_mm_hint h;
	size_t i;
	int pass, n_rep = 0;

	for (pass = 0; pass < 1 + again; pass++) {
		for (i = 0; i < s->threads.cap; i++) {
			struct mt_thread *o = s->threads.slot[i];
			uint64_t a, b, a2, b2, x, y;
			size_t n = 0;

			if (!o || o == (struct mt_thread *)1 || o == t ||
			    !o->call || o->reported != (pass == 1) ||
			    o->call->range != MAPTAP_RANGE_UNMAP ||
			    o->proc->mm != p->mm ||
			    maptap_syscall_range(o->call, o->args, 0, &a, &b,
						 &a2, &b2) != 1 ||
			    !(a < hi && lo < b))
				continue;
			x = a > lo ? a : lo;
			y = b < hi ? b : hi;
			maptap_mm_foreach(p->mm->model, x, y, count_vma, &n);
			if (!n)
				continue;
			hint_init(&h, p, o->tid, o->call);
			maptap_mm_update(p->mm->model, a, b, NULL, 0, &h,
					 emit_cb, s);
			o->reported = true;
			n_rep++;
			/* It ran: its thread's own earlier mappings there
			 * are gone (prune_after()). */
			prune_after(s, o, a, b, true);
		}
	}
	return n_rep;
}

static bool next_uncovered(uint64_t at, uint64_t hi, uint64_t (*r)[2],
			   size_t n, uint64_t *x, uint64_t *y);

/* An mmap without MAP_FIXED never replaces anything (mmap(2)): if the
 * model still has memory where it placed the new mapping, other threads'
 * calls, not yet reported at their exits, freed it.  Report those unmaps
 * first (report_pending_unmaps()), so the log does not claim a replace
 * that never happened.  Several can have freed parts of one new mapping.
 * What is left goes in the name of another pending call over the range
 * (mremap, MAP_FIXED), or of none. */
static void unmap_raced(struct maptap_session *s, struct mt_thread *t,
			uint64_t lo, uint64_t hi)
{
	struct mt_proc *p = t->proc;
	struct mt_thread *o;
	struct maptap_mm_hint h;
	uint64_t a = 0, b = 0, x, y, r[4][2];
	size_t i, n = 0;

	report_pending_unmaps(s, t, lo, hi, true);
	maptap_mm_foreach(p->mm->model, lo, hi, count_vma, &n);
	if (!n)
		return;
	o = pending_over(s, t, lo, hi, PENDING_ANY, &a, &b);
	hint_init(&h, p, o ? o->tid : p->pid, o ? o->call : NULL);
	/* Where a sibling's call that returned meanwhile mapped, that
	 * mapping came after this one (it could not be here before):
	 * the read that follows finds it unchanged. */
	if (t->n_after > 4)
		return;		/* too many to tell: the read decides */
	for (i = 0; i < (size_t)t->n_after; i++) {
		r[i][0] = t->after[i].lo;
		r[i][1] = t->after[i].hi;
	}
	for (x = lo; next_uncovered(x, hi, r, (size_t)t->n_after, &x, &y);
	     x = y)
		maptap_mm_update(p->mm->model, x, y, NULL, 0, &h, emit_cb, s);
}

/* Read [LO, HI) of T's mm into s->buf again, after holes_raced()
 * found the first read torn.  Returns 0 or the -errno of the read. */
static int reread(struct maptap_session *s, struct mt_thread *t,
		  uint64_t lo, uint64_t hi)
{
	int err = s->fault ? s->fault(s->fault_arg, MT_FAULT_REREAD, t) : 0;

	if (err)
		return err;
	maptap_vma_buf_clear(&s->buf);
	s->stats.refreshes++;
	return maptap_maps_read_range(t->proc->mm->reader, lo, hi, &s->buf);
}

static int holes_raced(struct maptap_session *s, struct mt_thread *t,
		       uint64_t lo, uint64_t hi,
		       const struct maptap_vma_buf *read, bool again);

/* Make s->buf, a read of [LO, HI) of T's mm, one whose holes no pending
 * sibling munmap not yet reported explains (holes_raced(); AGAIN as
 * there): read again after each pass that reported one, and check the
 * new read the same way.  The new read is not older than the first: a
 * sibling's munmap that ran between the two reads leaves in it a hole
 * the first did not have, over memory the model still has.  Passing it
 * unchecked gave that hole to the caller (a reported munmap's exit
 * unmapped its sibling's page in its own name), the sibling's munmap
 * stayed unreported, its exit unmapped a third thread's mapping made
 * there since, and that came back in its mmap's name: one page's map
 * and unmap logged twice (mapstorm.py under load, 12780 pages for
 * 12776; issue 16).  Ends: each pass that reads again reported a munmap
 * over memory the model had, and emptied it; nothing here maps.
 * Returns 0 or the -errno of a read. */
static int read_settled(struct maptap_session *s, struct mt_thread *t,
			uint64_t lo, uint64_t hi, bool again)
{
	int err;

	while (holes_raced(s, t, lo, hi, &s->buf, again))
		if ((err = reread(s, t, lo, hi)) != 0)
			return err;
	return 0;
}

/* A MAP_FIXED mmap that succeeded filled all of [LO, HI); a hole in the
 * kernel's VMAs READ there was made after it, by a sibling's munmap that
 * has not reached its exit.  Report those munmaps first, as
 * unmap_raced() does, so the hole is not this mmap's unmap.  Also for a
 * munmap reported early, at its exit: see unmap_exit().  AGAIN as for
 * report_pending_unmaps().  Returns how many it reported.
 *
 * When it reported any, READ is not to be trusted: a range read is one
 * query per VMA, not one snapshot, and a sibling's munmap that ran
 * between two queries leaves the VMAs read before it in READ and a hole
 * after: a state the mm never had.  That munmap took its whole range at
 * once, so the caller reads again, and checks that read too
 * (read_settled()): mapstorm.py under load, a
 * munmap's exit found its sibling's page before the sibling's munmap
 * and the hole after it, reported that munmap, named the page by an
 * mmap, and the sibling's own exit unmapped it a second time (12777
 * pages logged for 12776; issue 16). */
static int holes_raced(struct maptap_session *s, struct mt_thread *t,
			uint64_t lo, uint64_t hi,
			const struct maptap_vma_buf *read, bool again)
{
	uint64_t at = lo;
	size_t i;
	int n = 0;

	for (i = 0; i <= read->n && at < hi; i++) {
		uint64_t next = i < read->n ? read->v[i].start : hi;

		if (next > hi)
			next = hi;
		if (at < next)
			n += report_pending_unmaps(s, t, at, next, again);
		if (i < read->n && read->v[i].end > at)
			at = read->v[i].end;
	}
	return n;
}

static bool placed(const struct mt_thread *o)
{
	return o->call->range == MAPTAP_RANGE_RET_LEN ||
	       (o->call->range == MAPTAP_RANGE_MMAP &&
		!(o->args[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE)));
}

/* After mapping call T returned over [LO, HI): tell each sibling munmap
 * pending over it, whose exit re-reads its range (unmap_exit()), and
 * each sibling mmap whose address the kernel chooses, which may have run
 * before T and whose exit then finds T's mapping in its range
 * (unmap_raced()). */
static void note_after(struct maptap_session *s, struct mt_thread *t,
		       uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *o = s->threads.slot[i];
		uint64_t a, b, a2, b2;

		if (!o || o == (struct mt_thread *)1 || o == t || !o->call ||
		    o->call->cls != MAPTAP_SC_MAP ||
		    o->proc->mm != t->proc->mm)
			continue;
		if (!placed(o) &&
		    (o->call->range != MAPTAP_RANGE_UNMAP ||
		     maptap_syscall_range(o->call, o->args, 0, &a, &b, &a2,
					  &b2) != 1 ||
		     !(a < hi && lo < b)))
			continue;
		if (o->n_after < 4)
			o->after[o->n_after] = (struct mt_after){
				t->tid, t->call, lo, hi };
		o->n_after++;
	}
}

/* The ranges pending call O mapped (an mremap's old and new one), when
 * O has returned and waits in its syscall-exit stop, not yet taken by
 * the loop: ptrace(2) requests work on a tracee in a stop whether or
 * not wait(2) reported it. */
static bool peek_range(const struct mt_thread *o, uint64_t *a, uint64_t *b,
		       uint64_t *a2, uint64_t *b2)
{
	struct __ptrace_syscall_info info;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, o->tid, (void *)sizeof(info),
		   &info) <= 0 || info.op != PTRACE_SYSCALL_INFO_EXIT)
		return false;
	return maptap_syscall_range(o->call, o->args, info.exit.rval, a, b,
				    a2, b2) == 1;
}

/* Where the pending calls of T's siblings may have mapped memory and
 * their exits will re-read: ranges their arguments fix (MAP_FIXED, an
 * mremap's old range), or that the kernel chose and returned
 * (peek_range()).  Up to MAX ranges in OUT; returns their count, or
 * MAX + 1 when they do not fit.  *RUNNING: some sibling's placed mmap,
 * or an mremap that may map elsewhere (remaps_elsewhere()), is still
 * in the kernel, where it maps unknown. */
static size_t pending_ranges(struct maptap_session *s, struct mt_thread *t,
			     uint64_t (*out)[2], size_t max, bool *running)
{
	size_t i, n = 0;

	*running = false;
	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *o = s->threads.slot[i];
		uint64_t a, b, a2, b2;
		int r;

		if (!o || o == (struct mt_thread *)1 || o == t || !o->call ||
		    o->reported || o->call->cls != MAPTAP_SC_MAP ||
		    o->call->range == MAPTAP_RANGE_UNMAP ||
		    o->proc->mm != t->proc->mm)
			continue;
		r = pending_range(o, &a, &b, &a2, &b2);
		if ((r == 0 && (o->call->range == MAPTAP_RANGE_MMAP ||
				o->call->range == MAPTAP_RANGE_RET_LEN)) ||
		    (r == 1 && remaps_elsewhere(o))) {
			uint64_t p[4];

			if (peek_range(o, &p[0], &p[1], &p[2], &p[3])) {
				a = p[0];
				b = p[1];
				a2 = p[2];
				b2 = p[3];
			} else {
				*running = true;
				if (r == 0)
					continue;
			}
		} else if (r != 1) {
			continue;
		}
		if (n + 2 > max)
			return max + 1;
		out[n][0] = a;
		out[n++][1] = b;
		if (a2 < b2) {
			out[n][0] = a2;
			out[n++][1] = b2;
		}
	}
	return n;
}

/* The first piece of [AT, HI) outside every range of R[0..N), as
 * [*X, *Y); false when there is none. */
static bool next_uncovered(uint64_t at, uint64_t hi, uint64_t (*r)[2],
			   size_t n, uint64_t *x, uint64_t *y)
{
	size_t i;
	bool moved = true;

	while (moved && at < hi) {
		moved = false;
		for (i = 0; i < n; i++)
			if (r[i][0] <= at && at < r[i][1]) {
				at = r[i][1];
				moved = true;
			}
	}
	if (at >= hi)
		return false;
	*x = at;
	*y = hi;
	for (i = 0; i < n; i++)
		if (r[i][0] > at && r[i][0] < *y)
			*y = r[i][0];
	return true;
}

/* Unmap, in HINT's name, what the model has in the holes of the kernel's
 * VMAs in s->buf over [LO, HI). */
static int unmap_holes(struct maptap_session *s, struct mt_thread *t,
		       uint64_t lo, uint64_t hi,
		       const struct maptap_mm_hint *hint)
{
	uint64_t at = lo;
	size_t i;
	int err;

	for (i = 0; i <= s->buf.n && at < hi; i++) {
		uint64_t next = i < s->buf.n ? s->buf.v[i].start : hi;

		if (next > hi)
			next = hi;
		if (at < next) {
			err = maptap_mm_update(t->proc->mm->model, at, next,
					       NULL, 0, hint, emit_cb, s);
			if (err < 0)
				return err;
		}
		if (i < s->buf.n && s->buf.v[i].end > at)
			at = s->buf.v[i].end;
	}
	return 0;
}

/* Apply what s->buf found in [X, Y) after T's munmap ran: where the
 * sibling call that returned meanwhile mapped, in its name; elsewhere,
 * while a placed mmap is still in the kernel, leave it to that call's
 * exit (most likely its doing); else in the name of none. */
static int name_found(struct maptap_session *s, struct mt_thread *t,
		      uint64_t x, uint64_t y, bool running)
{
	struct maptap_mm_hint h;
	uint64_t r[4][2], a, b;
	int i, n = t->n_after < 4 ? t->n_after : 4, err;

	for (i = n - 1; i >= 0; i--) {	/* the latest first */
		a = t->after[i].lo > x ? t->after[i].lo : x;
		b = t->after[i].hi < y ? t->after[i].hi : y;
		r[i][0] = t->after[i].lo;
		r[i][1] = t->after[i].hi;
		if (a >= b)
			continue;
		hint_init(&h, t->proc, t->after[i].tid, t->after[i].sc);
		err = maptap_mm_update(t->proc->mm->model, a, b, s->buf.v,
				       s->buf.n, &h, emit_cb, s);
		if (err < 0)
			return err;
	}
	/* What no call that returned meanwhile mapped is the doing of a
	 * call still pending, whose exit reads where it mapped; unless
	 * more returned than were kept. */
	if (running && t->n_after <= 4)
		return 0;
	hint_init(&h, t->proc, t->proc->pid, NULL);
	for (a = x; next_uncovered(a, y, r, (size_t)n, &a, &b); a = b) {
		err = maptap_mm_update(t->proc->mm->model, a, b, s->buf.v,
				       s->buf.n, &h, emit_cb, s);
		if (err < 0)
			return err;
	}
	return 0;
}

static bool after_has(const struct mt_thread *t, const struct mt_after *e)
{
	int i;

	for (i = 0; i < t->n_after && i < 4; i++)
		if (t->after[i].tid == e->tid && t->after[i].sc == e->sc &&
		    t->after[i].lo == e->lo && t->after[i].hi == e->hi)
			return true;
	return false;
}

/* Munmap T ran over [LO, HI): a mapping there that a sibling call
 * returned before T's entry (one not in T's own list) was gone when T
 * ran: drop it from the lists of the siblings' pending calls
 * (note_after()), or their exits would name what they find there by a
 * call whose mapping no longer exists (a thread's mmap, its munmap, and
 * its next mmap landing there, still in the kernel, whose first part a
 * sibling's munmap exit reported in the first mmap's name).
 *
 * An entry of T's own thread is dropped whatever T's list holds: a
 * thread's calls run in order, so its mmap returned before its munmap
 * began.  That one holds also when T's list is incomplete (more than 4
 * returned meanwhile) and when T was reported early, by a sibling that
 * found its hole (report_pending_unmaps()), before its exit: with the
 * entry kept, a third thread's munmap exit read a new mapping where T
 * had unmapped and named it by T's earlier mmap, and T's exit then
 * unmapped it again in its own name: one page mapped and unmapped twice
 * in the log (mapstorm.py under load, 12777 pages for 12776; issue 16).
 * OWN_ONLY: only those (T's list is not known to be complete yet). */
static void prune_after(struct maptap_session *s, struct mt_thread *t,
			uint64_t lo, uint64_t hi, bool own_only)
{
	bool all = !own_only && t->n_after <= 4;
	size_t i;
	int k, j;

	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *o = s->threads.slot[i];

		if (!o || o == (struct mt_thread *)1 || o == t || !o->call ||
		    o->proc->mm != t->proc->mm || !o->n_after ||
		    o->n_after > 4)
			continue;
		for (k = 0; k < o->n_after; k++) {
			struct mt_after *e = &o->after[k];

			if (e->hi <= lo || hi <= e->lo ||
			    (e->tid != t->tid && (!all || after_has(t, e))))
				continue;
			if (lo <= e->lo && e->hi <= hi) {
				for (j = k + 1; j < o->n_after; j++)
					o->after[j - 1] = o->after[j];
				o->n_after--;
				k--;
			} else if (lo <= e->lo) {
				e->lo = hi;
			} else if (e->hi <= hi) {
				e->hi = lo;
			}
			/* T's range inside the entry's: kept whole. */
		}
	}
}

/* munmap's exit.  Its effect is known without a read: its whole range is
 * gone.  Report that first, then re-read the range: whatever is there now
 * was mapped after the munmap ran.  Where a sibling's pending call may
 * have mapped it (pending_ranges()), it is left to that call's exit,
 * which reads its own range and reports it in its name.  Elsewhere it is
 * the doing of a call that returned meanwhile (note_after()), or, while
 * a placed mmap is still in the kernel, most likely of that one, left to
 * its exit likewise (--verify waits while it is pending: mm->in_call).
 * Reading first instead would see such a mapping and lose the unmap; not
 * reading would lose the mapping.  When a sibling's refresh reported
 * this munmap already, it took the munmap to have run, which it may not
 * have yet (another munmap may have made the hole it saw): what the
 * model still has where the kernel now has nothing is this munmap's
 * doing, reported now in its name. */
static int unmap_exit(struct maptap_session *s, struct mt_thread *t,
		      uint64_t lo, uint64_t hi)
{
	struct mt_proc *p = t->proc;
	uint64_t r[16][2], x, y;
	struct maptap_mm_hint h;
	bool running;
	size_t n;
	int err;

	prune_after(s, t, lo, hi, false);
	hint_init(&h, p, t->tid, t->call);
	if ((p->notif || t->confirm) && !t->reported) {
		/* A supervisor (SECCOMP_RET_USER_NOTIF) may have answered
		 * for the call without running it, and a deferred call's
		 * return value is not known (it may have failed): only a
		 * read says what it did. */
		maptap_vma_buf_clear(&s->buf);
		err = maptap_maps_read_range(p->mm->reader, lo, hi, &s->buf);
		if (err)
			return err;
		s->stats.refreshes++;
		return maptap_mm_update(p->mm->model, lo, hi, s->buf.v,
					s->buf.n, &h, emit_cb, s);
	}
	if (!t->reported) {
		err = maptap_mm_update(p->mm->model, lo, hi, NULL, 0, &h,
				       emit_cb, s);
		if (err < 0)
			return err;
		/* Alone in a mapping call, and no sibling's returned over
		 * the range meanwhile: nothing can have mapped there since
		 * (one read per munmap saved for most programs). */
		if (p->mm->in_call <= 1 && !t->n_after)
			return 0;
	}
	maptap_vma_buf_clear(&s->buf);
	err = maptap_maps_read_range(p->mm->reader, lo, hi, &s->buf);
	if (err)
		return err;
	s->stats.refreshes++;
	if (t->reported) {
		/* A hole where the model still has memory may as well be
		 * the doing of a sibling's munmap not yet reported, over
		 * memory mapped after this one ran (a mapping that landed
		 * where this one freed): that one first, as
		 * report_pending_unmaps() orders them.  Else the next
		 * mmap there saw the model empty, and that sibling's exit
		 * unmapped the new mapping and mapped it again. */
		err = read_settled(s, t, lo, hi, false);
		if (err)
			return err;
		err = unmap_holes(s, t, lo, hi, &h);
		if (err < 0)
			return err;
	}
	if (!s->buf.n)
		return 0;
	n = pending_ranges(s, t, r, 16, &running);
	if (n > 16) {
		/* Too many pending to list: as if all were in the kernel,
		 * where they map unknown.  (Returning here lost what calls
		 * that returned meanwhile had mapped: their exits are past.) */
		n = 0;
		running = true;
	}
	for (x = lo; next_uncovered(x, hi, r, n, &x, &y); x = y) {
		err = name_found(s, t, x, y, running);
		if (err < 0)
			return err;
	}
	return 0;
}

static int complete_call(struct maptap_session *s, struct mt_thread *t,
			 int64_t ret)
{
	const struct maptap_syscall *sc = t->call;
	struct mt_proc *p = t->proc;
	struct maptap_mm_hint h;
	uint64_t lo, hi, lo2, hi2;
	int r, err = ensure_reader(s, p);

	if (!err && s->fault)
		err = s->fault(s->fault_arg, MT_FAULT_CALL, t);
	if (err)
		return err;
	r = maptap_syscall_range(sc, t->args, ret, &lo, &hi, &lo2, &hi2);
	if (sc->range == MAPTAP_RANGE_BRK)
		r = brk_range(p, ret, &lo, &hi);
	hint_init(&h, p, t->tid, sc);
	if (r == 1 && sc->range == MAPTAP_RANGE_UNMAP) {
		err = unmap_exit(s, t, lo, hi);
	} else if (r == 2) {
		maptap_vma_buf_clear(&s->buf);
		err = maptap_maps_read_all(p->mm->reader, &s->buf);
		if (err)
			return err;
		s->stats.full_reads++;
		err = maptap_mm_update(p->mm->model, 0, MT_TOP, s->buf.v,
				       s->buf.n, &h, emit_cb, s);
	} else if (r == 1) {
		/* A sibling's munmap exit reported this mapping already
		 * (unmap_exit()): only later changes are left. */
		if (sc->range == MAPTAP_RANGE_MMAP &&
		    !(ret < 0 && ret >= -4095) && !t->reported) {
			h.fresh_lo = lo;
			h.fresh_hi = hi;
			if (!(t->args[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE)))
				unmap_raced(s, t, lo, hi);
		}
		if (sc->range == MAPTAP_RANGE_BRK ||
		    (sc->range == MAPTAP_RANGE_MREMAP && lo2 == hi2))
			h.in_place = true;
		maptap_vma_buf_clear(&s->buf);
		err = maptap_maps_read_range(p->mm->reader, lo, hi, &s->buf);
		if (err)
			return err;
		s->stats.refreshes++;
		if (h.fresh_lo < h.fresh_hi &&
		    (t->args[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE)) &&
		    (err = read_settled(s, t, lo, hi, true)) != 0)
			return err;
		if (sc->range == MAPTAP_RANGE_MMAP ||
		    sc->range == MAPTAP_RANGE_RET_LEN ||
		    sc->range == MAPTAP_RANGE_MREMAP) {
			note_after(s, t, lo, hi);
			if (lo2 != hi2)
				note_after(s, t, lo2, hi2);
		}
		if (lo2 == hi2) {
			err = maptap_mm_update(p->mm->model, lo, hi, s->buf.v,
					       s->buf.n, &h, emit_cb, s);
		} else {
			struct maptap_vma *all;
			ssize_t n;

			maptap_vma_buf_clear(&s->buf2);
			err = maptap_maps_read_range(p->mm->reader, lo2, hi2,
						     &s->buf2);
			if (err)
				return err;
			n = merge_reads(&s->buf, &s->buf2, &all);
			if (n < 0)
				return (int)n;
			h.move_old = lo;
			h.move_old_len = hi - lo;
			h.move_new = lo2;
			h.move_new_len = hi2 - lo2;
			if (lo < lo2)
				err = maptap_mm_update2(p->mm->model, lo, hi,
							lo2, hi2, all, (size_t)n,
							&h, emit_cb, s);
			else
				err = maptap_mm_update2(p->mm->model, lo2, hi2,
							lo, hi, all, (size_t)n,
							&h, emit_cb, s);
			free(all);
		}
	}
	if (err < 0)
		return err;
	/* A deferred call is applied at the thread's next stop, whose own
	 * call checks the stack when it is a mapping call. */
	if (!t->confirm)
		check_stack(s, t);
	if (s->opts.verify && !s->detaching) {
		uint64_t vr[2][2] = { { lo, hi }, { lo2, hi2 } };

		if (r == 2)
			mt_verify(s, p, NULL, 0, MT_VERIFY_FULL);
		else if (r == 1)
			mt_verify(s, p, vr, lo2 < hi2 ? 2 : 1, 0);
		else
			mt_verify(s, p, NULL, 0, 0);
	}
	return 0;
}

/* A refresh of P's mm failed (SNAPSHOT: a snapshot read): whatever it
 * was to find, the model may now miss.  Count it, and have the mm read
 * whole before one of its threads runs on (mt_resume(), mt_resync()). */
static void refresh_failed(struct maptap_session *s, struct mt_proc *p,
			   bool snapshot)
{
	s->stats.refresh_errors++;
	p->mm->stale = true;
	p->mm->stale_snapshot |= snapshot;
}

int mt_refresh_full(struct maptap_session *s, struct mt_proc *p, pid_t tid,
		    bool snapshot)
{
	int err = refresh_full(s, p, tid, snapshot);

	if (err) {
		refresh_failed(s, p, snapshot);
		return err;
	}
	/* A whole read leaves nothing stale. */
	p->mm->stale = p->mm->stale_snapshot = false;
	return 0;
}

int mt_complete_call(struct maptap_session *s, struct mt_thread *t,
		     int64_t ret)
{
	int err = complete_call(s, t, ret);

	if (err)
		refresh_failed(s, t->proc, false);
	return err;
}

void mt_resync(struct maptap_session *s, struct mt_proc *p, pid_t tid)
{
	if (!p->mm->stale)
		return;
	if (mt_refresh_full(s, p, tid, p->mm->stale_snapshot) == 0)
		s->stats.resyncs++;
}

struct verify_ctx {
	struct maptap_session *s;
	struct mt_proc *p;
	bool stack;		/* [stack] differences count */
	size_t real;
};

static void verify_report(uint64_t lo, uint64_t hi,
			  const struct maptap_vma *model,
			  const struct maptap_vma *kernel, void *arg)
{
	struct verify_ctx *c = arg;
	char mp[5] = "none", kp[5] = "none";

	/* The main stack grows in page faults while its thread runs: not
	 * a model error, except where nothing can grow it any more (the
	 * process's exit, after its last check: mt_exit_stop()). */
	if (!c->stack && kernel && kernel->kind == MAPTAP_VMA_STACK &&
	    (!model || model->kind == MAPTAP_VMA_STACK))
		return;
	c->real++;
	c->s->stats.verify_diffs++;
	if (model)
		maptap_perms_str(model->perms, mp);
	if (kernel)
		maptap_perms_str(kernel->perms, kp);
	mt_diag(c->s, "verify: pid %d: [0x%llx, 0x%llx) model %s %s, kernel %s %s",
		(int)c->p->pid, (unsigned long long)lo, (unsigned long long)hi,
		mp, model ? model->name : "", kp, kernel ? kernel->name : "");
}

/* Whether a thread of MM is late (runtime/tracer/attach.c): it was inside a
 * call when the attach snapshot was read without it, may change the
 * maps at any time before its first stop, and that stop resyncs. */
static bool late_in(const struct maptap_session *s, const struct mt_mm *mm)
{
	size_t i;

	for (i = 0; i < s->threads.cap; i++) {
		const struct mt_thread *o = s->threads.slot[i];

		if (o && o != (struct mt_thread *)1 && o->late &&
		    o->proc->mm == mm)
			return true;
	}
	return false;
}

/* Compare [LO, HI) of P's model with the kernel (LO 0, HI MT_TOP: all of
 * it); a difference is reported and resynced, so it is reported once. */
static void verify_range(struct maptap_session *s, struct mt_proc *p,
			 uint64_t lo, uint64_t hi, bool stack)
{
	struct verify_ctx c = { s, p, stack, 0 };
	struct maptap_mm_hint h;
	bool all = lo == 0 && hi == MT_TOP;
	int err;

	maptap_vma_buf_clear(&s->buf);
	err = all ? maptap_maps_read_all(p->mm->reader, &s->buf) :
		    maptap_maps_read_range(p->mm->reader, lo, hi, &s->buf);
	if (err)
		return;
	if (!maptap_mm_verify_range(p->mm->model, lo, all ? UINT64_MAX : hi,
				    s->buf.v, s->buf.n, verify_report, &c))
		return;
	hint_init(&h, p, p->pid, NULL);
	h.in_place = true;
	maptap_mm_update(p->mm->model, lo, hi, s->buf.v, s->buf.n, &h,
			 emit_cb, s);
}

/* The least time between two full checks of one mm, and how many times
 * the last one's duration must pass first: a full read of 60,000 VMAs
 * takes tens of ms, and once per event made --verify thousands of times
 * slower than a run without it (issue 17). */
#define MT_VERIFY_GAP_NS 100000000ULL
#define MT_VERIFY_GAP_FACTOR 20
/* Without PROCMAP_QUERY, a full check longer than this stops the range
 * checks (each would read all of the text). */
#define MT_VERIFY_TEXT_NS 1000000ULL

/* --verify: compare the model with the kernel: the ranges RANGES[0..N)
 * that the event just refreshed (a few PROCMAP_QUERYs), and the whole
 * map when FLAGS has MT_VERIFY_FULL or the last full check of this mm is
 * long enough ago that full checks cost at most about 1/20 of the run.
 * Only meaningful while no other thread of this mm is inside a mapping
 * call (the calling thread's own call, at its exit, is counted). */
void mt_verify(struct maptap_session *s, struct mt_proc *p,
	       const uint64_t (*ranges)[2], size_t n, unsigned flags)
{
	uint64_t t0, gap;
	size_t i;

	/* A stale model (a refresh failed) is behind by design until its
	 * resync: not a difference. */
	/* Nor while a late thread (in a call entered before the attach)
	 * may change the maps before its first stop. */
	if (p->mm->in_call > 1 || p->mm->stale || late_in(s, p->mm) ||
	    ensure_reader(s, p))
		return;
	if (p->mm->untraced) {
		/* A thread maptap let go of shares this mm and changes it
		 * unseen: read what it did (as a resync) rather than
		 * compare while it runs on. */
		mt_refresh_full(s, p, p->pid, false);
		return;
	}
	t0 = mt_now_ns();
	if (!(flags & MT_VERIFY_FULL) && t0 < p->mm->verify_next_ns) {
		/* A range read of the text is a read of all of it: worth
		 * it while that is cheap, else left to the full checks. */
		if (maptap_maps_source_of(p->mm->reader) != MAPTAP_MAPS_QUERY &&
		    p->mm->verify_full_ns > MT_VERIFY_TEXT_NS)
			return;
		for (i = 0; i < n; i++)
			if (ranges[i][0] < ranges[i][1])
				verify_range(s, p, ranges[i][0], ranges[i][1],
					     flags & MT_VERIFY_STACK);
		return;
	}
	verify_range(s, p, 0, MT_TOP, flags & MT_VERIFY_STACK);
	p->mm->verify_full_ns = mt_now_ns() - t0;
	gap = p->mm->verify_full_ns * MT_VERIFY_GAP_FACTOR;
	p->mm->verify_next_ns = mt_now_ns() +
				(gap > MT_VERIFY_GAP_NS ? gap : MT_VERIFY_GAP_NS);
}

/* Thread T is in its PTRACE_EVENT_EXIT stop: it runs no more user code,
 * and its mm is still whole (the stop comes before exit_mm(),
 * kernel/exit.c).  The main stack may have grown since the last call
 * (a deep recursion, then exit): when T is the process's main thread,
 * the only one on [stack], this is the last chance to see it.  When it
 * is the last thread of its process to stop here, nothing can change
 * the mm any more (unless another process shares it): --verify checks
 * all of it, [stack] included. */
void mt_exit_stop(struct maptap_session *s, struct mt_thread *t)
{
	struct mt_proc *p = t->proc;
	size_t i;

	t->exiting = true;
	if (!p->ready)
		return;		/* -c's command before its exec: maptap's */
	if (t->tid == p->pid)
		mt_check_main_stack(s, p, t->tid);
	/* A call some thread was killed in may or may not have run. */
	if ((!s->opts.verify && !p->mm->untraced) || s->detaching ||
	    p->mm->refs > 1 || p->mm->in_call > 0)
		return;
	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *o = s->threads.slot[i];

		if (o && o != (struct mt_thread *)1 && o->proc == p &&
		    !o->exiting)
			return;
	}
	mt_check_main_stack(s, p, t->tid);
	if (s->opts.verify)
		mt_verify(s, p, NULL, 0, MT_VERIFY_FULL | MT_VERIFY_STACK);
	else	/* a let-go thread's changes: now or never */
		mt_refresh_full(s, p, t->tid, false);
}
