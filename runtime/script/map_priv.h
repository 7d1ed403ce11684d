/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* map_priv.h -- the layout of an associative array, shared by map.c
 * (the hash table) and map_snap.c (foreach snapshots).  Private to
 * runtime/script/. */
#ifndef MAPTAP_RUNTIME_SCRIPT_MAP_PRIV_H
#define MAPTAP_RUNTIME_SCRIPT_MAP_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <maptap/script_map.h>

union key {
	int64_t l;
	struct {
		const char *p;
		size_t len;
	} s;
};

struct maptap_script_entry {
	struct maptap_script_entry *hnext;	/* hash chain, graveyard */
	struct maptap_script_entry *prev;	/* insertion order */
	struct maptap_script_entry *next;
	uint64_t hash;
	const struct maptap_script_map *map;
	bool dead;
	union {
		int64_t l;
		struct {
			char *p;	/* NULL means "" */
			size_t len;
			size_t cap;
		} s;
		struct maptap_script_stat *stat;	/* inside this block */
	} val;
	union key keys[];
};

struct maptap_script_map {
	struct maptap_script_map_desc desc;
	struct maptap_script_entry **buckets;
	size_t mask;			/* number of buckets - 1 */
	size_t size;
	struct maptap_script_entry *oldest, *newest;
	struct maptap_script_entry *graveyard;
	unsigned nsnap;			/* live snapshots */
	size_t stat_off;		/* where an entry's aggregate is */
	struct maptap_script_stat *empty_stat;
};

struct maptap_script_snap {
	struct maptap_script_map *map;
	size_t n;
	struct maptap_script_entry *e[];
};

/* Park or free entries unlinked while snapshots were alive (map.c). */
void maptap_script_map_reap(struct maptap_script_map *m)
	__attribute__((visibility("hidden")));

#endif
