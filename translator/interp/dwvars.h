/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwvars.h -- target variables from DWARF in breakpoint probes
 * (process.function / .return / .statement): binding them at pass 2
 * (maptap/tvar.h compiles each once for its probe point), reading them
 * at pass 5, and the values a .return probe saves at the entry
 * (@entry, and every variable but $return, as stap reads them there).
 */
#ifndef TR_DWVARS_H
#define TR_DWVARS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "elaborate.h"

struct interp;
struct sref;

/* Does N (an N_TARGET) of the probe DP read DWARF: a PK_UPROBE on a
 * module with debug information ($$name of a PLT probe and plain
 * registers are cvars.c's)?  @cast is DWARF in any probe. */
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

/* The value of a bound N_TARGET (or of an N_ENTRY slot) now. */
int64_t tr_dwvar_long(struct interp *I, struct node *n);
struct sref tr_dwvar_str(struct interp *I, struct node *n);

/* Values saved at one entry of a .return probe's function. */
struct tr_saved {
	int64_t l;
	char *s;
	size_t len;
};

struct tr_entry_frame {
	pid_t tid;
	uint64_t sp;			/* the CFA (slot 0): rsp after return */
	int id;				/* the probe's uprobe id */
	struct tr_saved *v;		/* one per DP->up_entry node */
	size_t n;
};

/* A frame for the entry nodes of the .return probe DP (NULL when out of
 * memory); at its entry hit tr_dwvar_save_entry() evaluates them into
 * it (a runtime error longjmps out, as in a handler: see
 * tr_interp_save_entry()). */
struct tr_entry_frame *tr_entry_frame_new(const struct tr_dprobe *dp);
void tr_dwvar_save_entry(struct interp *I, const struct tr_dprobe *dp,
			 struct tr_entry_frame *fr);
void tr_entry_frame_free(struct tr_entry_frame *f);

#endif
