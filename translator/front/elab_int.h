/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elab_int.h -- state shared by the files of pass 2 (elaborate.c,
 * types.c). */
#ifndef TR_ELAB_INT_H
#define TR_ELAB_INT_H

#include "elaborate.h"

struct elab {
	struct tr_session *s;
	struct tr_elab *out;
	struct tr_file *script;
	struct ptr_vec files;		/* script first, then tapsets */
	struct ptr_vec func_queue;	/* used functions not yet resolved */
	int probe_order;
	int alias_depth;
};

/* types.c: infer types over everything elaboration kept, then check
 * formats, histograms and unresolved types.  Returns the error count. */
int tr_infer_types(struct elab *e);

#endif
