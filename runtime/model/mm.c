/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mm.c -- the model of one address space: lookups, updates, verification.
 *
 * An update runs in four steps so that it either happens whole or not at
 * all: mm_diff() computes the events, plan_range() allocates every node
 * the new view needs, the events are delivered (their old names still
 * point into the untouched tree), and commit_range() swaps the nodes in
 * with splits and joins, which cannot fail.
 *
 * Where a kernel VMA reaches past a refreshed range and the model's node
 * beyond the edge has the same state, the two are stored as one node, so
 * the model's VMAs stay the kernel's VMAs rather than pieces cut at every
 * range a system call happened to touch.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mm_priv.h"

struct maptap_mm *maptap_mm_new(void)
{
	struct maptap_mm *mm = calloc(1, sizeof(*mm));

	if (mm)
		mm_tree_init(&mm->tree);
	return mm;
}

struct maptap_mm *maptap_mm_copy(const struct maptap_mm *mm)
{
	struct maptap_mm *c = maptap_mm_new();
	int err = 0;

	if (!c)
		return NULL;
	c->tree.root = mm_tree_copy(mm->tree.root, &err);
	if (err) {
		free(c);
		return NULL;
	}
	c->tree.n = mm->tree.n;
	c->tree.rng = mm->tree.rng;
	return c;
}

void maptap_mm_free(struct maptap_mm *mm)
{
	if (!mm)
		return;
	mm_tree_destroy(mm->tree.root);
	mm_tree_free_spare(&mm->tree);
	free(mm->s.old);
	free(mm->s.pieces);
	free(mm->s.ev);
	free(mm->s.specs);
	free(mm->s.nodes);
	free(mm);
}

size_t maptap_mm_count(const struct maptap_mm *mm)
{
	return mm->tree.n;
}

const struct maptap_vma *maptap_mm_find(const struct maptap_mm *mm,
					uint64_t addr)
{
	struct mm_node *node = mm_tree_find(mm->tree.root, addr);

	return node ? &node->vma : NULL;
}

bool maptap_mm_gap(const struct maptap_mm *mm, uint64_t addr, uint64_t *lo,
		   uint64_t *hi)
{
	const struct mm_node *n = mm->tree.root;
	uint64_t below = 0, above = UINT64_MAX;

	while (n) {
		if (addr < n->vma.start) {
			above = n->vma.start;
			n = n->left;
		} else if (addr >= n->vma.end) {
			below = n->vma.end;
			n = n->right;
		} else {
			return false;
		}
	}
	*lo = below;
	*hi = above;
	return true;
}

struct foreach_ctx {
	int (*fn)(const struct maptap_vma *vma, void *arg);
	void *arg;
};

static int foreach_one(struct mm_node *node, void *arg)
{
	struct foreach_ctx *c = arg;

	return c->fn(&node->vma, c->arg);
}

int maptap_mm_foreach(const struct maptap_mm *mm, uint64_t lo, uint64_t hi,
		      int (*fn)(const struct maptap_vma *vma, void *arg),
		      void *arg)
{
	struct foreach_ctx c = { fn, arg };

	return mm_tree_walk(mm->tree.root, lo, hi, foreach_one, &c);
}

/* What one refreshed range turns into: the nodes NODES[first..+count)
 * replace every node whose start lies in [ext_lo, ext_hi). */
struct plan {
	uint64_t ext_lo, ext_hi;
	size_t first, count;
};

static int add_spec(struct mm_scratch *s, size_t *n,
		    const struct maptap_vma *src, uint64_t lo, uint64_t hi)
{
	struct mm_piece *sp;

	if (mm_reserve((void **)&s->specs, &s->specs_cap, *n + 1,
		       sizeof(*s->specs)))
		return -ENOMEM;
	sp = &s->specs[(*n)++];
	memset(sp, 0, sizeof(*sp));
	sp->old = src;
	sp->lo = lo;
	sp->hi = hi;
	return 0;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The left edge: the model's node P holding LO - 1, unless it starts
 * before PREV_HI, where the previous range's plan ends (that range keeps
 * P, or what is left of it). */
static int plan_left(struct maptap_mm *mm, const struct mm_range *r,
		     uint64_t prev_hi, const struct maptap_vma *first,
		     size_t *ns, struct plan *pl)
{
	uint64_t lo = r->lo;
	struct mm_node *node = lo ? mm_tree_find(mm->tree.root, lo - 1) : NULL;
	const struct maptap_vma *p = node ? &node->vma : NULL;

	pl->ext_lo = lo;
	if (p && p->start < prev_hi) {
		struct mm_piece *sp = *ns ? &mm->s.specs[*ns - 1] : NULL;

		/* P is the previous range's, whose last piece took it up to
		 * LO as part of FIRST: one kernel VMA across both ranges
		 * and the model's node between them, stored as one node
		 * (the piece goes on; plan_range() skips FIRST). */
		if (first && sp && sp->old == first && sp->hi == lo &&
		    first->start < lo && first->end > lo)
			sp->hi = min64(first->end, r->hi);
		return 0;
	}
	if (!p)
		return 0;
	if (first && first->start <= p->start && first->end > lo &&
	    mm_state_eq(p, lo, first, lo)) {
		/* one kernel VMA across the edge: store it as one node */
		pl->ext_lo = p->start;
		return add_spec(&mm->s, ns, first, p->start,
				min64(first->end, r->hi));
	}
	if (p->end <= lo)
		return 0;
	pl->ext_lo = p->start;
	return add_spec(&mm->s, ns, p, p->start, lo);
}

static int plan_right(struct maptap_mm *mm, uint64_t hi, uint64_t next_lo,
		      const struct maptap_vma *last, size_t *ns,
		      struct plan *pl)
{
	struct mm_node *node = mm_tree_find(mm->tree.root, hi);
	const struct maptap_vma *q = node ? &node->vma : NULL;
	struct mm_scratch *s = &mm->s;

	pl->ext_hi = hi;
	if (!q)
		return 0;
	if (q->end > next_lo) {
		/* Q reaches into the next range, which redoes the rest. */
		if (q->start >= hi)
			return 0;
		return add_spec(s, ns, q, hi, next_lo);
	}
	if (last && *ns > pl->first && s->specs[*ns - 1].old == last &&
	    s->specs[*ns - 1].hi == hi && last->end >= q->end &&
	    mm_state_eq(q, hi, last, hi)) {
		s->specs[*ns - 1].hi = q->end;
		pl->ext_hi = q->end;
		return 0;
	}
	if (q->start >= hi)
		return 0;
	return add_spec(s, ns, q, hi, q->end);
}

static int plan_range(struct maptap_mm *mm, const struct mm_range *r,
		      uint64_t prev_hi, uint64_t next_lo,
		      const struct maptap_vma *new, size_t n, size_t *ns,
		      struct plan *pl)
{
	size_t j = mm_first_after(new, n, r->lo);
	const struct maptap_vma *first = NULL, *last = NULL;
	int rc;

	pl->first = *ns;
	if (j < n && new[j].start < r->hi)
		first = &new[j];
	rc = plan_left(mm, r, prev_hi, first, ns, pl);
	if (rc)
		return rc;
	if (first && *ns && mm->s.specs[*ns - 1].old == first &&
	    (*ns > pl->first || mm->s.specs[*ns - 1].hi > r->lo)) {
		/* merged with the left edge, or with the previous range's
		 * last piece (plan_left()) */
		last = first;
		j++;
	}
	for (; j < n && new[j].start < r->hi; j++) {
		last = &new[j];
		rc = add_spec(&mm->s, ns, last, max64(last->start, r->lo),
			      min64(last->end, r->hi));
		if (rc)
			return rc;
	}
	rc = plan_right(mm, r->hi, next_lo, last, ns, pl);
	pl->count = *ns - pl->first;
	return rc;
}

static void free_nodes(struct mm_node **nodes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(nodes[i]);
}

static int build_nodes(struct maptap_mm *mm, size_t ns)
{
	struct mm_scratch *s = &mm->s;
	size_t i;

	if (mm_reserve((void **)&s->nodes, &s->nodes_cap, ns,
		       sizeof(*s->nodes)))
		return -ENOMEM;
	for (i = 0; i < ns; i++) {
		s->nodes[i] = mm_node_new(&mm->tree, s->specs[i].old,
					  s->specs[i].lo, s->specs[i].hi);
		if (!s->nodes[i]) {
			free_nodes(s->nodes, i);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Swap the planned nodes in; returns the subtree of nodes taken out. */
static struct mm_node *commit_range(struct maptap_mm *mm,
				    const struct plan *pl)
{
	struct mm_node *l, *mid, *r, *rest;
	size_t i;

	mm_tree_split(mm->tree.root, pl->ext_lo, &l, &rest);
	mm_tree_split(rest, pl->ext_hi, &mid, &r);
	for (i = 0; i < pl->count; i++)
		l = mm_tree_join(l, mm->s.nodes[pl->first + i]);
	mm->tree.root = mm_tree_join(l, r);
	mm->tree.n += pl->count;
	return mid;
}

static int check_sorted(const struct maptap_vma *new, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (new[i].start >= new[i].end)
			return -EINVAL;
		if (i && new[i - 1].end > new[i].start)
			return -EINVAL;
	}
	return 0;
}

static int deliver(const struct mm_scratch *s, maptap_event_fn fn, void *arg)
{
	size_t i;
	int rc;

	if (!fn)
		return 0;
	for (i = 0; i < s->n_ev; i++) {
		rc = fn(&s->ev[i], arg);
		if (rc)
			return rc;
	}
	return 0;
}

static int update(struct maptap_mm *mm, const struct mm_range *r, size_t nr,
		  const struct maptap_vma *new, size_t n,
		  const struct maptap_mm_hint *hint, maptap_event_fn fn,
		  void *arg)
{
	static const struct maptap_mm_hint no_hint = { .syscall_nr = -1 };
	struct plan pl[2];
	struct mm_node *gone[2];
	size_t i, ns = 0;
	int rc;

	rc = check_sorted(new, n);
	if (rc)
		return rc;
	rc = mm_diff(mm, r, nr, new, n, hint ? hint : &no_hint);
	if (rc)
		return rc;
	/* The left edge of a range stops where the range before it has
	 * taken the model's nodes to (pl[i - 1].ext_hi), not at its end:
	 * a node between the two, merged into the first range's last
	 * piece, was taken by the second range's first piece as well, and
	 * the model held two overlapping nodes (fuzz-maps.sh's crash). */
	for (i = 0; i < nr && !rc; i++)
		rc = plan_range(mm, &r[i], i ? pl[i - 1].ext_hi : 0,
				i + 1 < nr ? r[i + 1].lo : UINT64_MAX,
				new, n, &ns, &pl[i]);
	if (rc || (rc = build_nodes(mm, ns)))
		return rc;
	rc = deliver(&mm->s, fn, arg);
	for (i = 0; i < nr; i++)
		gone[i] = commit_range(mm, &pl[i]);
	for (i = 0; i < nr; i++)
		mm->tree.n -= mm_tree_release(&mm->tree, gone[i]);
	return rc;
}

int maptap_mm_update(struct maptap_mm *mm, uint64_t lo, uint64_t hi,
		     const struct maptap_vma *new, size_t n,
		     const struct maptap_mm_hint *hint,
		     maptap_event_fn fn, void *arg)
{
	struct mm_range r = { lo, hi };

	if (lo > hi)
		return -EINVAL;
	return update(mm, &r, lo < hi, new, n, hint, fn, arg);
}

int maptap_mm_update2(struct maptap_mm *mm, uint64_t lo1, uint64_t hi1,
		      uint64_t lo2, uint64_t hi2,
		      const struct maptap_vma *new, size_t n,
		      const struct maptap_mm_hint *hint,
		      maptap_event_fn fn, void *arg)
{
	struct mm_range r[2] = { { lo1, hi1 }, { lo2, hi2 } };
	size_t nr = 0, i;
	struct mm_range t;

	if (lo1 > hi1 || lo2 > hi2)
		return -EINVAL;
	if (r[0].lo > r[1].lo) {
		t = r[0];
		r[0] = r[1];
		r[1] = t;
	}
	if (r[0].lo < r[0].hi && r[1].lo < r[1].hi && r[1].lo < r[0].hi)
		return -EINVAL;
	/* Drop empty ranges; touching ones are one range. */
	for (i = 0; i < 2; i++) {
		if (r[i].lo == r[i].hi)
			continue;
		if (nr && r[nr - 1].hi == r[i].lo)
			r[nr - 1].hi = r[i].hi;
		else
			r[nr++] = r[i];
	}
	return update(mm, r, nr, new, n, hint, fn, arg);
}

struct verify {
	void (*report)(uint64_t lo, uint64_t hi, const struct maptap_vma *model,
		       const struct maptap_vma *kernel, void *arg);
	void *arg;
	size_t count;
	bool open;		/* a differing run is pending */
	uint64_t lo, hi;
	const struct maptap_vma *m, *k;
};

static bool same_or_both_null(const struct maptap_vma *a,
			      const struct maptap_vma *b, uint64_t at)
{
	struct maptap_vma an, bn;

	if (!a || !b)
		return !a && !b;
	if (!a->inode || !b->inode || !mm_backing_eq(a, at, b, at))
		return mm_state_eq(a, at, b, at);
	/* One file at one offset: its path is not part of the mapping.
	 * The kernel prints the file's name as it is when maps is read
	 * (d_path() in fs/proc/task_mmu.c), so a rename or an unlink of
	 * a mapped file ("(deleted)") changes maps with no system call of
	 * the process's; the model keeps the name it saw at the call. */
	an = *a;
	bn = *b;
	an.name = bn.name = "";
	an.name_len = bn.name_len = 0;
	return mm_state_eq(&an, at, &bn, at);
}

static void verify_flush(struct verify *v)
{
	struct maptap_vma m = { 0 }, k = { 0 };

	if (!v->open)
		return;
	v->open = false;
	v->count++;
	if (!v->report)
		return;
	if (v->m)
		m = mm_vma_at(v->m, v->lo, v->hi);
	if (v->k)
		k = mm_vma_at(v->k, v->lo, v->hi);
	v->report(v->lo, v->hi, v->m ? &m : NULL, v->k ? &k : NULL, v->arg);
}

static int verify_piece(uint64_t lo, uint64_t hi, const struct maptap_vma *o,
			const struct maptap_vma *n, void *arg)
{
	struct verify *v = arg;

	if (same_or_both_null(o, n, lo)) {
		verify_flush(v);
		return 0;
	}
	if (v->open && v->hi == lo && same_or_both_null(v->m, o, lo) &&
	    same_or_both_null(v->k, n, lo)) {
		v->hi = hi;
		return 0;
	}
	verify_flush(v);
	*v = (struct verify){ v->report, v->arg, v->count, true, lo, hi, o, n };
	return 0;
}

static int collect(struct mm_node *node, void *arg)
{
	const struct maptap_vma ***p = arg;

	*(*p)++ = &node->vma;
	return 0;
}

static int count_node(struct mm_node *node, void *arg)
{
	(void)node;
	++*(size_t *)arg;
	return 0;
}

size_t maptap_mm_verify_range(const struct maptap_mm *mm, uint64_t lo,
			      uint64_t hi, const struct maptap_vma *actual,
			      size_t n,
			      void (*report)(uint64_t lo, uint64_t hi,
					     const struct maptap_vma *model,
					     const struct maptap_vma *kernel,
					     void *arg),
			      void *arg)
{
	const struct maptap_vma **all, **p;
	struct verify v = { .report = report, .arg = arg };
	size_t k = 0, first;

	if (lo >= hi)
		return 0;
	/* A walk to count, one to collect: the nodes in range only, so
	 * the cost is O(log n + k), not the model's size. */
	if (lo == 0 && hi == UINT64_MAX)
		k = mm->tree.n;
	else
		mm_tree_walk(mm->tree.root, lo, hi, count_node, &k);
	all = malloc((k + 1) * sizeof(*all));
	if (!all)
		return SIZE_MAX;
	p = all;
	mm_tree_walk(mm->tree.root, lo, hi, collect, &p);
	first = n ? mm_first_after(actual, n, lo) : 0;
	/* ACTUAL may be NULL with N 0 (the kernel has nothing there). */
	mm_sweep(lo, hi, all, (size_t)(p - all), n ? actual + first : actual,
		 n - first, NULL, 0, verify_piece, &v);
	verify_flush(&v);
	free(all);
	return v.count;
}

size_t maptap_mm_verify(const struct maptap_mm *mm,
			const struct maptap_vma *actual, size_t n,
			void (*report)(uint64_t lo, uint64_t hi,
				       const struct maptap_vma *model,
				       const struct maptap_vma *kernel,
				       void *arg),
			void *arg)
{
	return maptap_mm_verify_range(mm, 0, UINT64_MAX, actual, n, report,
				      arg);
}
