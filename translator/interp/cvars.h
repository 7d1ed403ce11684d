/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cvars.h -- the context variables ($name) of probes on traced processes:
 * which probe has which, their types at pass 2, their values at pass 5.
 *
 * The names and meanings are docs/probes.md's; the syscall ones follow
 * stap's process.syscall probes (stapprobes(3stap)).
 */
#ifndef TR_CVARS_H
#define TR_CVARS_H

#include <stdint.h>

#include "elaborate.h"

struct interp;
struct sref;

/* Look up $NAME (with its '$') in a probe DP (NULL: a function body).
 * Returns the variable's id (>= 0) and its type in *TYPE, or -1 with a
 * message in stap's words in *WHY (NULL: an unknown plain $name of an
 * event probe; the caller says stap's "unable to find local 'name'"). */
int tr_cvar_lookup(const struct tr_dprobe *dp, const char *name,
		   enum tr_type *type, const char **why);

/* The value of variable ID in the handler that runs now (I->tgt): a long,
 * or a string written to a temporary of I.  Unset ones are 0 or "". */
int64_t tr_cvar_long(struct interp *I, int id);
struct sref tr_cvar_str(struct interp *I, int id);

/* Calls FN(NAME, TYPE, ARG) for each variable probe DP offers (-L). */
void tr_cvar_foreach(const struct tr_dprobe *dp,
		     void (*fn)(const char *name, enum tr_type type,
				void *arg),
		     void *arg);

#endif
