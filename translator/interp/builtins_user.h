/* SPDX-License-Identifier: GPL-2.0-or-later */
/* builtins_user.h -- what the script functions of user space share
 * (builtins_ucontext.c, builtins_usymbols.c, builtins_uconversions.c):
 * their arguments, results and errors, and the process of the running
 * handler.
 *
 * Every function works on the process of the running handler
 * (I->tgt->pid, thread I->tgt->tid).  Outside process context (begin,
 * end, timers) they behave as stap's do when the current task has no
 * such module or memory: usym* print the address, umodname raises
 * "module cannot be found", the user_* readers fault.  Formats and
 * messages are stap's; docs/functions.md describes each function.
 */
#ifndef TR_BUILTINS_USER_H
#define TR_BUILTINS_USER_H

#include <inttypes.h>
#include <stdio.h>

#include "interp.h"

static inline int64_t arg_l(struct interp *I, struct node *n, int i)
{
	return tr_eval_long(I, n->list.v[i]);
}

static inline struct sref arg_s(struct interp *I, struct node *n, int i)
{
	return tr_eval_str(I, n->list.v[i]);
}

static inline void result(struct interp *I, struct maptap_script_buf *b,
		   struct sref *s)
{
	maptap_script_buf_truncate(b, I->lim.maxstringlen - 1);
	s->p = maptap_script_buf_str(b);
	s->len = b->len;
}

static inline void check(struct interp *I, struct node *n, int rc)
{
	if (rc < 0)
		tr_rt_error(I, n->tok, "out of memory");
}

/* stap's warn(): pending output first, so the two streams interleave
 * as written. */
static inline void warn(struct interp *I, const char *msg)
{
	tr_interp_flush(I);
	fprintf(I->s->err, "WARNING: %s\n", msg);
}

/* The process of the running handler, or 0 outside process context. */
static inline pid_t cur_pid(const struct interp *I)
{
	return I->tgt ? I->tgt->pid : 0;
}

/* ADDR in hex, as stap prints an address nothing is known of. */
static inline int add_hex(struct maptap_script_buf *b, uint64_t v)
{
	return maptap_script_buf_printf(b, "0x%" PRIx64, v);
}

#endif
