/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cvar_table.c -- context variables of probes on traced processes at
 * pass 2: which probe point offers which, with its type and id
 * (cvar_table.h), and the list -L prints.  Pass 5 gives their values
 * by id (interp/cvars.c).  Split from interp/cvars.c, whose pass-2 half
 * it was, so that elaboration asks no table of the interpreter's; the
 * code is as it was there.
 *
 * A system-call probe has stap's process.syscall variables; an event
 * probe (maptap.vma.*, maptap.module.*, maptap.process.*, maptap.event)
 * has every field of the event under docs/probes.md's names.
 */
#include <config.h>

#include <string.h>

#include "cvar_table.h"

struct cvar_def {
	const char *name;
	enum cvar id;
	enum tr_type type;
};

#define L TY_LONG
#define S TY_STRING

static const struct cvar_def syscall_vars[] = {
	{ "$syscall", CV_SC_NR, L },
	{ "$arg1", CV_SC_ARG1, L }, { "$arg2", CV_SC_ARG2, L },
	{ "$arg3", CV_SC_ARG3, L }, { "$arg4", CV_SC_ARG4, L },
	{ "$arg5", CV_SC_ARG5, L }, { "$arg6", CV_SC_ARG6, L },
	{ "$$parms", CV_SC_PARMS, S },
	{ "$return", CV_SC_RETURN, L },
};

static const struct cvar_def event_vars[] = {
	{ "$kind", CV_KIND, S }, { "$time_ns", CV_TIME_NS, L },
	{ "$syscall", CV_SYSCALL, L }, { "$syscall_name", CV_SYSCALL_NAME, S },
	{ "$start", CV_START, L }, { "$end", CV_END, L },
	{ "$perms", CV_PERMS, S }, { "$offset", CV_OFFSET, L },
	{ "$dev", CV_DEV, S }, { "$inode", CV_INODE, L },
	{ "$name", CV_NAME, S },
	{ "$old_start", CV_OLD_START, L }, { "$old_end", CV_OLD_END, L },
	{ "$old_perms", CV_OLD_PERMS, S }, { "$old_offset", CV_OLD_OFFSET, L },
	{ "$old_dev", CV_OLD_DEV, S }, { "$old_inode", CV_OLD_INODE, L },
	{ "$old_name", CV_OLD_NAME, S },
	{ "$snapshot", CV_SNAPSHOT, L }, { "$child", CV_CHILD, L },
	{ "$former_tid", CV_FORMER_TID, L }, { "$status", CV_STATUS, L },
	{ "$group_exit", CV_GROUP_EXIT, L }, { "$thread", CV_THREAD, L },
	{ "$path", CV_PATH, S }, { "$old_path", CV_OLD_PATH, S },
	{ "$reason", CV_REASON, S },
	{ "$module_path", CV_MODULE_PATH, S },
	{ "$module_build_id", CV_MODULE_BUILD_ID, S },
	{ "$module_type", CV_MODULE_TYPE, S },
	{ "$module_bias", CV_MODULE_BIAS, L },
	{ "$segment_kind", CV_SEGMENT_KIND, S },
	{ "$segment_index", CV_SEGMENT_INDEX, L },
	{ "$segment_vaddr", CV_SEGMENT_VADDR, L },
	{ "$segment_offset", CV_SEGMENT_OFFSET, L },
	{ "$segment_anon", CV_SEGMENT_ANON, L },
};

#undef L
#undef S

static const struct cvar_def *find(const struct cvar_def *v, size_t n,
				   const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* The messages of stap's utrace probes (tapset-utrace.cxx) for the
 * process.* points; the dwarf one's shape for maptap's own. */
int tr_cvar_lookup(const struct tr_dprobe *dp, const char *name,
		   enum tr_type *type, const char **why)
{
	const struct cvar_def *d = NULL;

	*why = "target variables are not available in this probe";
	if (!dp || !tr_probe_needs_target(dp->kind) || dp->kind == PK_PERF)
		return -1;	/* a sample has registers, no variables */
	if (dp->kind == PK_PROCESS) {
		*why = "only \"process(PATH_OR_PID).syscall\" and "
		       "\"process(PATH_OR_PID).syscall.return\" probes "
		       "support target symbols";
		return -1;
	}
	if (dp->kind == PK_UPROBE && dp->sdt)
		return tr_sdt_cvar_lookup(dp, name, type, why);
	if (dp->kind == PK_UPROBE) {
		/* A module without DWARF (or an .absolute address): $return
		 * from rax (x86-64 SysV ABI); DWARF variables are
		 * dwvar_bind.c's.  A PLT probe's $$name is the called symbol. */
		if (dp->up_plt && !strcmp(name, "$$name")) {
			*type = TY_STRING;
			return CV_UP_NAME;
		}
		if (strcmp(name, "$return") || !dp->is_return) {
			*why = dp->is_return ?
			       "only $return is available in this probe (no "
			       "debuginfo: the module has no DWARF for it; "
			       "use register() or pointer_arg(N))" :
			       "target variables are not available in this "
			       "probe (no debuginfo: the module has no DWARF "
			       "for it -- assembly, an inlined instance left "
			       "without code of its own -- or the address is "
			       ".absolute; use register() or pointer_arg(N))";
			return -1;
		}
		*type = TY_LONG;
		return CV_UP_RETURN;
	}
	if (dp->kind == PK_SYSCALL) {
		d = find(syscall_vars, N_OF(syscall_vars), name);
		if (d && d->id == CV_SC_RETURN && !dp->is_return) {
			*why = "only \"process(PATH_OR_PID).syscall.return\" "
			       "support $return.";
			return -1;
		}
		*why = "invalid target symbol for utrace probe, $syscall, "
		       "$return, $argN or $$parms expected";
	} else {
		d = find(event_vars, N_OF(event_vars), name);
		*why = name[0] == '$' && name[1] != '$' &&
		       !strpbrk(name, "-[(") ? NULL :
		       "target variables of this form are not available "
		       "in this probe";
	}
	if (!d)
		return -1;
	*type = d->type;
	return (int)d->id;
}

/* -L */
void tr_cvar_foreach(const struct tr_dprobe *dp,
		     void (*fn)(const char *name, enum tr_type type,
				void *arg),
		     void *arg)
{
	static const struct cvar_def uprobe_vars[] = {
		{ "$return", CV_UP_RETURN, TY_LONG },
		{ "$$name", CV_UP_NAME, TY_STRING },
	};
	const struct cvar_def *v = uprobe_vars;
	size_t n = N_OF(uprobe_vars), i;
	const char *why;
	enum tr_type t;

	if (dp->kind == PK_SYSCALL) {
		v = syscall_vars;
		n = N_OF(syscall_vars);
	} else if (dp->kind == PK_EVENT) {
		v = event_vars;
		n = N_OF(event_vars);
	}
	for (i = 0; i < n; i++)
		if (tr_cvar_lookup(dp, v[i].name, &t, &why) >= 0)
			fn(v[i].name, t, arg);
}
