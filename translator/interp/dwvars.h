/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwvars.h -- target variables from DWARF in breakpoint probes
 * (process.function / .return / .statement) at pass 5: reading the
 * variables pass 2 bound (front/dwvar_bind.h), and the values a .return
 * probe saves at the entry (@entry, and every variable but $return, as
 * stap reads them there).
 */
#ifndef TR_DWVARS_H
#define TR_DWVARS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "dwvar_bind.h"

struct interp;
struct sref;

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
