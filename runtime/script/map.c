/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* map.c -- associative arrays: a chained hash table plus an insertion
 * order list, as script_map.h describes.
 *
 * One allocation per element holds the element's links, its key tuple,
 * the bytes of its string keys and, for stats arrays, its aggregate, so
 * that a new element costs one malloc and a lookup touches one cache
 * line or two.  String values live in a separate buffer that is reused
 * while the new value fits, because they change size.
 *
 * Elements deleted while a snapshot (a running foreach) may still hand
 * them out are unlinked at once but freed only when the last snapshot
 * goes: the foreach then still reads valid keys.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <maptap/script_map.h>

#include "map_priv.h"
#include "../common/hash.h"

#define INITIAL_BUCKETS 16


/* A cheap, not well mixed hash of a string key: eight bytes per
 * multiply; hash_keys() mixes the whole tuple once at the end. */
static uint64_t hash_bytes(const char *p, size_t len)
{
	uint64_t h = len * 0x9e3779b97f4a7c15ULL, w;
	size_t i;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 32;
	}
	if (len) {
		w = 0;
		for (i = 0; i < len; i++)
			w |= (uint64_t)(unsigned char)p[i] << (8 * i);
		h = (h ^ w) * 0x100000001b3ULL;
	}
	return h;
}

static uint64_t hash_keys(const struct maptap_script_map *m,
			  const struct maptap_script_value *keys)
{
	uint64_t h = m->desc.nkeys;
	unsigned i;

	for (i = 0; i < m->desc.nkeys; i++) {
		uint64_t k;

		if (keys[i].type == MAPTAP_SCRIPT_LONG)
			k = (uint64_t)keys[i].u.l;
		else
			k = hash_bytes(keys[i].u.s.p, keys[i].u.s.len);
		h = (h ^ k) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	return mt_hash64(h);
}

/* Whether KEYS suit M's key types; WILD allows the slice wildcard. */
static bool keys_ok(const struct maptap_script_map *m,
		    const struct maptap_script_value *keys, bool wild)
{
	unsigned i;

	for (i = 0; i < m->desc.nkeys; i++) {
		if (keys[i].type == m->desc.key_types[i])
			continue;
		if (!(wild && keys[i].type == MAPTAP_SCRIPT_ANY))
			return false;
	}
	return true;
}

static bool has_wildcard(const struct maptap_script_map *m,
			 const struct maptap_script_value *keys)
{
	unsigned i;

	for (i = 0; i < m->desc.nkeys; i++)
		if (keys[i].type == MAPTAP_SCRIPT_ANY)
			return true;
	return false;
}

/* Whether E's keys equal KEYS; wildcards in KEYS match anything. */
static bool keys_match(const struct maptap_script_map *m,
		       const struct maptap_script_entry *e,
		       const struct maptap_script_value *keys)
{
	unsigned i;

	for (i = 0; i < m->desc.nkeys; i++) {
		const struct maptap_script_value *k = &keys[i];

		if (k->type == MAPTAP_SCRIPT_LONG) {
			if (e->keys[i].l != k->u.l)
				return false;
		} else if (k->type == MAPTAP_SCRIPT_STRING) {
			if (e->keys[i].s.len != k->u.s.len ||
			    memcmp(e->keys[i].s.p, k->u.s.p, k->u.s.len))
				return false;
		}
	}
	return true;
}

static struct maptap_script_entry *
lookup(const struct maptap_script_map *m,
       const struct maptap_script_value *keys, uint64_t hash)
{
	struct maptap_script_entry *e = m->buckets[hash & m->mask];

	for (; e; e = e->hnext)
		if (e->hash == hash && keys_match(m, e, keys))
			return e;
	return NULL;
}

static bool desc_ok(const struct maptap_script_map_desc *d)
{
	unsigned i;

	if (d->nkeys < 1 || d->nkeys > MAPTAP_SCRIPT_MAX_KEYS)
		return false;
	for (i = 0; i < d->nkeys; i++)
		if (d->key_types[i] != MAPTAP_SCRIPT_LONG &&
		    d->key_types[i] != MAPTAP_SCRIPT_STRING)
			return false;
	if (d->value_type != MAPTAP_SCRIPT_LONG &&
	    d->value_type != MAPTAP_SCRIPT_STRING &&
	    d->value_type != MAPTAP_SCRIPT_STATS)
		return false;
	return d->max_entries > 0;
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

int maptap_script_map_new(const struct maptap_script_map_desc *desc,
			  struct maptap_script_map **out,
			  struct maptap_script_error *err)
{
	struct maptap_script_map *m;
	int rc;

	if (!desc_ok(desc))
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_ARG,
				"invalid array description");
	if (desc->value_type == MAPTAP_SCRIPT_STATS) {
		rc = maptap_script_stat_desc_check(&desc->stat, err);
		if (rc < 0)
			return rc;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		goto nomem;
	m->desc = *desc;
	m->buckets = calloc(INITIAL_BUCKETS, sizeof(*m->buckets));
	m->mask = INITIAL_BUCKETS - 1;
	m->stat_off = align8(sizeof(struct maptap_script_entry) +
			     desc->nkeys * sizeof(union key));
	if (desc->value_type == MAPTAP_SCRIPT_STATS) {
		m->empty_stat = malloc(maptap_script_stat_size(&m->desc.stat));
		if (m->empty_stat)
			maptap_script_stat_init(m->empty_stat, &m->desc.stat);
	}
	if (!m->buckets ||
	    (desc->value_type == MAPTAP_SCRIPT_STATS && !m->empty_stat)) {
		maptap_script_map_free(m);
		goto nomem;
	}
	*out = m;
	return 0;
nomem:
	return maptap_script_error_set(err, MAPTAP_SCRIPT_E_NOMEM,
				       "out of memory");
}

static void entry_free(const struct maptap_script_map *m,
		       struct maptap_script_entry *e)
{
	if (m->desc.value_type == MAPTAP_SCRIPT_STRING)
		free(e->val.s.p);
	free(e);
}

void maptap_script_map_reap(struct maptap_script_map *m)
{
	struct maptap_script_entry *e, *next;

	for (e = m->graveyard; e; e = next) {
		next = e->hnext;
		entry_free(m, e);
	}
	m->graveyard = NULL;
}

void maptap_script_map_free(struct maptap_script_map *m)
{
	if (!m)
		return;
	maptap_script_map_clear(m);
	maptap_script_map_reap(m);
	free(m->buckets);
	free(m->empty_stat);
	free(m);
}

const struct maptap_script_map_desc *
maptap_script_map_desc(const struct maptap_script_map *m)
{
	return &m->desc;
}

size_t maptap_script_map_size(const struct maptap_script_map *m)
{
	return m->size;
}

/* Take E out of the hash chain and the order list, and free it or, while
 * snapshots may hold it, park it in the graveyard. */
static void unlink_entry(struct maptap_script_map *m,
			 struct maptap_script_entry *e)
{
	struct maptap_script_entry **pp = &m->buckets[e->hash & m->mask];

	while (*pp != e)
		pp = &(*pp)->hnext;
	*pp = e->hnext;
	if (e->prev)
		e->prev->next = e->next;
	else
		m->oldest = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		m->newest = e->prev;
	m->size--;
	e->dead = true;
	if (m->nsnap) {
		e->hnext = m->graveyard;
		m->graveyard = e;
	} else {
		entry_free(m, e);
	}
}

static int grow(struct maptap_script_map *m)
{
	size_t n = (m->mask + 1) * 2, i;
	struct maptap_script_entry **b, *e, *next;

	b = calloc(n, sizeof(*b));
	if (!b)
		return -ENOMEM;
	for (i = 0; i <= m->mask; i++) {
		for (e = m->buckets[i]; e; e = next) {
			next = e->hnext;
			e->hnext = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	}
	free(m->buckets);
	m->buckets = b;
	m->mask = n - 1;
	return 0;
}

static struct maptap_script_entry *
entry_alloc(const struct maptap_script_map *m,
	    const struct maptap_script_value *keys)
{
	struct maptap_script_entry *e;
	size_t size = m->stat_off, str_off, i;
	char *strs;

	if (m->desc.value_type == MAPTAP_SCRIPT_STATS)
		size += maptap_script_stat_size(&m->desc.stat);
	str_off = size = align8(size);
	for (i = 0; i < m->desc.nkeys; i++)
		if (keys[i].type == MAPTAP_SCRIPT_STRING)
			size += keys[i].u.s.len + 1;
	e = malloc(size);
	if (!e)
		return NULL;
	memset(e, 0, m->stat_off);
	strs = (char *)e + str_off;
	for (i = 0; i < m->desc.nkeys; i++) {
		if (keys[i].type == MAPTAP_SCRIPT_LONG) {
			e->keys[i].l = keys[i].u.l;
			continue;
		}
		memcpy(strs, keys[i].u.s.p, keys[i].u.s.len);
		strs[keys[i].u.s.len] = '\0';
		e->keys[i].s.p = strs;
		e->keys[i].s.len = keys[i].u.s.len;
		strs += keys[i].u.s.len + 1;
	}
	if (m->desc.value_type == MAPTAP_SCRIPT_STATS) {
		e->val.stat = (struct maptap_script_stat *)
			      ((char *)e + m->stat_off);
		maptap_script_stat_init(e->val.stat, &m->desc.stat);
	}
	e->map = m;
	return e;
}

static void link_entry(struct maptap_script_map *m,
		       struct maptap_script_entry *e, uint64_t hash)
{
	size_t b = hash & m->mask;

	e->hash = hash;
	e->hnext = m->buckets[b];
	m->buckets[b] = e;
	e->prev = m->newest;
	e->next = NULL;
	if (m->newest)
		m->newest->next = e;
	else
		m->oldest = e;
	m->newest = e;
	m->size++;
}

/* Find M[KEYS] or create it; the one place MAXMAPENTRIES is enforced. */
static int find_or_create(struct maptap_script_map *m,
			  const struct maptap_script_value *keys,
			  struct maptap_script_entry **out,
			  struct maptap_script_error *err)
{
	uint64_t hash = hash_keys(m, keys);
	struct maptap_script_entry *e = lookup(m, keys, hash);

	if (e) {
		*out = e;
		return 0;
	}
	if (m->size >= m->desc.max_entries) {
		if (!m->desc.wrap)
			return maptap_script_error_set(err,
					MAPTAP_SCRIPT_E_OVERFLOW,
					"Array overflow, check MAXMAPENTRIES");
		unlink_entry(m, m->oldest);
	}
	/* a failed grow only lengthens the chains: insert anyway */
	if (m->size >= m->mask + 1)
		grow(m);
	e = entry_alloc(m, keys);
	if (!e)
		goto nomem;
	link_entry(m, e, hash);
	*out = e;
	return 0;
nomem:
	return maptap_script_error_set(err, MAPTAP_SCRIPT_E_NOMEM,
				       "out of memory");
}

static struct maptap_script_value
entry_value(const struct maptap_script_map *m,
	    const struct maptap_script_entry *e)
{
	struct maptap_script_value v = { .type = m->desc.value_type };

	if (v.type == MAPTAP_SCRIPT_LONG) {
		v.u.l = e->val.l;
	} else if (v.type == MAPTAP_SCRIPT_STRING) {
		v.u.s.p = e->val.s.p ? e->val.s.p : "";
		v.u.s.len = e->val.s.len;
	} else {
		v.u.stat = e->val.stat;
	}
	return v;
}

int maptap_script_map_get(const struct maptap_script_map *m,
			  const struct maptap_script_value *keys,
			  struct maptap_script_value *out)
{
	struct maptap_script_entry *e;

	if (!keys_ok(m, keys, false))
		return -EINVAL;
	e = lookup(m, keys, hash_keys(m, keys));
	if (e) {
		*out = entry_value(m, e);
		return 1;
	}
	out->type = m->desc.value_type;
	if (out->type == MAPTAP_SCRIPT_LONG) {
		out->u.l = 0;
	} else if (out->type == MAPTAP_SCRIPT_STRING) {
		out->u.s.p = "";
		out->u.s.len = 0;
	} else {
		out->u.stat = m->empty_stat;
	}
	return 0;
}

static int set_string(struct maptap_script_entry *e, const char *p, size_t len)
{
	char *s = e->val.s.p;

	if (len + 1 > e->val.s.cap) {
		s = realloc(s, len + 1);
		if (!s)
			return -ENOMEM;
		e->val.s.p = s;
		e->val.s.cap = len + 1;
	}
	memcpy(s, p, len);
	s[len] = '\0';
	e->val.s.len = len;
	return 0;
}

int maptap_script_map_set(struct maptap_script_map *m,
			  const struct maptap_script_value *keys,
			  const struct maptap_script_value *v,
			  struct maptap_script_error *err)
{
	struct maptap_script_entry *e;
	int rc;

	if (!keys_ok(m, keys, false) || v->type != m->desc.value_type ||
	    v->type == MAPTAP_SCRIPT_STATS)
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_ARG,
				"array key or value of the wrong type");
	rc = find_or_create(m, keys, &e, err);
	if (rc)
		return rc;
	if (v->type == MAPTAP_SCRIPT_LONG) {
		e->val.l = v->u.l;
		return 0;
	}
	if (set_string(e, v->u.s.p, v->u.s.len))
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_NOMEM,
					       "out of memory");
	return 0;
}

int maptap_script_map_add(struct maptap_script_map *m,
			  const struct maptap_script_value *keys,
			  int64_t delta, int64_t *result,
			  struct maptap_script_error *err)
{
	struct maptap_script_entry *e;
	int rc;

	if (!keys_ok(m, keys, false) ||
	    m->desc.value_type != MAPTAP_SCRIPT_LONG)
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_ARG,
				"array key or value of the wrong type");
	rc = find_or_create(m, keys, &e, err);
	if (rc)
		return rc;
	e->val.l = (int64_t)((uint64_t)e->val.l + (uint64_t)delta);
	if (result)
		*result = e->val.l;
	return 0;
}

int maptap_script_map_stat_add(struct maptap_script_map *m,
			       const struct maptap_script_value *keys,
			       int64_t v, struct maptap_script_error *err)
{
	struct maptap_script_entry *e;
	int rc;

	if (!keys_ok(m, keys, false) ||
	    m->desc.value_type != MAPTAP_SCRIPT_STATS)
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_ARG,
				"array key or value of the wrong type");
	rc = find_or_create(m, keys, &e, err);
	if (rc)
		return rc;
	maptap_script_stat_add(e->val.stat, v);
	return 0;
}

int maptap_script_map_exists(const struct maptap_script_map *m,
			     const struct maptap_script_value *keys)
{
	struct maptap_script_entry *e;

	if (!keys_ok(m, keys, true))
		return -EINVAL;
	if (!has_wildcard(m, keys))
		return lookup(m, keys, hash_keys(m, keys)) != NULL;
	for (e = m->oldest; e; e = e->next)
		if (keys_match(m, e, keys))
			return 1;
	return 0;
}

int maptap_script_map_delete(struct maptap_script_map *m,
			     const struct maptap_script_value *keys)
{
	struct maptap_script_entry *e, *next;
	int n = 0;

	if (!keys_ok(m, keys, true))
		return -EINVAL;
	if (!has_wildcard(m, keys)) {
		e = lookup(m, keys, hash_keys(m, keys));
		if (!e)
			return 0;
		unlink_entry(m, e);
		return 1;
	}
	for (e = m->oldest; e; e = next) {
		next = e->next;
		if (keys_match(m, e, keys)) {
			unlink_entry(m, e);
			n++;
		}
	}
	return n;
}

void maptap_script_map_clear(struct maptap_script_map *m)
{
	while (m->oldest)
		unlink_entry(m, m->oldest);
}

struct maptap_script_value
maptap_script_entry_key(const struct maptap_script_entry *e, unsigned i)
{
	const struct maptap_script_map *m = e->map;

	if (m->desc.key_types[i] == MAPTAP_SCRIPT_LONG)
		return maptap_script_long(e->keys[i].l);
	return maptap_script_string(e->keys[i].s.p, e->keys[i].s.len);
}

struct maptap_script_value
maptap_script_entry_value(const struct maptap_script_entry *e)
{
	return entry_value(e->map, e);
}

bool maptap_script_entry_live(const struct maptap_script_entry *e)
{
	return !e->dead;
}
