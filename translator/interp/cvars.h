/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cvars.h -- the context variables ($name) of probes on traced processes:
 * their values at pass 5, by the ids pass 2 gave them (cvar_table.h).
 *
 * The names and meanings are docs/probes.md's; the syscall ones follow
 * stap's process.syscall probes (stapprobes(3stap)).
 */
#ifndef TR_CVARS_H
#define TR_CVARS_H

#include <stdint.h>

#include "cvar_table.h"

struct interp;
struct sref;

/* The value of variable ID in the handler that runs now (I->tgt): a long,
 * or a string written to a temporary of I.  Unset ones are 0 or "". */
int64_t tr_cvar_long(struct interp *I, int id);
struct sref tr_cvar_str(struct interp *I, int id);

#endif
