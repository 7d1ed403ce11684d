/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elab_int.h -- state shared by the files of pass 2 (elaborate.c,
 * tapset_load.c, probe_process.c, types.c). */
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

/* elaborate.c, for probe_process.c: a copy of N for a derived probe
 * (NULL for NULL); whether STR matches glob PAT (fnmatch(3) with stap's
 * {a,b} alternatives); whether NAME has glob characters; PP as written,
 * in the arena; the executable process("NAME") means (PATH searched,
 * links resolved; NAME itself when not found); whether PP's components
 * from FROM are NAMES[0..N), each a glob, without arguments; a derived
 * probe of KIND named NAME for PP, with PP's condition, pushed on OUT. */
struct node *tr_clone(struct tr_session *s, const struct node *n);
bool tr_glob_match(const char *pat, const char *str);
bool tr_has_glob(const char *name);
const char *tr_pp_name(struct tr_session *s, const struct tr_probe_point *pp);
const char *tr_resolve_exe(struct tr_session *s, const char *name);
bool tr_tail_matches(const struct tr_probe_point *pp, int from,
		     const char *const *names, int n);
struct tr_dprobe *tr_push_point(struct elab *e,
				const struct tr_probe_point *pp,
				enum probe_kind kind, const char *name,
				struct ptr_vec *out);

/* probe_process.c: derive into OUT the probes of PP, a probe point of
 * the process(..) family (lifetime points, .syscall, breakpoints), or of
 * the maptap.* events (VMA, process and module events). */
void tr_match_process(struct elab *e, const struct tr_probe_point *pp,
		      struct ptr_vec *out);
void tr_match_maptap(struct elab *e, const struct tr_probe_point *pp,
		     struct ptr_vec *out);

/* types.c: infer types over everything elaboration kept, then check
 * formats, histograms and unresolved types.  Returns the error count. */
int tr_infer_types(struct elab *e);

#endif
