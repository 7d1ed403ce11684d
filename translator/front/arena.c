/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arena.c -- bump allocator; see arena.h. */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

#define CHUNK_SIZE (64 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	size_t size;
	max_align_t data[];
};

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p) {
		fputs("maptap: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_chunk *c;
	size_t align = sizeof(max_align_t);
	void *p;

	size = (size + align - 1) & ~(align - 1);
	if (!a->head || a->used + size > a->head->size) {
		/* Big objects get a chunk of their own so the rest of the
		 * current chunk is not wasted. */
		size_t csz = size > CHUNK_SIZE / 4 ? size : CHUNK_SIZE;

		c = xmalloc(sizeof(*c) + csz);
		c->size = csz;
		if (a->head && size > CHUNK_SIZE / 4) {
			c->next = a->head->next;
			a->head->next = c;
			return c->data;
		}
		c->next = a->head;
		a->head = c;
		a->used = 0;
	}
	p = (char *)a->head->data + a->used;
	a->used += size;
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	p = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
	a->used = 0;
}

void vec_push(struct arena *a, struct ptr_vec *vec, void *p)
{
	if (vec->n == vec->cap) {
		int cap = vec->cap ? vec->cap * 2 : 4;
		void **v = arena_alloc(a, sizeof(*v) * (size_t)cap);

		if (vec->n)
			memcpy(v, vec->v, sizeof(*v) * (size_t)vec->n);
		vec->v = v;
		vec->cap = cap;
	}
	vec->v[vec->n++] = p;
}
