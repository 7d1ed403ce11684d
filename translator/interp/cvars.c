/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cvars.c -- context variables of probes on traced processes at pass 5:
 * their values at the event that runs now, by the ids pass 2 gave them
 * (front/cvar_table.c says which probe point offers which).
 *
 * A system-call probe has stap's process.syscall variables; an event
 * probe (maptap.vma.*, maptap.module.*, maptap.process.*, maptap.event)
 * has every field of the event under docs/probes.md's names.  Variables
 * an event kind does not set read as 0 or "".
 */
#include <config.h>

#include <inttypes.h>
#include <string.h>

#include <maptap/event.h>
#include <maptap/module.h>
#include <maptap/session.h>
#include <maptap/uprobe.h>

#include <sys/user.h>

#include "cvars.h"
#include "interp.h"
#include "sdt_vars.h"

static int64_t syscall_long(const struct maptap_syscall_stop *sc, int id)
{
	if (!sc)
		return 0;
	if (id == CV_SC_NR)
		return sc->nr;
	if (id == CV_SC_RETURN)
		return sc->ret;
	return (int64_t)sc->args[id - CV_SC_ARG1];
}

static int64_t vma_long(const struct maptap_event *ev, int id)
{
	switch (id) {
	case CV_START: return (int64_t)ev->vma.start;
	case CV_END: return (int64_t)ev->vma.end;
	case CV_OFFSET: return (int64_t)ev->vma.offset;
	case CV_INODE: return (int64_t)ev->vma.inode;
	case CV_OLD_START: return (int64_t)ev->old.start;
	case CV_OLD_END: return (int64_t)ev->old.end;
	case CV_OLD_OFFSET: return (int64_t)ev->old.offset;
	case CV_OLD_INODE: return (int64_t)ev->old.inode;
	}
	return 0;
}

static int64_t where_long(const struct maptap_module_desc *w, int id)
{
	if (!w || !w->has_module)
		return id == CV_SEGMENT_INDEX ? -1 : 0;
	switch (id) {
	case CV_MODULE_BIAS: return (int64_t)w->module.bias;
	case CV_SEGMENT_INDEX:
		return w->has_segment ? w->segment.index : -1;
	case CV_SEGMENT_VADDR:
		return w->has_segment ? (int64_t)w->segment.p_vaddr : 0;
	case CV_SEGMENT_OFFSET:
		return w->has_segment ? (int64_t)w->segment.p_offset : 0;
	case CV_SEGMENT_ANON:
		return w->anon;
	}
	return 0;
}

static int64_t event_long(const struct tr_target *t, int id)
{
	const struct maptap_event *ev = t->ev;

	if (t->mev) {
		if (id == CV_TIME_NS)
			return (int64_t)t->mev->time_ns;
		if (id == CV_SYSCALL)
			return -1;
		if (id == CV_MODULE_BIAS)
			return (int64_t)t->mev->module->bias;
		return id == CV_SEGMENT_INDEX ? -1 : 0;
	}
	if (!ev)
		return id == CV_SYSCALL || id == CV_SEGMENT_INDEX ? -1 : 0;
	switch (id) {
	case CV_TIME_NS: return (int64_t)ev->time_ns;
	case CV_SYSCALL: return ev->syscall_nr;
	case CV_SNAPSHOT: return ev->snapshot;
	case CV_CHILD: return ev->child;
	case CV_FORMER_TID: return ev->former_tid;
	case CV_STATUS: return ev->status;
	case CV_GROUP_EXIT: return ev->group_exit;
	case CV_THREAD: return ev->thread;
	case CV_MODULE_BIAS:
	case CV_SEGMENT_INDEX:
	case CV_SEGMENT_VADDR:
	case CV_SEGMENT_OFFSET:
	case CV_SEGMENT_ANON:
		return where_long(ev->where, id);
	}
	return maptap_event_is_range(ev->kind) ? vma_long(ev, id) : 0;
}

int64_t tr_cvar_long(struct interp *I, int id)
{
	if (id >= TR_SDT_CVAR_BASE)
		return tr_sdt_cvar_long(I, id);
	if (id <= CV_SC_RETURN)
		return syscall_long(I->tgt->sc, id);
	if (id == CV_UP_RETURN)
		return I->tgt->up ? (int64_t)I->tgt->up->regs->rax : 0;
	return event_long(I->tgt, id);
}

static const char *module_str(const struct maptap_module_info *mi, int id)
{
	switch (id) {
	case CV_MODULE_PATH: return mi->path;
	case CV_MODULE_BUILD_ID: return mi->build_id;
	case CV_MODULE_TYPE: return maptap_module_type_name(mi->type);
	}
	return NULL;
}

static const char *where_str(const struct maptap_module_desc *w, int id)
{
	if (!w || !w->has_module)
		return NULL;
	if (id == CV_SEGMENT_KIND)
		return w->has_segment ?
		       maptap_segment_kind_name(w->segment.kind) : NULL;
	return module_str(&w->module, id);
}

static void vma_str(struct maptap_script_buf *b, const struct maptap_vma *v,
		    int what)
{
	char perms[5], dev[MAPTAP_DEV_STR_MAX];

	if (what == CV_PERMS) {
		maptap_script_buf_adds(b, maptap_perms_str(v->perms, perms));
	} else if (what == CV_DEV) {
		/* not a printf: the default log reads $dev on every event */
		maptap_script_buf_adds(b, maptap_dev_str(v->dev_major,
							 v->dev_minor, dev));
	} else {
		maptap_script_buf_add(b, v->name, v->name_len);
	}
}

static const char *module_event_str(const struct maptap_module_event *me,
				    int id)
{
	if (id == CV_KIND)
		return me->kind == MAPTAP_MODULE_LOAD ? "module_load" :
		       "module_unload";
	if (id == CV_SYSCALL_NAME)
		return me->syscall;
	return module_str(me->module, id);
}

static const char *event_cstr(const struct maptap_event *ev, int id)
{
	switch (id) {
	case CV_KIND: return maptap_event_kind_name(ev->kind);
	case CV_SYSCALL_NAME: return ev->syscall;
	case CV_PATH: return ev->path;
	case CV_OLD_PATH: return ev->old_path;
	case CV_REASON: return ev->reason;
	}
	return where_str(ev->where, id);
}

static void event_str(const struct tr_target *t, int id,
		      struct maptap_script_buf *b)
{
	const struct maptap_event *ev = t->ev;
	const char *s = NULL;

	if (t->mev) {
		s = module_event_str(t->mev, id);
	} else if (!ev) {
		return;
	} else if (maptap_event_is_range(ev->kind) &&
		   (id == CV_PERMS || id == CV_DEV || id == CV_NAME)) {
		vma_str(b, &ev->vma, id);
		return;
	} else if (maptap_event_is_range(ev->kind) &&
		   (id == CV_OLD_PERMS || id == CV_OLD_DEV ||
		    id == CV_OLD_NAME)) {
		vma_str(b, &ev->old, id == CV_OLD_PERMS ? CV_PERMS :
			id == CV_OLD_DEV ? CV_DEV : CV_NAME);
		return;
	} else {
		s = event_cstr(ev, id);
	}
	if (s)
		maptap_script_buf_adds(b, s);
}

struct sref tr_cvar_str(struct interp *I, int id)
{
	struct maptap_script_buf *b = tr_tmp_get(I);
	const struct maptap_syscall_stop *sc = I->tgt->sc;
	struct sref r;
	int i;

	maptap_script_buf_clear(b);
	if (id == CV_SC_PARMS && sc) {
		for (i = 0; i < 6; i++)
			maptap_script_buf_printf(b, "%sarg%d=0x%" PRIx64,
						 i ? " " : "", i + 1,
						 sc->args[i]);
	} else if (id >= TR_SDT_CVAR_BASE) {
		tr_sdt_cvar_str(I, id, b);
	} else if (id == CV_UP_NAME) {
		maptap_script_buf_adds(b, I->cur && I->cur->up_func ?
				       I->cur->up_func : "");
	} else if (id > CV_SC_RETURN) {
		event_str(I->tgt, id, b);
	}
	maptap_script_buf_truncate(b, I->lim.maxstringlen - 1);
	r.p = maptap_script_buf_str(b);
	r.len = b->len;
	return r;
}
