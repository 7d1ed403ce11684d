/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sdt_points.c -- the markers of .mark probe points, from the file's
 * .note.stapsdt notes (maptap/sdt.h).
 */
#include <config.h>

#include <string.h>

#include "arena.h"
#include "sdt_points.h"

struct sdt_ctx {
	struct tr_session *s;
	const char *qual;		/* process("..") */
	bool provider;			/* .provider(..) was given */
	tr_sdt_push_fn push;
	void *ctx;
};

static int one_note(const struct maptap_sdt_note *n, void *arg)
{
	struct sdt_ctx *c = arg;
	struct arena *a = &c->s->arena;
	struct tr_sdt *m = arena_alloc(a, sizeof(*m));

	m->provider = arena_strdup(a, n->provider);
	m->name = arena_strdup(a, n->name);
	m->args = arena_strdup(a, n->args);
	m->semaphore = n->semaphore;
	m->nargs = n->nargs;
	m->bad = n->bad;
	memcpy(m->arg, n->arg, sizeof(m->arg));
	if (c->provider)
		c->push(c->ctx, arena_printf(a, "%s.provider(\"%s\").mark("
				"\"%s\")", c->qual, n->provider, n->name),
			n->pc, m);
	else
		c->push(c->ctx, arena_printf(a, "%s.mark(\"%s\")", c->qual,
					     n->name), n->pc, m);
	return 0;
}

static const struct tr_component *str_comp(const struct tr_probe_point *pp,
					   int i, const char *name)
{
	const struct tr_component *c;

	if (i >= pp->comps.n)
		return NULL;
	c = pp->comps.v[i];
	if (strcmp(c->name, name) || !c->arg || c->arg->kind != N_STR)
		return NULL;
	return c;
}

bool tr_sdt_match(struct tr_session *s, const struct tr_probe_point *pp,
		  int at, const char *module, const char *qual,
		  tr_sdt_push_fn push, void *ctx)
{
	const struct tr_component *prov = str_comp(pp, at, "provider");
	const struct tr_component *mark;
	struct sdt_ctx c = { s, qual, prov != NULL, push, ctx };

	mark = str_comp(pp, prov ? at + 1 : at, "mark");
	if (!mark || pp->comps.n != (prov ? at + 2 : at + 1))
		return false;
	maptap_sdt_notes(module, prov ? prov->arg->str : NULL,
			 mark->arg->str, one_note, &c);
	return true;
}
