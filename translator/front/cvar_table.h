/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cvar_table.h -- the context variables ($name) of probes on traced
 * processes at pass 2: which probe has which, their types and ids.  The
 * ids are what pass 5 reads values by (interp/cvars.h): the process
 * probes' (enum cvar, cvar_table.c), then the SDT markers' from
 * TR_SDT_CVAR_BASE (sdt_cvar_table.c).
 *
 * The names and meanings are docs/probes.md's; the syscall ones follow
 * stap's process.syscall probes (stapprobes(3stap)).
 */
#ifndef TR_CVAR_TABLE_H
#define TR_CVAR_TABLE_H

#include <maptap/sdt.h>

#include "elaborate.h"

enum cvar {
	/* system calls */
	CV_SC_NR, CV_SC_ARG1, CV_SC_ARG2, CV_SC_ARG3, CV_SC_ARG4, CV_SC_ARG5,
	CV_SC_ARG6, CV_SC_PARMS, CV_SC_RETURN,
	/* events */
	CV_KIND, CV_TIME_NS, CV_SYSCALL, CV_SYSCALL_NAME, CV_START, CV_END,
	CV_PERMS, CV_OFFSET, CV_DEV, CV_INODE, CV_NAME, CV_OLD_START,
	CV_OLD_END, CV_OLD_PERMS, CV_OLD_OFFSET, CV_OLD_DEV, CV_OLD_INODE,
	CV_OLD_NAME, CV_SNAPSHOT, CV_CHILD, CV_FORMER_TID, CV_STATUS,
	CV_GROUP_EXIT, CV_THREAD, CV_PATH, CV_OLD_PATH, CV_REASON, CV_MODULE_PATH,
	CV_MODULE_BUILD_ID, CV_MODULE_TYPE, CV_MODULE_BIAS, CV_SEGMENT_KIND,
	CV_SEGMENT_INDEX, CV_SEGMENT_VADDR, CV_SEGMENT_OFFSET, CV_SEGMENT_ANON,
	/* breakpoint probes */
	CV_UP_RETURN, CV_UP_NAME,
};

/* Look up $NAME (with its '$') in a probe DP (NULL: a function body).
 * Returns the variable's id (>= 0) and its type in *TYPE, or -1 with a
 * message in stap's words in *WHY (NULL: an unknown plain $name of an
 * event probe; the caller says stap's "unable to find local 'name'"). */
int tr_cvar_lookup(const struct tr_dprobe *dp, const char *name,
		   enum tr_type *type, const char **why);

/* Calls FN(NAME, TYPE, ARG) for each variable probe DP offers (-L). */
void tr_cvar_foreach(const struct tr_dprobe *dp,
		     void (*fn)(const char *name, enum tr_type type,
				void *arg),
		     void *arg);

/* Variable ids of markers start here (enum cvar's are below); after
 * $arg1..$argN (TR_SDT_CVAR_BASE + N) come these. */
#define TR_SDT_CVAR_BASE 100000

enum {
	TR_SDT_CV_NAME = TR_SDT_CVAR_BASE + MAPTAP_SDT_MAX_ARGS + 1,
	TR_SDT_CV_PROVIDER,
	TR_SDT_CV_PARMS,
};

/* $NAME in marker probe DP (DP->sdt set): as tr_cvar_lookup()
 * (sdt_cvar_table.c). */
int tr_sdt_cvar_lookup(const struct tr_dprobe *dp, const char *name,
		       enum tr_type *type, const char **why);

/* "$arg1:long $arg2:long ..." (-L's variables of DP), in the session's
 * arena. */
const char *tr_sdt_cvar_list(struct tr_session *s, const struct tr_dprobe *dp);

#endif
