/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/script_map.h -- associative arrays of the SystemTap script
 * language (SystemTap Language Reference, "Associative arrays").
 *
 * An array maps a tuple of 1..9 keys, each a long or a string (the types
 * fixed per array by the translator), to a long, a string or a statistics
 * aggregate.  It is a hash table with chaining: lookup, insert, update and
 * delete of one element are O(1) on average at any size (measured in
 * bench/script/).  Elements also sit on a list in insertion order, which
 * gives unsorted foreach its order and "%" (wrap) arrays their victim.
 *
 * Semantics follow stap:
 * - reading a missing element yields 0 / "" / an empty aggregate and does
 *   not create it;
 * - storing 0 or "" keeps the element (only delete removes one);
 * - an array holds at most MAX_ENTRIES elements (MAXMAPENTRIES, or the
 *   size in "global a[N]"); adding one more is the runtime error "Array
 *   overflow, check MAXMAPENTRIES", unless the array was declared with
 *   "%" (global a%[N]): then the oldest element is evicted to make room;
 * - string keys and values are copied; callers keep them within
 *   MAXSTRINGLEN themselves (the map stores what it is given).
 *
 * Not thread-safe: one map, one thread at a time.
 */
#ifndef MAPTAP_SCRIPT_MAP_H
#define MAPTAP_SCRIPT_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <maptap/script_error.h>
#include <maptap/script_stat.h>
#include <maptap/script_value.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

/* Most keys in one index tuple (stap's limit). */
#define MAPTAP_SCRIPT_MAX_KEYS 9

/* The shape of an array.  Plain data, copied by maptap_script_map_new(). */
struct maptap_script_map_desc {
	unsigned nkeys;		/* 1..MAPTAP_SCRIPT_MAX_KEYS */
	/* LONG or STRING for each of the NKEYS key columns */
	enum maptap_script_type key_types[MAPTAP_SCRIPT_MAX_KEYS];
	enum maptap_script_type value_type;	/* LONG, STRING or STATS */
	struct maptap_script_stat_desc stat;	/* for a STATS value_type */
	size_t max_entries;	/* > 0: MAXMAPENTRIES or the declared size */
	bool wrap;		/* "%": evict the oldest instead of failing */
};

struct maptap_script_map;

/* One element, as a snapshot hands it out.  Read it with the accessors
 * below.  Valid until the snapshot that returned it is freed, even if the
 * element is deleted from the map in the meantime (deleted elements are
 * reclaimed when the last snapshot of the map goes). */
struct maptap_script_entry;

/* Create an empty array of shape DESC.  Returns 0 and *OUT; -EINVAL
 * (ERR set) when NKEYS, a key type, the value type, MAX_ENTRIES or the
 * stats descriptor is invalid; -ENOMEM. */
int maptap_script_map_new(const struct maptap_script_map_desc *desc,
			  struct maptap_script_map **out,
			  struct maptap_script_error *err);

/* Free M and every element (NULL is fine).  No snapshot of M may be
 * alive. */
void maptap_script_map_free(struct maptap_script_map *m);

/* The descriptor M was created with (M's copy). */
const struct maptap_script_map_desc *
maptap_script_map_desc(const struct maptap_script_map *m);

/* Number of elements in M. */
size_t maptap_script_map_size(const struct maptap_script_map *m);

/*
 * In the functions below, KEYS points to desc->nkeys values whose types
 * match desc->key_types (a mismatch is a caller bug and returns -EINVAL).
 * Only the functions that say so accept MAPTAP_SCRIPT_ANY wildcards.
 */

/* Read M[KEYS] into *OUT.  Returns 1 when the element exists, 0 when it
 * does not (then *OUT is 0, "" or, for stats arrays, a pointer to a
 * shared empty aggregate), -EINVAL.  A string or stats result borrows
 * M's storage: valid until that element is next changed or deleted. */
int maptap_script_map_get(const struct maptap_script_map *m,
			  const struct maptap_script_value *keys,
			  struct maptap_script_value *out);

/* M[KEYS] = V (V's type must be desc->value_type, LONG or STRING).
 * Returns 0; -E2BIG with ERR "Array overflow, check MAXMAPENTRIES" when a
 * new element would exceed MAX_ENTRIES in a non-wrap array (M is
 * unchanged); -EINVAL; -ENOMEM (ERR set). */
int maptap_script_map_set(struct maptap_script_map *m,
			  const struct maptap_script_value *keys,
			  const struct maptap_script_value *v,
			  struct maptap_script_error *err);

/* M[KEYS] += DELTA on a LONG array, creating the element (from 0) when
 * missing: the one-lookup form of ++, --, += and -=.  Stores the new
 * value in *RESULT when RESULT is not NULL.  Errors as map_set(). */
int maptap_script_map_add(struct maptap_script_map *m,
			  const struct maptap_script_value *keys,
			  int64_t delta, int64_t *result,
			  struct maptap_script_error *err);

/* M[KEYS] <<< V on a STATS array, creating the element when missing.
 * Errors as map_set(). */
int maptap_script_map_stat_add(struct maptap_script_map *m,
			       const struct maptap_script_value *keys,
			       int64_t v, struct maptap_script_error *err);

/* The "in" operator: 1 when M has an element matching KEYS, else 0.
 * KEYS may contain MAPTAP_SCRIPT_ANY wildcards ([*, 5] in a): then any
 * element whose non-wildcard keys are equal matches (a scan, O(size)).
 * -EINVAL on a type mismatch. */
int maptap_script_map_exists(const struct maptap_script_map *m,
			     const struct maptap_script_value *keys);

/* delete M[KEYS]; KEYS may contain wildcards (delete a[*, 5]).  Returns
 * the number of elements deleted (0 when none matched), -EINVAL. */
int maptap_script_map_delete(struct maptap_script_map *m,
			     const struct maptap_script_value *keys);

/* delete M: remove every element. */
void maptap_script_map_clear(struct maptap_script_map *m);

/* What a foreach sorts by. */
struct maptap_script_sort {
	/* 0: no sorting (insertion order); +1 ascending ("+"); -1
	 * descending ("-"). */
	int dir;
	/* 0: by value; 1..nkeys: by that key column ([a, b+] sorts by
	 * column 2).  Ignored when DIR is 0. */
	unsigned column;
	/* For a stats array sorted by value: the aggregate compared
	 * (stap's default is @count). */
	enum maptap_script_stat_op stat_op;
	/* At most this many elements (foreach ... limit N); negative: no
	 * limit.  Applied after FILTER and the sort. */
	int64_t limit;
};

/* The sort of an unsorted foreach without limit. */
#define MAPTAP_SCRIPT_SORT_NONE \
	((struct maptap_script_sort){ .dir = 0, .limit = -1 })

/* A foreach's view of an array: the matching elements, in order, taken
 * when the foreach starts.  Owned by the caller; free it with
 * maptap_script_snap_free() before freeing its map. */
struct maptap_script_snap;

/* Take a snapshot of M for a foreach.  SORT NULL means
 * MAPTAP_SCRIPT_SORT_NONE.  FILTER NULL means every element; else it is
 * nkeys values where MAPTAP_SCRIPT_ANY matches anything (foreach ([a, b]
 * in arr[*, 5])).  Ties in the sort column keep insertion order, as the
 * stable merge sort of stap's runtime does; strings compare as strcmp().
 * Costs O(n log n) for a sort, O(n) otherwise.  Returns 0 and *OUT;
 * -EINVAL (bad column or filter); -ENOMEM. */
int maptap_script_map_snapshot(struct maptap_script_map *m,
			       const struct maptap_script_sort *sort,
			       const struct maptap_script_value *filter,
			       struct maptap_script_snap **out);

/* Number of elements in S. */
size_t maptap_script_snap_len(const struct maptap_script_snap *s);

/* Element I of S, 0 <= I < len. */
const struct maptap_script_entry *
maptap_script_snap_at(const struct maptap_script_snap *s, size_t i);

/* Release S (NULL is fine); reclaims elements deleted while it lived. */
void maptap_script_snap_free(struct maptap_script_snap *s);

/* Key column I (0-based) of E. Strings borrow E's storage. */
struct maptap_script_value
maptap_script_entry_key(const struct maptap_script_entry *e, unsigned i);

/* The value of E as it is now (a long, a string borrowing E's storage,
 * or the aggregate). */
struct maptap_script_value
maptap_script_entry_value(const struct maptap_script_entry *e);

/* False once E has been deleted from its map (its keys and last value
 * stay readable until the snapshot goes). */
bool maptap_script_entry_live(const struct maptap_script_entry *e);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
