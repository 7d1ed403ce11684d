/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sdt_vars.h -- SDT marker probes at pass 5: the values of their context
 * variables, $arg1..$argN, $$name, $$provider, $$parms (docs/probes.md;
 * their ids are front/cvar_table.h's), for cvars.c, and their
 * semaphores.
 */
#ifndef TR_SDT_VARS_H
#define TR_SDT_VARS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <maptap/event.h>
#include <maptap/module.h>

#include "cvar_table.h"

struct interp;
struct maptap_script_buf;

/* The value of marker variable ID at the hit that runs now; a memory
 * operand that cannot be read is a run-time error. */
int64_t tr_sdt_cvar_long(struct interp *I, int id);
void tr_sdt_cvar_str(struct interp *I, int id, struct maptap_script_buf *b);

/* Count the semaphores of the marker probes PROBES[0..N) that event EV
 * (module and segment W) maps afresh (a map or replace of a writable
 * file segment: the values are the file's), in EV's process, with
 * maptap_uprobe_semaphore(); MODULE_IS says whether a probe's file is
 * W's module.  A failure is a warning on ERR. */
void tr_sdt_semaphores(struct maptap_session *s,
		       const struct tr_dprobe *const *probes, int n,
		       const struct maptap_event *ev,
		       const struct maptap_module_desc *w,
		       bool (*module_is)(const struct tr_dprobe *dp,
					 const struct maptap_module_info *mi),
		       FILE *err);

#endif
