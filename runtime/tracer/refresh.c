/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* refresh.c -- bring an address-space model up to date after a call, an
 * exec or an attach, and hand the differences to the session as events.
 *
 * Only the range a call touched is re-read (DESIGN.md: a full read at
 * 60,000 VMAs costs thousands of times more than one PROCMAP_QUERY).
 * Here: the range of each call class, full reads, the stack, --verify;
 * what the calls of other threads in flight change about a call's
 * range is siblings.c's.
 */
#include "tracer_priv.h"

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

/* P's maps reader, opened on first use; -ESRCH when P is gone. */
int mt_ensure_reader(struct maptap_session *s, struct mt_proc *p)
{
	int err;

	if (p->mm->reader)
		return 0;
	err = maptap_maps_open(p->pid, s->opts.maps_source, &p->mm->reader);
	if (err == -ENOENT)
		err = -ESRCH;
	return err;
}

void mt_hint_init(struct maptap_mm_hint *h, struct mt_proc *p, pid_t tid,
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
	int err = mt_ensure_reader(s, p);

	if (!err && s->fault)
		err = s->fault(s->fault_arg, MT_FAULT_FULL, NULL);
	if (err)
		return err;
	maptap_vma_buf_clear(&s->buf);
	err = maptap_maps_read_all(p->mm->reader, &s->buf);
	if (err)
		return err;
	s->stats.full_reads++;
	mt_hint_init(&h, p, tid, NULL);
	h.snapshot = snapshot;
	return maptap_mm_update(p->mm->model, 0, MT_TOP, s->buf.v, s->buf.n,
				&h, mt_emit_cb, s);
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
	mt_hint_init(&h, p, tid, NULL);
	h.in_place = true;
	maptap_mm_update(p->mm->model, lo, hi, s->buf2.v, s->buf2.n, &h,
			 mt_emit_cb, s);
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

/* Whether /proc/PID/exe names the image P's model holds. */
static bool same_image(const struct mt_proc *p)
{
	char *exe = mt_proc_exe(p->pid);
	bool same = exe && p->exe && strcmp(exe, p->exe) == 0;

	free(exe);
	return same;
}

void mt_check_main_stack(struct maptap_session *s, struct mt_proc *p,
			 pid_t tid)
{
	long at = 0;

	if (mt_ensure_reader(s, p))
		return;
	/* With perf events the model is the records read, behind the
	 * kernel: a process may have exec'd since (a fork's child, at
	 * once), and its start_stack be the next image's, whose [stack]
	 * then came into this image's log.  Read only while the kernel
	 * runs the model's image (the exec's records come first). */
	if (!p->mm->stack_addr && s->perf && !same_image(p))
		return;
	/* mm->start_stack (field 28 of /proc/PID/stat, shown to a tracer)
	 * lies in the main stack's VMA for the life of the image. */
	if (!p->mm->stack_addr &&
	    mt_proc_stat_field(p->pid, 28, &at) == 0 && at > 0)
		p->mm->stack_addr = (uint64_t)at;
	if (p->mm->stack_addr)
		stack_at(s, p, tid, p->mm->stack_addr);
}

/* The highest user address a mapping made without a hint above it can
 * reach on x86-64 (DEFAULT_MAP_WINDOW, arch/x86/include/asm/page_64.h:
 * 47-bit virtual addresses, less the top guard page). */
#define MT_MAP_WINDOW 0x7ffffffff000ULL

/* Gap reads a deferred mmap's search makes from the top down before it
 * reads the whole mm instead (a failed call, in an mm of many gaps). */
#define MT_MAP_SEARCH_MAX 16

/* Whether every VMA of BUF meets [LO, HI). */
static bool all_within(const struct maptap_vma_buf *buf, uint64_t lo,
		       uint64_t hi)
{
	size_t i;

	for (i = 0; i < buf->n; i++)
		if (buf->v[i].end <= lo || buf->v[i].start >= hi)
			return false;
	return true;
}

/* Whether the kernel now has, in [G0, G1) -- a gap of T's model -- the
 * one mapping of LEN bytes T's deferred mmap made: read [G0, G1) into
 * s->buf; the VMAs there, clipped to the gap, are that mapping (it may
 * have merged with the VMAs at either end, whose parts outside the gap
 * the clip drops).  The [stack] growing down into the gap, or a special
 * mapping the kernel made there without a call, is not it.
 * Returns 1 with its start in *RET, 0 when the gap is still empty, 2
 * when what is there is not one mapping of LEN bytes (something the
 * model does not explain: the caller reads the mm whole), or -errno of
 * the read. */
static int map_in_gap(struct maptap_session *s, struct mt_proc *p,
		      uint64_t g0, uint64_t g1, uint64_t len, int64_t *ret)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t i;
	int err;

	maptap_vma_buf_clear(&s->buf);
	err = maptap_maps_read_range(p->mm->reader, g0, g1, &s->buf);
	if (err)
		return err;
	s->stats.refreshes++;
	for (i = 0; i < s->buf.n; i++) {
		const struct maptap_vma *v = &s->buf.v[i];
		uint64_t a = v->start > g0 ? v->start : g0;
		uint64_t b = v->end < g1 ? v->end : g1;

		/* Not made by an mmap: the [stack] growing down, the
		 * kernel's own special mappings ([uprobes], made at a
		 * kernel uprobe's first hit, with no call). */
		if (v->kind == MAPTAP_VMA_STACK ||
		    v->kind == MAPTAP_VMA_SPECIAL ||
		    v->kind == MAPTAP_VMA_VDSO || v->kind == MAPTAP_VMA_VVAR ||
		    v->kind == MAPTAP_VMA_VSYSCALL || a >= b)
			continue;
		if (a < lo)
			lo = a;
		if (b > hi)
			hi = b;
	}
	if (lo >= hi)
		return 0;
	if (hi - lo != len)
		return 2;
	*ret = (int64_t)lo;
	return 1;
}

/* Where the deferred mmap of T (t->args, single-threaded mm, no exit
 * stop: may_defer()) put its mapping, or whether it failed; it is T's
 * first stop since the call.  A MAP_FIXED or MAP_FIXED_NOREPLACE call
 * was deferred only into a range the model had empty, so anything there
 * now is its mapping.  Any other call's mapping lies whole in one gap of
 * the model at least LEN bytes long (a mapping without MAP_FIXED never
 * replaces one, mmap(2)): the gap holding its hint first, then the gap
 * at the last place a mapping was found (a loop of mmap and munmap gets
 * the same address again; successive mappings go down from it,
 * mm/mmap.c, the top-down allocator), then every gap from the top down
 * to the bottom, MT_MAP_SEARCH_MAX of them at most before the whole mm
 * is read instead.  None changed: the call failed (no event).  Returns 1
 * with the mapping's start in *RET, 0 with *RET a negative errno (it
 * failed), 2 when the mm must be read whole, or -errno of a read. */
static int find_deferred_map(struct maptap_session *s, struct mt_thread *t,
			     int64_t *ret)
{
	const struct maptap_mm *mm = t->proc->mm->model;
	const uint64_t *a = t->args;
	/* the gaps read first, by start; UINT64_MAX: none (no gap starts
	 * there) */
	uint64_t len = PAGE_UP(a[1]), tried[2] = { UINT64_MAX, UINT64_MAX };
	uint64_t x, g0, g1;
	const struct maptap_vma *v;
	int r, k;

	*ret = -ENOMEM;
	if (a[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE))
		return map_in_gap(s, t->proc, a[0], a[0] + len, len, ret);
	for (k = 0; k < 2; k++) {
		x = k == 0 ? PAGE_DOWN(a[0]) : t->proc->mm->map_last;
		if (x == 0)
			continue;
		if ((v = maptap_mm_find(mm, x)) != NULL) {
			if (k == 0 || v->start == 0)
				continue;	/* a hint on a VMA: not used */
			x = v->start - 1;	/* the gap just below */
		}
		if (!maptap_mm_gap(mm, x, &g0, &g1) || g1 - g0 < len ||
		    g0 == tried[0])
			continue;	/* too short, or the hint's, read */
		tried[k] = g0;
		r = map_in_gap(s, t->proc, g0, g1, len, ret);
		if (r != 0)
			return r;
	}
	/* Every other gap, from the top of the mapping window down; past
	 * MT_MAP_SEARCH_MAX reads, one read of the whole mm costs less. */
	for (x = MT_MAP_WINDOW - 1, k = 0;;) {
		if ((v = maptap_mm_find(mm, x)) != NULL) {
			if (v->start == 0)
				break;
			x = v->start - 1;
			continue;
		}
		maptap_mm_gap(mm, x, &g0, &g1);
		if (g1 > MT_MAP_WINDOW)
			g1 = MT_MAP_WINDOW;
		if (g1 - g0 >= len && g0 != tried[0] && g0 != tried[1]) {
			if (++k > MT_MAP_SEARCH_MAX)
				return 2;
			r = map_in_gap(s, t->proc, g0, g1, len, ret);
			if (r != 0)
				return r;
		}
		if (g0 == 0)
			break;
		x = g0 - 1;
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
	/* a deferred mmap's search (find_deferred_map()); -1 none */
	int r, found = -1, err = mt_ensure_reader(s, p);

	if (!err && s->fault)
		err = s->fault(s->fault_arg, MT_FAULT_CALL, t);
	if (err)
		return err;
	if (t->confirm && sc->range == MAPTAP_RANGE_MMAP) {
		found = find_deferred_map(s, t, &ret);
		if (found < 0)
			return found;
	}
	r = maptap_syscall_range(sc, t->args, ret, &lo, &hi, &lo2, &hi2);
	if (sc->range == MAPTAP_RANGE_BRK)
		r = brk_range(p, ret, &lo, &hi);
	if (found == 2)
		r = 2;		/* not one mapping where it was found */
	else if (found == 0)
		r = 0;		/* found nowhere: it failed */
	mt_hint_init(&h, p, t->tid, sc);
	if (r == 1 && sc->range == MAPTAP_RANGE_UNMAP) {
		err = mt_unmap_exit(s, t, lo, hi);
	} else if (r == 2) {
		maptap_vma_buf_clear(&s->buf);
		err = maptap_maps_read_all(p->mm->reader, &s->buf);
		if (err)
			return err;
		s->stats.full_reads++;
		err = maptap_mm_update(p->mm->model, 0, MT_TOP, s->buf.v,
				       s->buf.n, &h, mt_emit_cb, s);
	} else if (r == 1) {
		/* A sibling's munmap exit reported this mapping already
		 * (mt_unmap_exit()): only later changes are left. */
		if (sc->range == MAPTAP_RANGE_MMAP &&
		    !(ret < 0 && ret >= -4095) && !t->reported) {
			h.fresh_lo = lo;
			h.fresh_hi = hi;
			if (!(t->args[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE))) {
				mt_unmap_raced(s, t, lo, hi);
				p->mm->map_last = lo;
			}
		}
		if (sc->range == MAPTAP_RANGE_BRK ||
		    (sc->range == MAPTAP_RANGE_MREMAP && lo2 == hi2))
			h.in_place = true;
		/* A deferred mmap found: its gap's read is this read, when
		 * all it holds is there (not a grown [stack] beside it)
		 * and no sibling's call can have changed s->buf since. */
		if (!(found == 1 && p->mm->in_call <= 1 &&
		      all_within(&s->buf, lo, hi))) {
			maptap_vma_buf_clear(&s->buf);
			err = maptap_maps_read_range(p->mm->reader, lo, hi,
						     &s->buf);
			if (err)
				return err;
			s->stats.refreshes++;
		}
		if (h.fresh_lo < h.fresh_hi &&
		    (t->args[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE)) &&
		    (err = mt_read_settled(s, t, lo, hi, true)) != 0)
			return err;
		if (sc->range == MAPTAP_RANGE_MMAP ||
		    sc->range == MAPTAP_RANGE_RET_LEN ||
		    sc->range == MAPTAP_RANGE_MREMAP) {
			mt_note_after(s, t, lo, hi);
			if (lo2 != hi2)
				mt_note_after(s, t, lo2, hi2);
		}
		if (lo2 == hi2) {
			err = maptap_mm_update(p->mm->model, lo, hi, s->buf.v,
					       s->buf.n, &h, mt_emit_cb, s);
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
							&h, mt_emit_cb, s);
			else
				err = maptap_mm_update2(p->mm->model, lo2, hi2,
							lo, hi, all, (size_t)n,
							&h, mt_emit_cb, s);
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
		const struct mt_thread *o = mt_thread_at(s, i);

		if (o && o->late && o->proc->mm == mm)
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
	mt_hint_init(&h, p, p->pid, NULL);
	h.in_place = true;
	maptap_mm_update(p->mm->model, lo, hi, s->buf.v, s->buf.n, &h,
			 mt_emit_cb, s);
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
	    mt_ensure_reader(s, p))
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
	if (t->tid == p->pid) {
		char comm[MT_COMM_LEN];

		mt_check_main_stack(s, p, t->tid);
		/* Its name now: a rename since the exec (prctl(2)
		 * PR_SET_NAME) is what its end's execname() says. */
		mt_proc_comm(p->pid, comm);
		if (comm[0])
			memcpy(p->comm, comm, sizeof(comm));
	}
	/* A call some thread was killed in may or may not have run. */
	if ((!s->opts.verify && !p->mm->untraced) || s->detaching ||
	    p->mm->refs > 1 || p->mm->in_call > 0)
		return;
	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *o = mt_thread_at(s, i);

		if (o && o->proc == p && !o->exiting)
			return;
	}
	mt_check_main_stack(s, p, t->tid);
	if (s->opts.verify)
		mt_verify(s, p, NULL, 0, MT_VERIFY_FULL | MT_VERIFY_STACK);
	else	/* a let-go thread's changes: now or never */
		mt_refresh_full(s, p, t->tid, false);
}
