/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tapset_index.h -- which tapset file defines which name, found by a
 * lexical scan, so that pass 2 parses only the files a script needs.
 *
 * The scan sees the raw tokens (no preprocessing): a definition hidden
 * by a %( %) conditional is still indexed, which costs at most a parse.
 * What the scan cannot read with certainty (a macro call at the top
 * level, an alias head it does not understand) makes the whole file
 * "eager": parsed up front, as every file was before.
 */
#ifndef TR_TAPSET_INDEX_H
#define TR_TAPSET_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "unit.h"

enum tr_def_kind {
	TR_DEF_FUNCTION,
	TR_DEF_GLOBAL,
	TR_DEF_ALIAS,		/* a probe alias head, A.B.C = */
};

/* One name a file defines.  Functions and globals have one component,
 * the name; an alias head has one per dotted part (arguments dropped). */
struct tr_tapset_def {
	enum tr_def_kind kind;
	int file;		/* index into tr_tapset_index.files */
	int n_comps;
	const char **comps;
	const char *name;	/* the components joined by '.' */
};

struct tr_tapset_index {
	struct ptr_vec files;	/* struct src_file *, in search order */
	struct ptr_vec eager;	/* non-NULL entry: files.v[i] is eager */
	struct ptr_vec aliases;	/* struct tr_tapset_def *, for wildcards */
	struct tr_tapset_def **table;	/* open addressing, by kind+name */
	size_t cap, n;
};

/* Scan F (a tapset file, kept by the caller in the session arena) and
 * index what it defines under the next file number.  Returns that
 * number.  Memory comes from S's arena; nothing is printed: lexical
 * errors are left for the parser to report if the file is parsed. */
int tr_tapset_index_add(struct tr_session *s, struct tr_tapset_index *ix,
			struct src_file *f);

/* The definitions of kind KIND named NAME (an alias head joined by '.'):
 * call with
 * *POS = 0, then again with the same POS until it returns NULL. */
const struct tr_tapset_def *
tr_tapset_index_find(const struct tr_tapset_index *ix, enum tr_def_kind kind,
		     const char *name, size_t *pos);

static inline bool tr_tapset_index_eager(const struct tr_tapset_index *ix,
					 int file)
{
	return ix->eager.v[file] != NULL;
}

#endif
