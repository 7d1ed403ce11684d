/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwvar_bind.h -- target variables from DWARF in breakpoint probes
 * (process.function / .return / .statement) at pass 2: binding them
 * (maptap/tvar.h compiles each once for its probe point) and the entry
 * slots of a .return probe.  Pass 5 reads them (interp/dwvars.h).
 */
#ifndef TR_DWVAR_BIND_H
#define TR_DWVAR_BIND_H

#include <stdbool.h>
#include <string.h>

#include "elaborate.h"

/* Index expressions ($p->f[i]) of one target variable, at most. */
#define TR_DWVAR_MAX_INDEX 8

/* Is N (an N_TARGET) an @cast(...)? */
static inline bool tr_dwvar_is_cast(const struct node *n)
{
	return !strcmp(n->tok->text, "@cast");
}

/* Does N (an N_TARGET) of the probe DP read DWARF: a PK_UPROBE on a
 * module with debug information ($$name of a PLT probe and plain
 * registers are cvar_table.c's)?  @cast is DWARF in any probe. */
bool tr_dwvar_applies(struct tr_session *s, const struct tr_dprobe *dp,
		      const struct node *n);

/* Bind N: compile it at DP's address, set N's type and N->aux.  ADDR:
 * it is &N.  Returns 0, or -1 with *ERR (malloc'd, stap's words).  In
 * a .return probe a variable other than $return is read at the entry:
 * it gets an entry slot on DP (N->num), else N->num is -1. */
int tr_dwvar_bind(struct tr_session *s, struct tr_dprobe *dp,
		  struct node *n, bool addr, char **err);

/* @entry(X) in the .return probe DP: X is evaluated at the entry hit
 * and N (the N_ENTRY) reads the saved value (N->num: its slot; N->op
 * OP_ENTRY_SAVED marks it). */
int tr_dwvar_entry_slot(struct tr_session *s, struct tr_dprobe *dp,
			struct node *n, char **err);

#endif
