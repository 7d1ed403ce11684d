/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report_imap.c -- the report's per-process interval map: every mapped
 * byte range carries (site, class).
 *
 * A treap keyed by start (a search tree whose nodes are also a heap on
 * random priorities) with split and join: every operation is "cut the
 * nodes that straddle S and E, split the range out, change it, join it
 * back", O(log n + k) expected for k nodes in the range.  A process may
 * hold 10^5 ranges and a mapping loop calls us per event, so nothing
 * here is linear in the map (bench/report measures it).  Spare nodes are
 * kept on a free list: most events take as many nodes as they give back.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>

#include "report_priv.h"

void rp_map_init(struct rp_map *m, uint64_t seed)
{
	m->root = NULL;
	m->n = 0;
	m->bytes = 0;
	m->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
	m->free = NULL;
	m->nfree = 0;
	m->flat_nodes = 0;
}

static void destroy(struct rp_node *t)
{
	while (t) {
		struct rp_node *r = t->r;

		destroy(t->l);
		free(t);
		t = r;
	}
}

void rp_map_free(struct rp_map *m)
{
	struct rp_node *f = m->free;

	destroy(m->root);
	while (f) {
		struct rp_node *next = f->r;

		free(f);
		f = next;
	}
	rp_map_init(m, m->rng);
}

static uint32_t next_prio(struct rp_map *m)
{
	uint64_t x = m->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	m->rng = x;
	return (uint32_t)(x >> 32);
}

/* Make sure K nodes are spare, so that what follows cannot fail. */
static int reserve(struct rp_map *m, size_t k)
{
	while (m->nfree < k) {
		struct rp_node *n = malloc(sizeof(*n));

		if (!n)
			return -ENOMEM;
		n->r = m->free;
		m->free = n;
		m->nfree++;
	}
	return 0;
}

static struct rp_node *take(struct rp_map *m, uint64_t s, uint64_t e,
			    uint32_t site, uint32_t cls)
{
	struct rp_node *n = m->free;

	m->free = n->r;
	m->nfree--;
	n->start = s;
	n->end = e;
	n->site = site;
	n->cls = cls;
	n->prio = next_prio(m);
	n->l = n->r = NULL;
	m->n++;
	m->bytes += e - s;
	return n;
}

static void give(struct rp_map *m, struct rp_node *n)
{
	m->n--;
	m->bytes -= n->end - n->start;
	n->l = NULL;
	n->r = m->free;
	m->free = n;
	m->nfree++;
}

/* Nodes with start < KEY go to *L, the others to *R. */
static void split(struct rp_node *t, uint64_t key, struct rp_node **l,
		  struct rp_node **r)
{
	if (!t) {
		*l = *r = NULL;
	} else if (t->start < key) {
		split(t->r, key, &t->r, r);
		*l = t;
	} else {
		split(t->l, key, l, &t->l);
		*r = t;
	}
}

/* Every start in L is below every start in R. */
static struct rp_node *join(struct rp_node *l, struct rp_node *r)
{
	if (!l)
		return r;
	if (!r)
		return l;
	if (l->prio > r->prio) {
		l->r = join(l->r, r);
		return l;
	}
	r->l = join(l, r->l);
	return r;
}

static struct rp_node *find(struct rp_node *t, uint64_t addr)
{
	while (t) {
		if (addr < t->start)
			t = t->l;
		else if (addr >= t->end)
			t = t->r;
		else
			return t;
	}
	return NULL;
}

/* A node straddling ADDR becomes two that meet there.  Takes one spare
 * node at most. */
static void cut(struct rp_map *m, uint64_t addr)
{
	struct rp_node *t = find(m->root, addr), *n, *l, *r;
	uint64_t end;

	if (!t || t->start == addr)
		return;
	end = t->end;
	m->bytes -= end - addr;
	t->end = addr;
	n = take(m, addr, end, t->site, t->cls);
	split(m->root, addr, &l, &r);
	m->root = join(join(l, n), r);
}

/* Take [S, E) out of the tree: *L, *MID, *R.  The caller joins back. */
static void carve(struct rp_map *m, uint64_t s, uint64_t e,
		  struct rp_node **l, struct rp_node **mid, struct rp_node **r)
{
	struct rp_node *rest;

	cut(m, s);
	cut(m, e);
	split(m->root, s, l, &rest);
	split(rest, e, mid, r);
	m->root = NULL;
}

/* Give back every node of T, telling GONE. */
static void drain(struct rp_map *m, struct rp_node *t, rp_gone_fn gone,
		  void *arg)
{
	while (t) {
		struct rp_node *r = t->r;

		drain(m, t->l, gone, arg);
		if (gone)
			gone(arg, t->site, t->end - t->start);
		give(m, t);
		t = r;
	}
}

static struct rp_node *max_node(struct rp_node *t)
{
	while (t && t->r)
		t = t->r;
	return t;
}

/* Unlink and return the first node of *T. */
static struct rp_node *pop_min(struct rp_node **t)
{
	struct rp_node *n;

	while ((*t)->l)
		t = &(*t)->l;
	n = *t;
	*t = n->r;
	n->r = NULL;
	return n;
}

int rp_map_assign(struct rp_map *m, uint64_t s, uint64_t e, uint32_t site,
		  uint32_t cls, rp_gone_fn gone, void *arg)
{
	struct rp_node *l, *mid, *r, *prev, *n = NULL;

	if (s >= e)
		return 0;
	if (reserve(m, 3) != 0)
		return -ENOMEM;
	carve(m, s, e, &l, &mid, &r);
	drain(m, mid, gone, arg);
	prev = max_node(l);
	if (prev && prev->end == s && prev->site == site && prev->cls == cls) {
		prev->end = e;
		m->bytes += e - s;
	} else {
		n = take(m, s, e, site, cls);
		prev = n;
	}
	if (r) {
		struct rp_node *next = r;

		while (next->l)
			next = next->l;
		if (next->start == e && next->site == site &&
		    next->cls == cls) {
			next = pop_min(&r);
			prev->end = next->end;
			m->bytes += next->end - next->start;
			give(m, next);
		}
	}
	m->root = join(join(l, n), r);
	return 0;
}

int rp_map_erase(struct rp_map *m, uint64_t s, uint64_t e, rp_gone_fn gone,
		 void *arg)
{
	struct rp_node *l, *mid, *r;

	if (s >= e)
		return 0;
	if (reserve(m, 2) != 0)
		return -ENOMEM;
	carve(m, s, e, &l, &mid, &r);
	drain(m, mid, gone, arg);
	m->root = join(l, r);
	return 0;
}

static void set_cls(struct rp_node *t, uint32_t cls)
{
	while (t) {
		set_cls(t->l, cls);
		t->cls = cls;
		t = t->r;
	}
}

int rp_map_reclass(struct rp_map *m, uint64_t s, uint64_t e, uint32_t cls)
{
	struct rp_node *l, *mid, *r;

	if (s >= e)
		return 0;
	if (reserve(m, 2) != 0)
		return -ENOMEM;
	carve(m, s, e, &l, &mid, &r);
	set_cls(mid, cls);
	m->root = join(join(l, mid), r);
	return 0;
}

/* Nodes of T in order into V (counted by *N). */
static void flatten(struct rp_node *t, struct rp_node **v, size_t *n)
{
	while (t) {
		flatten(t->l, v, n);
		v[(*n)++] = t;
		t = t->r;
	}
}

static size_t count(const struct rp_node *t)
{
	size_t n = 0;

	while (t) {
		n += 1 + count(t->l);
		t = t->r;
	}
	return n;
}

/* Snapshots (attach, exec, fork) come one VMA per event, so the range
 * holds a node or two: a flat copy of it is fine. */
int rp_map_fill(struct rp_map *m, uint64_t s, uint64_t e, uint32_t site,
		uint32_t cls, uint64_t *added)
{
	struct rp_node *l, *mid, *r, **v, *out = NULL;
	size_t n = 0, i, k;
	uint64_t at = s;

	*added = 0;
	if (s >= e)
		return 0;
	if (reserve(m, 2) != 0)
		return -ENOMEM;
	carve(m, s, e, &l, &mid, &r);
	/* The cuts changed nothing but node bounds: on failure, join back
	 * and the map means what it meant. */
	k = count(mid);
	m->flat_nodes += k;
	v = malloc((k + 1) * sizeof(*v));
	if (!v || reserve(m, k + 1) != 0) {
		free(v);
		m->root = join(join(l, mid), r);
		return -ENOMEM;
	}
	flatten(mid, v, &n);
	for (i = 0; i <= n; i++) {
		uint64_t next = i < n ? v[i]->start : e;

		if (next > at) {
			out = join(out, take(m, at, next, site, cls));
			*added += next - at;
		}
		if (i == n)
			break;
		v[i]->cls = cls;
		v[i]->l = v[i]->r = NULL;
		out = join(out, v[i]);
		at = v[i]->end;
	}
	free(v);
	m->root = join(join(l, out), r);
	return 0;
}

static void shift(struct rp_node *t, uint64_t delta, uint32_t cls)
{
	while (t) {
		shift(t->l, delta, cls);
		t->start += delta;
		t->end += delta;
		t->cls = cls;
		t = t->r;
	}
}

int rp_map_move(struct rp_map *m, uint64_t os, uint64_t oe, uint64_t ns,
		uint64_t ne, uint32_t site, uint32_t cls, rp_gone_fn gone,
		void *arg, uint64_t *added)
{
	uint64_t olen = oe - os, nlen = ne - ns, keep;
	struct rp_node *l, *mid, *r;
	int err;

	*added = 0;
	if (oe < os || ne < ns)
		return -EINVAL;
	/* erase 2, carve 2, erase 2, assign 3: nothing below can fail */
	if (reserve(m, 9) != 0)
		return -ENOMEM;
	keep = olen < nlen ? olen : nlen;
	err = rp_map_erase(m, os + keep, oe, gone, arg);
	if (err)
		return err;
	carve(m, os, os + keep, &l, &mid, &r);
	m->root = join(l, r);
	/* MID still counts in N and BYTES, and is out of the tree while
	 * the destination is cleared: GONE hears only of what was there. */
	shift(mid, ns - os, cls);
	rp_map_erase(m, ns, ne, gone, arg);
	split(m->root, ns, &l, &r);
	m->root = join(join(l, mid), r);
	if (nlen > olen) {
		rp_map_assign(m, ns + olen, ne, site, cls, gone, arg);
		*added = nlen - olen;
	}
	return 0;
}

static struct rp_node *copy(const struct rp_node *t, uint32_t site, int *err)
{
	struct rp_node *n;

	if (!t)
		return NULL;
	n = malloc(sizeof(*n));
	if (!n) {
		*err = -ENOMEM;
		return NULL;
	}
	*n = *t;
	n->site = site;
	n->l = copy(t->l, site, err);
	n->r = copy(t->r, site, err);
	if (*err) {
		destroy(n->l);
		destroy(n->r);
		free(n);
		return NULL;
	}
	return n;
}

int rp_map_copy(struct rp_map *dst, const struct rp_map *src, uint32_t site)
{
	int err = 0;

	dst->root = copy(src->root, site, &err);
	if (err)
		return err;
	dst->n = src->n;
	dst->bytes = src->bytes;
	return 0;
}

static void walk(const struct rp_node *t,
		 void (*fn)(void *arg, const struct rp_node *n), void *arg)
{
	while (t) {
		walk(t->l, fn, arg);
		fn(arg, t);
		t = t->r;
	}
}

void rp_map_walk(const struct rp_map *m,
		 void (*fn)(void *arg, const struct rp_node *n), void *arg)
{
	walk(m->root, fn, arg);
}
