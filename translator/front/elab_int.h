/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elab_int.h -- state shared by the files of pass 2 (elaborate.c,
 * tapset_load.c, types.c). */
#ifndef TR_ELAB_INT_H
#define TR_ELAB_INT_H

#include "elaborate.h"
#include "tapset_index.h"

struct elab {
	struct tr_session *s;
	struct tr_elab *out;
	struct tr_file *script;
	struct ptr_vec files;		/* script first, then tapsets */
	struct ptr_vec func_queue;	/* used functions not yet resolved */
	int probe_order;
	int alias_depth;
};

/* tapset_load.c: index the tapset files (-I, then the installed
 * directory) into e->s->tapset_index, with a NULL slot per file in
 * e->files, and parse those the index wants parsed at once. */
void tr_load_tapsets(struct elab *e);
/* Parse tapset file FILE (an index into the tapset index) unless it is
 * parsed already; its @define's stay its own. */
void tr_parse_tapset(struct elab *e, int file);
/* Parse every tapset file that defines a KIND named NAME. */
void tr_need_name(struct elab *e, enum tr_def_kind kind, const char *name);

/* types.c: infer types over everything elaboration kept, then check
 * formats, histograms and unresolved types.  Returns the error count. */
int tr_infer_types(struct elab *e);

#endif
