/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* siblings.c -- the calls of other threads in flight: while one thread's
 * mapping call completes, its siblings of the same mm may be inside
 * theirs, which have run or not (docs/tracer.md, "Threads").  The rules
 * that keep the model's events in the right calls' names: munmaps found
 * done before their exits (report_pending_unmaps()), a placed mmap over
 * memory the model still has (mt_unmap_raced()), reads torn by a munmap
 * between two queries (mt_read_settled()), the mappings of calls that
 * returned meanwhile (mt_note_after(), prune_after()), and munmap's exit
 * (mt_unmap_exit()).
 *
 * Split from refresh.c, which refreshes the range each call class
 * touched and calls in here from complete_call(); the code is as it was
 * there.
 */
#include "tracer_priv.h"

#include <sys/mman.h>
#include <sys/ptrace.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define PAGE_DOWN(a) ((a) & ~4095ULL)
#define PAGE_UP(a) (((a) + 4095ULL) & ~4095ULL)

/* As refresh.c's and perf_source.c's: the model's events to the session. */
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
		struct mt_thread *o = mt_thread_at(s, i);
		uint64_t a2, b2;

		/* A call already reported was matched to an earlier
		 * mapping of this range; it cannot have freed this one. */
		if (!o || o == self || !o->call ||
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
			struct mt_thread *o = mt_thread_at(s, i);
			uint64_t a, b, a2, b2, x, y;
			size_t n = 0;

			if (!o || o == t ||
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
			mt_hint_init(&h, p, o->tid, o->call);
			maptap_mm_update(p->mm->model, a, b, NULL, 0, &h,
					 mt_emit_cb, s);
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
void mt_unmap_raced(struct maptap_session *s, struct mt_thread *t,
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
	mt_hint_init(&h, p, o ? o->tid : p->pid, o ? o->call : NULL);
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
		maptap_mm_update(p->mm->model, x, y, NULL, 0, &h, mt_emit_cb, s);
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
int mt_read_settled(struct maptap_session *s, struct mt_thread *t,
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
 * mt_unmap_raced() does, so the hole is not this mmap's unmap.  Also for a
 * munmap reported early, at its exit: see mt_unmap_exit().  AGAIN as for
 * report_pending_unmaps().  Returns how many it reported.
 *
 * When it reported any, READ is not to be trusted: a range read is one
 * query per VMA, not one snapshot, and a sibling's munmap that ran
 * between two queries leaves the VMAs read before it in READ and a hole
 * after: a state the mm never had.  That munmap took its whole range at
 * once, so the caller reads again, and checks that read too
 * (mt_read_settled()): mapstorm.py under load, a
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
 * pending over it, whose exit re-reads its range (mt_unmap_exit()), and
 * each sibling mmap whose address the kernel chooses, which may have run
 * before T and whose exit then finds T's mapping in its range
 * (mt_unmap_raced()). */
void mt_note_after(struct maptap_session *s, struct mt_thread *t,
		   uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *o = mt_thread_at(s, i);
		uint64_t a, b, a2, b2;

		if (!o || o == t || !o->call ||
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
		struct mt_thread *o = mt_thread_at(s, i);
		uint64_t a, b, a2, b2;
		int r;

		if (!o || o == t || !o->call ||
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
					       NULL, 0, hint, mt_emit_cb, s);
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
		mt_hint_init(&h, t->proc, t->after[i].tid, t->after[i].sc);
		err = maptap_mm_update(t->proc->mm->model, a, b, s->buf.v,
				       s->buf.n, &h, mt_emit_cb, s);
		if (err < 0)
			return err;
	}
	/* What no call that returned meanwhile mapped is the doing of a
	 * call still pending, whose exit reads where it mapped; unless
	 * more returned than were kept. */
	if (running && t->n_after <= 4)
		return 0;
	mt_hint_init(&h, t->proc, t->proc->pid, NULL);
	for (a = x; next_uncovered(a, y, r, (size_t)n, &a, &b); a = b) {
		err = maptap_mm_update(t->proc->mm->model, a, b, s->buf.v,
				       s->buf.n, &h, mt_emit_cb, s);
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
 * (mt_note_after()), or their exits would name what they find there by a
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
		struct mt_thread *o = mt_thread_at(s, i);

		if (!o || o == t || !o->call ||
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
 * the doing of a call that returned meanwhile (mt_note_after()), or, while
 * a placed mmap is still in the kernel, most likely of that one, left to
 * its exit likewise (--verify waits while it is pending: mm->in_call).
 * Reading first instead would see such a mapping and lose the unmap; not
 * reading would lose the mapping.  When a sibling's refresh reported
 * this munmap already, it took the munmap to have run, which it may not
 * have yet (another munmap may have made the hole it saw): what the
 * model still has where the kernel now has nothing is this munmap's
 * doing, reported now in its name. */
int mt_unmap_exit(struct maptap_session *s, struct mt_thread *t,
		  uint64_t lo, uint64_t hi)
{
	struct mt_proc *p = t->proc;
	uint64_t r[16][2], x, y;
	struct maptap_mm_hint h;
	bool running;
	size_t n;
	int err;

	prune_after(s, t, lo, hi, false);
	mt_hint_init(&h, p, t->tid, t->call);
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
					s->buf.n, &h, mt_emit_cb, s);
	}
	if (!t->reported) {
		err = maptap_mm_update(p->mm->model, lo, hi, NULL, 0, &h,
				       mt_emit_cb, s);
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
		err = mt_read_settled(s, t, lo, hi, false);
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
