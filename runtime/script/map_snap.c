/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* map_snap.c -- foreach over an associative array: filter by a slice,
 * sort by a key column or the value, cut at the limit.
 *
 * The sort is a merge sort over the elements in insertion order, so it
 * is stable: elements that compare equal keep the order in which they
 * were added, which is what stap's runtime (a stable list sort over its
 * element list) shows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "map_priv.h"

struct sort_key {
	const struct maptap_script_map *m;
	unsigned column;
	int dir;
	enum maptap_script_stat_op op;
};

static int cmp_long(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_str(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c)
		return c;
	return cmp_long(alen, blen);
}

static int64_t stat_value(const struct maptap_script_stat *st,
			  enum maptap_script_stat_op op)
{
	int64_t v = 0;

	/* an element of a stats array holds at least one value, so only
	 * an unknown OP can fail; it sorts as 0 */
	if (maptap_script_stat_get(st, op, &v, NULL))
		return 0;
	return v;
}

static int compare(const struct sort_key *k,
		   const struct maptap_script_entry *a,
		   const struct maptap_script_entry *b)
{
	const struct maptap_script_map *m = k->m;
	int c;

	if (k->column > 0) {
		unsigned i = k->column - 1;

		if (m->desc.key_types[i] == MAPTAP_SCRIPT_LONG)
			c = cmp_long(a->keys[i].l, b->keys[i].l);
		else
			c = cmp_str(a->keys[i].s.p, a->keys[i].s.len,
				    b->keys[i].s.p, b->keys[i].s.len);
	} else if (m->desc.value_type == MAPTAP_SCRIPT_LONG) {
		c = cmp_long(a->val.l, b->val.l);
	} else if (m->desc.value_type == MAPTAP_SCRIPT_STRING) {
		c = cmp_str(a->val.s.p ? a->val.s.p : "", a->val.s.len,
			    b->val.s.p ? b->val.s.p : "", b->val.s.len);
	} else {
		c = cmp_long(stat_value(a->val.stat, k->op),
			     stat_value(b->val.stat, k->op));
	}
	return c * k->dir;
}

/* Stable merge sort of E[0..N) using TMP[0..N) as scratch. */
static void merge_sort(const struct sort_key *k, struct maptap_script_entry **e,
		       struct maptap_script_entry **tmp, size_t n)
{
	size_t mid = n / 2, i = 0, j = mid, o = 0;

	if (n < 2)
		return;
	merge_sort(k, e, tmp, mid);
	merge_sort(k, e + mid, tmp, n - mid);
	if (compare(k, e[mid - 1], e[mid]) <= 0)
		return;	/* in order already, as sorted input is */
	while (i < mid && j < n)
		tmp[o++] = compare(k, e[j], e[i]) < 0 ? e[j++] : e[i++];
	while (i < mid)
		tmp[o++] = e[i++];
	while (j < n)
		tmp[o++] = e[j++];
	memcpy(e, tmp, n * sizeof(*e));
}

static bool filter_ok(const struct maptap_script_map *m,
		      const struct maptap_script_value *filter)
{
	unsigned i;

	for (i = 0; i < m->desc.nkeys; i++)
		if (filter[i].type != MAPTAP_SCRIPT_ANY &&
		    filter[i].type != m->desc.key_types[i])
			return false;
	return true;
}

static bool matches(const struct maptap_script_map *m,
		    const struct maptap_script_entry *e,
		    const struct maptap_script_value *filter)
{
	unsigned i;

	for (i = 0; i < m->desc.nkeys; i++) {
		const struct maptap_script_value *f = &filter[i];

		if (f->type == MAPTAP_SCRIPT_LONG && e->keys[i].l != f->u.l)
			return false;
		if (f->type == MAPTAP_SCRIPT_STRING &&
		    cmp_str(e->keys[i].s.p, e->keys[i].s.len,
			    f->u.s.p, f->u.s.len))
			return false;
	}
	return true;
}

static int sort_snap(struct maptap_script_snap *s,
		     const struct maptap_script_sort *sort)
{
	struct sort_key k = {
		.m = s->map,
		.column = sort->column,
		.dir = sort->dir > 0 ? 1 : -1,
		.op = sort->stat_op,
	};
	struct maptap_script_entry **tmp;

	if (s->n < 2)
		return 0;
	tmp = malloc(s->n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	merge_sort(&k, s->e, tmp, s->n);
	free(tmp);
	return 0;
}

int maptap_script_map_snapshot(struct maptap_script_map *m,
			       const struct maptap_script_sort *sort,
			       const struct maptap_script_value *filter,
			       struct maptap_script_snap **out)
{
	struct maptap_script_sort none = MAPTAP_SCRIPT_SORT_NONE;
	struct maptap_script_snap *s;
	struct maptap_script_entry *e;

	if (!sort)
		sort = &none;
	if ((sort->dir && sort->column > m->desc.nkeys) ||
	    (filter && !filter_ok(m, filter)))
		return -EINVAL;
	s = malloc(sizeof(*s) + m->size * sizeof(s->e[0]));
	if (!s)
		return -ENOMEM;
	s->map = m;
	s->n = 0;
	for (e = m->oldest; e; e = e->next)
		if (!filter || matches(m, e, filter))
			s->e[s->n++] = e;
	if (sort->dir && sort_snap(s, sort)) {
		free(s);
		return -ENOMEM;
	}
	if (sort->limit >= 0 && (uint64_t)sort->limit < s->n)
		s->n = sort->limit;
	m->nsnap++;
	*out = s;
	return 0;
}

size_t maptap_script_snap_len(const struct maptap_script_snap *s)
{
	return s->n;
}

const struct maptap_script_entry *
maptap_script_snap_at(const struct maptap_script_snap *s, size_t i)
{
	return s->e[i];
}

void maptap_script_snap_free(struct maptap_script_snap *s)
{
	if (!s)
		return;
	if (--s->map->nsnap == 0)
		maptap_script_map_reap(s->map);
	free(s);
}
