/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arena.h -- bump allocator for the translator's long-lived objects.
 *
 * Tokens, AST nodes and symbols live as long as the session that made
 * them, so they come from one arena freed in one call.  Allocation never
 * fails: on out-of-memory the program aborts, as a translator with half a
 * parse tree has nothing sensible to do.  Not thread-safe.
 */
#ifndef TR_ARENA_H
#define TR_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head;
	size_t used;		/* bytes used in head */
};

void *arena_alloc(struct arena *a, size_t size);	/* zeroed */
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void arena_free(struct arena *a);

/* Growable array of pointers allocated from an arena. */
struct ptr_vec {
	void **v;
	int n, cap;
};

void vec_push(struct arena *a, struct ptr_vec *vec, void *p);

#endif
