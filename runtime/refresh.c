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

int mt_refresh_full(struct maptap_session *s, struct mt_proc *p, pid_t tid,
		    bool snapshot)
{
	struct maptap_mm_hint h;
	int err = ensure_reader(s, p);

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

/* Stack growth happens in page faults, not system calls: check the VMA
 * under the thread's stack pointer (one PROCMAP_QUERY) and report a change
 * with a null syscall. */
static void check_stack(struct maptap_session *s, struct mt_thread *t)
{
	struct mt_proc *p = t->proc;
	const struct maptap_vma *m, *k;
	struct maptap_mm_hint h;
	uint64_t lo, hi;

	if (!t->sp || maptap_maps_source_of(p->mm->reader) != MAPTAP_MAPS_QUERY)
		return;
	maptap_vma_buf_clear(&s->buf2);
	if (maptap_maps_read_range(p->mm->reader, t->sp, t->sp + 1, &s->buf2) ||
	    s->buf2.n == 0)
		return;
	k = &s->buf2.v[0];
	m = maptap_mm_find(p->mm->model, t->sp);
	if (m && m->start == k->start && m->end == k->end)
		return;
	lo = m && m->start < k->start ? m->start : k->start;
	hi = m && m->end > k->end ? m->end : k->end;
	s->stats.refreshes++;
	hint_init(&h, p, p->pid, NULL);
	h.in_place = true;
	maptap_mm_update(p->mm->model, lo, hi, s->buf2.v, s->buf2.n, &h,
			 emit_cb, s);
}

static int count_vma(const struct maptap_vma *v, void *arg)
{
	(void)v;
	++*(size_t *)arg;
	return 0;
}

/* The thread of SELF's mm, other than SELF, whose pending call (only a
 * munmap when UNMAP_ONLY) covers [LO, HI), or NULL; its first range in
 * [*A, *B). */
static struct mt_thread *pending_over(struct maptap_session *s,
				      struct mt_thread *self, uint64_t lo,
				      uint64_t hi, bool unmap_only,
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
		    (unmap_only && o->call->range != MAPTAP_RANGE_UNMAP))
			continue;
		if (maptap_syscall_range(o->call, o->args, 0, a, b, &a2,
					 &b2) != 1)
			continue;
		if ((*a < hi && lo < *b) || (a2 < hi && lo < b2))
			return o;
	}
	return NULL;
}

/* An mmap without MAP_FIXED never replaces anything (mmap(2)): if the
 * model still has memory where it placed the new mapping, other threads'
 * calls, not yet reported at their exits, freed it.  Report those unmaps
 * first, in the name of the calls when they are pending, so the log does
 * not claim a replace that never happened.
 *
 * Each pending munmap over the range is reported whole, here, and not at
 * its exit: munmap(2) takes its whole range at once, so all of it is
 * gone, and by its exit other mmaps may have reused any part of it.
 * Several can have freed parts of one new mapping.  What is left goes in
 * the name of another pending call over the range (mremap, MAP_FIXED),
 * or of none. */
static void unmap_raced(struct maptap_session *s, struct mt_thread *t,
			uint64_t lo, uint64_t hi)
{
	struct mt_proc *p = t->proc;
	struct mt_thread *o;
	struct maptap_mm_hint h;
	uint64_t a = 0, b = 0;
	size_t n;

	for (;;) {
		n = 0;
		maptap_mm_foreach(p->mm->model, lo, hi, count_vma, &n);
		if (!n)
			return;
		o = pending_over(s, t, lo, hi, true, &a, &b);
		if (!o)
			break;
		hint_init(&h, p, o->tid, o->call);
		maptap_mm_update(p->mm->model, a, b, NULL, 0, &h, emit_cb, s);
		o->reported = true;
	}
	o = pending_over(s, t, lo, hi, false, &a, &b);
	hint_init(&h, p, o ? o->tid : p->pid, o ? o->call : NULL);
	maptap_mm_update(p->mm->model, lo, hi, NULL, 0, &h, emit_cb, s);
}

int mt_complete_call(struct maptap_session *s, struct mt_thread *t,
		     int64_t ret)
{
	const struct maptap_syscall *sc = t->call;
	struct mt_proc *p = t->proc;
	struct maptap_mm_hint h;
	uint64_t lo, hi, lo2, hi2;
	int r, err = ensure_reader(s, p);

	if (err)
		return err;
	r = maptap_syscall_range(sc, t->args, ret, &lo, &hi, &lo2, &hi2);
	if (sc->range == MAPTAP_RANGE_BRK)
		r = brk_range(p, ret, &lo, &hi);
	hint_init(&h, p, t->tid, sc);
	if (r == 1 && sc->range == MAPTAP_RANGE_UNMAP) {
		/* Its effect is known without a read: the range is unmapped.
		 * Reading instead could see another thread's new mapping
		 * there, and lose this unmap. */
		if (!t->reported)
			err = maptap_mm_update(p->mm->model, lo, hi, NULL, 0,
					       &h, emit_cb, s);
	} else if (r == 2) {
		maptap_vma_buf_clear(&s->buf);
		err = maptap_maps_read_all(p->mm->reader, &s->buf);
		if (err)
			return err;
		s->stats.full_reads++;
		err = maptap_mm_update(p->mm->model, 0, MT_TOP, s->buf.v,
				       s->buf.n, &h, emit_cb, s);
	} else if (r == 1) {
		if (sc->range == MAPTAP_RANGE_MMAP && !(ret < 0 && ret >= -4095)) {
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
	check_stack(s, t);
	if (s->opts.verify && !s->detaching)
		mt_verify(s, p);
	return 0;
}

struct verify_ctx {
	struct maptap_session *s;
	struct mt_proc *p;
	size_t real;
};

static void verify_report(uint64_t lo, uint64_t hi,
			  const struct maptap_vma *model,
			  const struct maptap_vma *kernel, void *arg)
{
	struct verify_ctx *c = arg;
	char mp[5] = "none", kp[5] = "none";

	/* The main stack grows in page faults: not a model error. */
	if (kernel && kernel->kind == MAPTAP_VMA_STACK &&
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

/* --verify: compare the model with a full read.  Only meaningful while no
 * other thread of this mm is inside a mapping call. */
void mt_verify(struct maptap_session *s, struct mt_proc *p)
{
	struct verify_ctx c = { s, p, 0 };
	struct maptap_mm_hint h;

	if (p->mm->in_call > 1 || ensure_reader(s, p))
		return;
	maptap_vma_buf_clear(&s->buf);
	if (maptap_maps_read_all(p->mm->reader, &s->buf))
		return;
	if (!maptap_mm_verify(p->mm->model, s->buf.v, s->buf.n,
			      verify_report, &c))
		return;
	/* Resync so one difference is reported once. */
	hint_init(&h, p, p->pid, NULL);
	h.in_place = true;
	maptap_mm_update(p->mm->model, 0, MT_TOP, s->buf.v, s->buf.n, &h,
			 emit_cb, s);
}
