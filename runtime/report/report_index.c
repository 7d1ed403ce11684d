/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report_index.c -- the report's hash index (open addressing from a hash
 * to an index into an array the caller owns: pids, classes, sites) and
 * its growable arrays.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>

#include "report_state.h"

uint64_t rp_hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The index whose entry matches KEY, or -1. */
long rp_ix_find(const struct rp_ix *ix, uint64_t h, rp_ix_match_fn match,
		const void *ctx, const void *key)
{
	size_t i;

	if (!ix->cap)
		return -1;
	for (i = h & (ix->cap - 1); ix->slot[i]; i = (i + 1) & (ix->cap - 1))
		if (match(ctx, ix->slot[i] - 1, key))
			return (long)ix->slot[i] - 1;
	return -1;
}

static void ix_put(struct rp_ix *ix, uint64_t h, uint32_t idx)
{
	size_t i = h & (ix->cap - 1);

	while (ix->slot[i])
		i = (i + 1) & (ix->cap - 1);
	ix->slot[i] = idx + 1;
	ix->n++;
}

/* Add IDX (hash H); HASH_OF rehashes the others when the table grows. */
int rp_ix_add(struct rp_ix *ix, uint64_t h, uint32_t idx,
	      rp_ix_hash_fn hash_of, const void *ctx)
{
	if ((ix->n + 1) * 2 > ix->cap) {
		size_t cap = ix->cap ? ix->cap * 2 : 16, i;
		struct rp_ix big = { calloc(cap, sizeof(uint32_t)), cap, 0 };

		if (!big.slot)
			return -ENOMEM;
		for (i = 0; i < ix->cap; i++)
			if (ix->slot[i])
				ix_put(&big, hash_of(ctx, ix->slot[i] - 1),
				       ix->slot[i] - 1);
		free(ix->slot);
		*ix = big;
	}
	ix_put(ix, h, idx);
	return 0;
}

/* Replace the entry matching KEY by IDX (it must exist). */
void rp_ix_set(struct rp_ix *ix, uint64_t h, rp_ix_match_fn match,
	       const void *ctx, const void *key, uint32_t idx)
{
	size_t i;

	for (i = h & (ix->cap - 1); ix->slot[i]; i = (i + 1) & (ix->cap - 1))
		if (match(ctx, ix->slot[i] - 1, key)) {
			ix->slot[i] = idx + 1;
			return;
		}
}

int rp_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 8;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}
