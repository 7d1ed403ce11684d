/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mm_diff.c -- turn a refresh of the model into address-space events.
 *
 * The rules are DESIGN.md's ("Address-space events") and docs/model.md's:
 * cut old and new into elementary pieces, classify each piece, fold a
 * move's UNMAP and MAP into one MOVE, coalesce neighbouring pieces whose
 * old and new states both continue, and, for in-place changes, turn MAP and
 * UNMAP at the end of a surviving VMA into GROW and SHRINK.  Nothing here
 * changes the model: mm.c commits after the events were delivered, so the
 * old names the events point to are still alive during the callback.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mm_priv.h"

int mm_reserve(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		ncap *= 2;
	}
	np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

bool mm_backing_eq(const struct maptap_vma *a, uint64_t aa,
		   const struct maptap_vma *b, uint64_t ba)
{
	if (a->inode != b->inode)
		return false;
	if (a->inode == 0)
		return true;
	return a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
	       a->offset + (aa - a->start) == b->offset + (ba - b->start);
}

static bool name_eq(const struct maptap_vma *a, const struct maptap_vma *b)
{
	return a->name_len == b->name_len &&
	       memcmp(a->name, b->name, a->name_len) == 0;
}

bool mm_state_eq(const struct maptap_vma *a, uint64_t aa,
		 const struct maptap_vma *b, uint64_t ba)
{
	return a->perms == b->perms && name_eq(a, b) &&
	       mm_backing_eq(a, aa, b, ba);
}

struct maptap_vma mm_vma_at(const struct maptap_vma *a, uint64_t lo,
			    uint64_t hi)
{
	struct maptap_vma v = *a;

	v.start = lo;
	v.end = hi;
	if (a->inode != 0)
		v.offset = a->offset + (lo - a->start);
	return v;
}

size_t mm_first_after(const struct maptap_vma *new, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (new[mid].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

int mm_sweep(uint64_t lo, uint64_t hi,
	     const struct maptap_vma *const *old, size_t no,
	     const struct maptap_vma *new, size_t nn,
	     const uint64_t *cuts, size_t nc,
	     int (*fn)(uint64_t lo, uint64_t hi, const struct maptap_vma *o,
		       const struct maptap_vma *n, void *arg),
	     void *arg)
{
	size_t i = 0, j = 0, c = 0;
	uint64_t pos = lo;

	while (pos < hi) {
		const struct maptap_vma *o = NULL, *n = NULL;
		uint64_t next = hi;
		int rc;

		while (i < no && old[i]->end <= pos)
			i++;
		while (j < nn && new[j].end <= pos)
			j++;
		while (c < nc && cuts[c] <= pos)
			c++;
		if (i < no) {
			if (old[i]->start <= pos)
				o = old[i];
			next = min64(next, o ? o->end : old[i]->start);
		}
		if (j < nn) {
			if (new[j].start <= pos)
				n = &new[j];
			next = min64(next, n ? n->end : new[j].start);
		}
		if (c < nc)
			next = min64(next, cuts[c]);
		if (o || n) {
			rc = fn(pos, next, o, n, arg);
			if (rc)
				return rc;
		}
		pos = next;
	}
	return 0;
}

/* What one diff needs besides the model. */
struct diff {
	struct maptap_mm *mm;
	const struct mm_range *r;
	size_t nr;
	const struct maptap_vma *new;
	size_t n;
	const struct maptap_mm_hint *hint;
	unsigned cur_range;
	/* the move, once found */
	bool moved;
	uint64_t mo_lo, mo_hi, mn_lo, mn_hi;
};

static bool in_fresh(const struct maptap_mm_hint *h, uint64_t lo, uint64_t hi)
{
	return h->fresh_lo < h->fresh_hi && lo >= h->fresh_lo &&
	       hi <= h->fresh_hi;
}

static int classify(const struct maptap_mm_hint *h, const struct mm_piece *p)
{
	if (!p->old)
		return MAPTAP_EV_MAP;
	if (!p->new)
		return MAPTAP_EV_UNMAP;
	if (in_fresh(h, p->lo, p->hi))
		return MAPTAP_EV_REPLACE;
	if (!mm_backing_eq(p->old, p->lo, p->new, p->lo))
		return MAPTAP_EV_REPLACE;
	if (p->old->perms != p->new->perms)
		return MAPTAP_EV_PROTECT;
	if (!name_eq(p->old, p->new))
		return MAPTAP_EV_RENAME;
	return MM_PIECE_SAME;
}

static int add_piece(uint64_t lo, uint64_t hi, const struct maptap_vma *o,
		     const struct maptap_vma *n, void *arg)
{
	struct diff *d = arg;
	struct mm_scratch *s = &d->mm->s;
	struct mm_piece *p;

	if (mm_reserve((void **)&s->pieces, &s->pieces_cap, s->n_pieces + 1,
		       sizeof(*s->pieces)))
		return -ENOMEM;
	p = &s->pieces[s->n_pieces++];
	p->lo = lo;
	p->hi = hi;
	p->old = o;
	p->new = n;
	p->range = d->cur_range;
	p->kind = classify(d->hint, p);
	return 0;
}

struct gather {
	struct mm_scratch *s;
	size_t n;
};

static int gather_one(struct mm_node *node, void *arg)
{
	struct gather *g = arg;

	if (mm_reserve((void **)&g->s->old, &g->s->old_cap, g->n + 1,
		       sizeof(*g->s->old)))
		return -ENOMEM;
	g->s->old[g->n++] = &node->vma;
	return 0;
}

/* The hint's range ends, sorted, so pieces never straddle them. */
static size_t hint_cuts(const struct maptap_mm_hint *h, uint64_t cuts[6])
{
	size_t n = 0, i, j;

	if (h->fresh_lo < h->fresh_hi) {
		cuts[n++] = h->fresh_lo;
		cuts[n++] = h->fresh_hi;
	}
	if (h->move_new_len) {
		cuts[n++] = h->move_old;
		cuts[n++] = h->move_old + h->move_old_len;
		cuts[n++] = h->move_new;
		cuts[n++] = h->move_new + h->move_new_len;
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
			uint64_t t = cuts[j];

			cuts[j] = cuts[j - 1];
			cuts[j - 1] = t;
		}
	return n;
}

static int cut_pieces(struct diff *d)
{
	struct mm_scratch *s = &d->mm->s;
	uint64_t cuts[6];
	size_t nc = hint_cuts(d->hint, cuts);
	size_t i;
	int rc;

	s->n_pieces = 0;
	for (i = 0; i < d->nr; i++) {
		struct gather g = { s, 0 };
		size_t j = mm_first_after(d->new, d->n, d->r[i].lo);

		rc = mm_tree_walk(d->mm->tree.root, d->r[i].lo, d->r[i].hi,
				  gather_one, &g);
		if (rc)
			return rc;
		d->cur_range = (unsigned)i;
		rc = mm_sweep(d->r[i].lo, d->r[i].hi, s->old, g.n,
			      j < d->n ? d->new + j : NULL, d->n - j, cuts, nc,
			      add_piece, d);
		if (rc)
			return rc;
	}
	return 0;
}

static bool inside(const struct mm_piece *p, uint64_t lo, uint64_t hi)
{
	return p->lo >= lo && p->hi <= hi;
}

/* True when the pieces of [LO, HI) are all of kinds OK1/OK2, at least one,
 * back to back, with continuous old (OLD_SIDE) or new states. */
static bool uniform_run(const struct mm_scratch *s, uint64_t lo, uint64_t hi,
			int ok1, int ok2, bool old_side)
{
	const struct mm_piece *prev = NULL;
	size_t i;

	for (i = 0; i < s->n_pieces; i++) {
		const struct mm_piece *p = &s->pieces[i];
		const struct maptap_vma *a, *b;

		if (!inside(p, lo, hi))
			continue;
		if (p->kind != ok1 && p->kind != ok2)
			return false;
		if (prev) {
			a = old_side ? prev->old : prev->new;
			b = old_side ? p->old : p->new;
			if (prev->hi != p->lo ||
			    !mm_state_eq(a, p->lo, b, p->lo))
				return false;
		}
		prev = p;
	}
	return prev != NULL;
}

static void extent(const struct mm_scratch *s, uint64_t lo, uint64_t hi,
		   uint64_t *elo, uint64_t *ehi, size_t *first)
{
	bool seen = false;
	size_t i;

	for (i = 0; i < s->n_pieces; i++) {
		const struct mm_piece *p = &s->pieces[i];

		if (!inside(p, lo, hi))
			continue;
		if (!seen)
			*elo = p->lo, *first = i;
		*ehi = p->hi;
		seen = true;
	}
}

/* Fold the old range's UNMAP and the new range's MAP (or REPLACE, when
 * MREMAP_FIXED lands on a mapping) into one MOVE piece. */
static void fold_move(struct diff *d)
{
	const struct maptap_mm_hint *h = d->hint;
	struct mm_scratch *s = &d->mm->s;
	uint64_t olo = h->move_old, ohi = h->move_old + h->move_old_len;
	uint64_t nlo = h->move_new, nhi = h->move_new + h->move_new_len;
	size_t i, first_old = 0, first_new = 0;

	if (!h->move_new_len || (nlo < ohi && olo < nhi))
		return;
	if (!uniform_run(s, olo, ohi, MAPTAP_EV_UNMAP, MAPTAP_EV_UNMAP, true) ||
	    !uniform_run(s, nlo, nhi, MAPTAP_EV_MAP, MAPTAP_EV_REPLACE, false))
		return;
	extent(s, olo, ohi, &d->mo_lo, &d->mo_hi, &first_old);
	extent(s, nlo, nhi, &d->mn_lo, &d->mn_hi, &first_new);
	for (i = 0; i < s->n_pieces; i++) {
		struct mm_piece *p = &s->pieces[i];

		if (inside(p, olo, ohi) || inside(p, nlo, nhi))
			p->kind = MM_PIECE_SKIP;
	}
	s->pieces[first_new].kind = MAPTAP_EV_MOVE;
	/* Keep the old state at the old range's start for the event. */
	s->pieces[first_new].old = s->pieces[first_old].old;
	d->moved = true;
}

static bool continues(const struct maptap_vma *a, const struct maptap_vma *b,
		      uint64_t at)
{
	if (!a || !b)
		return !a && !b;
	return mm_state_eq(a, at, b, at);
}

/* Coalesce pieces in place into spans: [lo, hi) with old/new the states
 * at lo (extrapolated over the span).  Drops SAME and SKIP. */
static void coalesce(struct mm_scratch *s)
{
	size_t i, out = 0;

	for (i = 0; i < s->n_pieces; i++) {
		struct mm_piece *p = &s->pieces[i];
		struct mm_piece *q = out ? &s->pieces[out - 1] : NULL;

		if (p->kind == MM_PIECE_SAME || p->kind == MM_PIECE_SKIP)
			continue;
		if (q && p->kind != MAPTAP_EV_MOVE && q->kind == p->kind &&
		    q->hi == p->lo && continues(q->old, p->old, p->lo) &&
		    continues(q->new, p->new, p->lo)) {
			q->hi = p->hi;
			continue;
		}
		s->pieces[out++] = *p;
	}
	s->n_pieces = out;
}

static bool in_ranges(const struct diff *d, uint64_t a)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		if (a >= d->r[i].lo && a < d->r[i].hi)
			return true;
	return false;
}

static const struct maptap_vma *new_at(const struct diff *d, uint64_t a)
{
	size_t j = mm_first_after(d->new, d->n, a);

	if (j < d->n && d->new[j].start <= a)
		return &d->new[j];
	return NULL;
}

static const struct maptap_vma *old_at(const struct diff *d, uint64_t a)
{
	struct mm_node *node = mm_tree_find(d->mm->tree.root, a);

	return node ? &node->vma : NULL;
}

/* The best knowledge of the new function at A: the kernel's VMAs where
 * they reach, the model outside the refreshed ranges. */
static const struct maptap_vma *newf_at(const struct diff *d, uint64_t a)
{
	const struct maptap_vma *v = new_at(d, a);

	if (v || in_ranges(d, a))
		return v;
	return old_at(d, a);
}

static void fill_common(const struct diff *d, struct maptap_event *ev,
			int kind)
{
	const struct maptap_mm_hint *h = d->hint;

	memset(ev, 0, sizeof(*ev));
	ev->kind = (enum maptap_event_kind)kind;
	ev->pid = h->pid;
	ev->tid = h->tid;
	ev->time_ns = h->time_ns;
	ev->syscall_nr = h->syscall_nr;
	ev->syscall = h->syscall;
	ev->snapshot = h->snapshot && kind == MAPTAP_EV_MAP;
	ev->old.name = "";
	ev->vma.name = "";
}

static void clip_below(uint64_t *lo, uint64_t edge, uint64_t at)
{
	if (edge <= at && edge > *lo)
		*lo = edge;
}

static void clip_above(uint64_t *hi, uint64_t edge, uint64_t at)
{
	if (edge >= at && edge < *hi)
		*hi = edge;
}

/* Cut [*LO, *HI), a run around span I believed unchanged, at the nearest
 * changes on either side: the neighbouring spans and a move's ranges. */
static void clip_unchanged(const struct diff *d, size_t i, uint64_t *lo,
			   uint64_t *hi)
{
	const struct mm_piece *sp = d->mm->s.pieces;
	const struct mm_piece *p = &sp[i];

	if (i > 0)
		clip_below(lo, sp[i - 1].hi, p->lo);
	if (i + 1 < d->mm->s.n_pieces)
		clip_above(hi, sp[i + 1].lo, p->hi);
	if (!d->moved)
		return;
	clip_below(lo, d->mo_hi, p->lo);
	clip_below(lo, d->mn_hi, p->lo);
	clip_above(hi, d->mo_lo, p->hi);
	clip_above(hi, d->mn_lo, p->hi);
}

/* A MAP span that extends a VMA whose other part did not change: GROW.
 * The event covers the resulting VMA as far as it is known unchanged: the
 * kernel's VMA V cut to the old VMA O it grew from plus the new span, so
 * that replaying it (clear OLD, set VMA) is exact even when the model or
 * V reach farther than the refreshed range.  Returns false if it is not
 * a GROW. */
static bool as_grow(const struct diff *d, size_t i, struct maptap_event *ev)
{
	const struct mm_piece *p = &d->mm->s.pieces[i];
	const struct mm_range *r = &d->r[p->range];
	const struct maptap_vma *v = NULL, *o = NULL;
	uint64_t a = 0, lo, hi;
	bool up;

	if (p->lo > 0 && (v = new_at(d, p->lo)) && v->start < p->lo &&
	    p->hi == min64(v->end, r->hi)) {
		a = p->lo - 1;		/* grew upwards: brk, mremap */
		up = true;
	} else if ((v = new_at(d, p->hi - 1)) && v->end > p->hi &&
		   p->lo == max64(v->start, r->lo)) {
		a = p->hi;		/* grew downwards: the stack */
		up = false;
	} else {
		return false;
	}
	o = old_at(d, a);
	if (!o || !mm_state_eq(o, a, v, a))
		return false;
	lo = max64(o->start, v->start);
	hi = min64(o->end, v->end);
	clip_unchanged(d, i, &lo, &hi);
	if (lo >= hi)
		return false;	/* the neighbour changed as well */
	fill_common(d, ev, MAPTAP_EV_GROW);
	ev->vma = mm_vma_at(v, up ? lo : p->lo, up ? p->hi : hi);
	ev->old = mm_vma_at(o, lo, hi);
	return true;
}

/* An UNMAP span at one end of an old VMA O whose rest survived: SHRINK.
 * The event covers what is left of O where it is known unchanged (cut to
 * the VMA W that now holds the neighbouring address); OLD is that plus
 * the span. */
static bool as_shrink(const struct diff *d, size_t i, struct maptap_event *ev)
{
	const struct mm_piece *p = &d->mm->s.pieces[i];
	const struct maptap_vma *o, *w;
	uint64_t a, lo, hi;
	bool top;

	o = old_at(d, p->lo);
	if (o && o->start < p->lo && o->end == p->hi) {
		a = p->lo - 1;		/* the top went */
		top = true;
	} else if ((o = old_at(d, p->hi - 1)) && o->end > p->hi &&
		   o->start == p->lo) {
		a = p->hi;		/* the bottom went */
		top = false;
	} else {
		return false;
	}
	w = newf_at(d, a);
	if (!w || !mm_state_eq(o, a, w, a))
		return false;
	lo = top ? max64(o->start, w->start) : p->hi;
	hi = top ? p->lo : min64(o->end, w->end);
	clip_unchanged(d, i, &lo, &hi);
	if (lo >= hi)
		return false;	/* the neighbour changed as well */
	fill_common(d, ev, MAPTAP_EV_SHRINK);
	ev->vma = mm_vma_at(o, lo, hi);
	ev->old = mm_vma_at(o, top ? lo : p->lo, top ? p->hi : hi);
	return true;
}

static void make_event(const struct diff *d, size_t i,
		       struct maptap_event *ev)
{
	const struct mm_piece *p = &d->mm->s.pieces[i];
	bool in_place = d->hint->in_place;

	if (p->kind == MAPTAP_EV_MAP && in_place && as_grow(d, i, ev))
		return;
	if (p->kind == MAPTAP_EV_UNMAP && in_place && as_shrink(d, i, ev))
		return;
	fill_common(d, ev, p->kind);
	switch (p->kind) {
	case MAPTAP_EV_MAP:
		ev->vma = mm_vma_at(p->new, p->lo, p->hi);
		break;
	case MAPTAP_EV_UNMAP:
		ev->vma = mm_vma_at(p->old, p->lo, p->hi);
		ev->old = ev->vma;
		break;
	case MAPTAP_EV_MOVE:
		ev->vma = mm_vma_at(p->new, d->mn_lo, d->mn_hi);
		ev->old = mm_vma_at(p->old, d->mo_lo, d->mo_hi);
		break;
	default:
		ev->vma = mm_vma_at(p->new, p->lo, p->hi);
		ev->old = mm_vma_at(p->old, p->lo, p->hi);
		break;
	}
}

/* GROW, SHRINK and MOVE start where their VMA starts, which can be below
 * the piece that caused them; keep the whole list in address order. */
static void sort_events(struct maptap_event *ev, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct maptap_event t;

		if (ev[i - 1].vma.start <= ev[i].vma.start)
			continue;
		t = ev[i];
		for (j = i; j > 0 && ev[j - 1].vma.start > t.vma.start; j--)
			ev[j] = ev[j - 1];
		ev[j] = t;
	}
}

int mm_diff(struct maptap_mm *mm, const struct mm_range *r, size_t nr,
	    const struct maptap_vma *new, size_t n,
	    const struct maptap_mm_hint *hint)
{
	struct diff d = { .mm = mm, .r = r, .nr = nr, .new = new, .n = n,
			  .hint = hint };
	struct mm_scratch *s = &mm->s;
	size_t i;
	int rc;

	s->n_ev = 0;
	rc = cut_pieces(&d);
	if (rc)
		return rc;
	fold_move(&d);
	coalesce(s);
	if (mm_reserve((void **)&s->ev, &s->ev_cap, s->n_pieces,
		       sizeof(*s->ev)))
		return -ENOMEM;
	for (i = 0; i < s->n_pieces; i++)
		make_event(&d, i, &s->ev[i]);
	s->n_ev = s->n_pieces;
	sort_events(s->ev, s->n_ev);
	return 0;
}
