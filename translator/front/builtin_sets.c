/* SPDX-License-Identifier: GPL-2.0-or-later */
/* builtin_sets.c -- the built-in functions as pass 2 sees them: the
 * descriptors (name, arity, types, id) of the sets the session was
 * handed (tr_session.builtins), searched by name, and which built-ins
 * read the thread stopped at the event.  The sets and the code behind
 * the ids are the interpreter's (interp/builtins*.c), handed in by the
 * driver (tr_interp_builtins()); this file was builtins.c's lookup,
 * which made pass 2 call pass 5.
 */
#include <config.h>

#include <string.h>

#include "elaborate.h"

const struct tr_builtin *tr_builtin_find(const struct tr_session *s,
					 const char *name)
{
	size_t g, i;

	for (g = 0; g < s->n_builtins; g++)
		for (i = 0; i < s->builtins[g]->n; i++)
			if (!strcmp(s->builtins[g]->table[i].name, name))
				return &s->builtins[g]->table[i];
	return NULL;
}

bool tr_builtin_at_stop(const struct tr_session *s,
			const struct tr_builtin *b)
{
	const struct tr_builtin_set *set;
	size_t g;

	for (g = 0; g < s->n_builtins; g++) {
		set = s->builtins[g];
		if (b >= set->table && b < set->table + set->n)
			return set->at_stop && set->at_stop(b->id);
	}
	return false;
}
