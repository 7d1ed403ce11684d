/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fire.c -- which probes an event of a traced process fires, and in what
 * order (target.c's header comment has the rules): the probe lists by
 * event kind, lifetime point, system call and breakpoint; running a
 * list's handlers; module events, a load fired before the range event
 * that made it and an unload held until that event has fired; and the
 * lifetime points, as stap's process probes.  Split from target.c,
 * which keeps the session, its callbacks, signals and the run; the code
 * is as it was there.
 */
#include <config.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <maptap/maptap.h>

#include "interp.h"
#include "target.h"
#include "target_int.h"

/* ---- which probes fire ---- */

static void plist_add(struct plist *l, const struct tr_dprobe *dp)
{
	const struct tr_dprobe **v = realloc(l->v, sizeof(*v) *
					     (size_t)(l->n + 1));

	if (!v)
		return;
	v[l->n++] = dp;
	l->v = v;
}

static int cmp_order(const void *a, const void *b)
{
	const struct tr_dprobe *x = *(const struct tr_dprobe *const *)a;
	const struct tr_dprobe *y = *(const struct tr_dprobe *const *)b;

	return x->order - y->order;
}

static void sort_plist(struct plist *l)
{
	if (l->n > 1)
		qsort(l->v, (size_t)l->n, sizeof(*l->v), cmp_order);
}

/* Sort the script's probes by what fires them, and the system calls
 * they need into OPTS. */
void tr_index_probes(struct run *r, struct maptap_session_opts *so)
{
	const struct ptr_vec *pv = &r->I->el->probes;
	int i, b, w;

	for (i = 0; i < pv->n; i++) {
		const struct tr_dprobe *dp = pv->v[i];

		switch (dp->kind) {
		case PK_EVENT:
			for (b = 0; b < N_EVBITS; b++)
				if (dp->events & (1u << b))
					plist_add(&r->by_event[b], dp);
			break;
		case PK_PROCESS:
			plist_add(&r->by_point[dp->proc_point], dp);
			break;
		case PK_PERF:
			plist_add(&r->perf, dp);
			break;
		case PK_UPROBE:
			plist_add(&r->uprobes, dp);
			break;
		case PK_SYSCALL:
			plist_add(&r->syscalls, dp);
			so->all_syscalls |= dp->all_syscalls;
			for (w = 0; w < MAPTAP_SYSCALL_SET_WORDS; w++)
				so->syscalls[w] |= dp->syscalls[w];
			break;
		default:
			break;
		}
	}
	for (b = 0; b < N_EVBITS; b++)
		sort_plist(&r->by_event[b]);
	for (b = 0; b < 4; b++)
		sort_plist(&r->by_point[b]);
	sort_plist(&r->syscalls);
	sort_plist(&r->perf);
	sort_plist(&r->uprobes);
}

/* ---- running handlers ---- */

/* Script output goes to the stream after every handler; the stream is
 * flushed at process events (as the C log did), timers and the end. */
void tr_output(struct interp *I, bool flush)
{
	if (flush) {
		tr_interp_flush(I);
		return;
	}
	tr_interp_output(I);
}

void tr_set_ctx(struct run *r, pid_t pid, pid_t tid, bool stopped)
{
	r->pub.pid = pid;
	r->pub.tid = tid;
	r->pub.stopped = stopped;
}

void tr_clear_ctx(struct run *r)
{
	tr_set_ctx(r, 0, 0, false);
	r->pub.ev = NULL;
	r->pub.mev = NULL;
	r->pub.sc = NULL;
	r->pub.sample = NULL;
	r->pub.up = NULL;
	r->pub.entry = NULL;
	r->pub.nentry = 0;
	r->pub.entry_regs = NULL;
	r->pub.comm = NULL;
}

/* exit() or too many errors: stop tracing as tr_target_finish() says. */
void tr_after_handler(struct run *r)
{
	struct interp *I = r->I;

	if (!I->exit_requested || r->killed_by_exit)
		return;
	r->killed_by_exit = r->launched;
	maptap_session_request_detach(r->pub.sess, r->launched ? SIGKILL : 0);
}

void tr_fire(struct run *r, const struct plist *l, const char *exe,
	     bool check_proc)
{
	struct interp *I = r->I;
	int i;

	for (i = 0; i < l->n && !I->exit_requested; i++) {
		if (check_proc && !tr_proc_matches(l->v[i], r->pub.pid, exe))
			continue;
		tr_interp_run_probe(I, l->v[i]);
		tr_output(I, false);
		tr_after_handler(r);
	}
}

/* Fire the probes of lifetime point PT for thread TID of process PID,
 * running EXE; COMM: its name when the task is gone, else NULL. */
void tr_fire_point(struct run *r, enum tr_proc_point pt, pid_t pid,
		   pid_t tid, bool stopped, const char *exe,
		   const char *comm)
{
	const struct maptap_event *ev = r->pub.ev;

	if (!r->by_point[pt].n)
		return;
	tr_clear_ctx(r);
	r->pub.ev = ev;
	r->pub.comm = comm;
	tr_set_ctx(r, pid, tid, stopped);
	tr_fire(r, &r->by_point[pt], exe, true);
}

static void fire_module_event(struct run *r,
			      const struct maptap_module_event *me)
{
	unsigned bit = me->kind == MAPTAP_MODULE_LOAD ? MAPTAP_EV_KIND_COUNT :
		       MAPTAP_EV_KIND_COUNT + 1;

	if (!r->by_event[bit].n || r->I->exit_requested)
		return;
	tr_clear_ctx(r);
	r->pub.mev = me;
	tr_set_ctx(r, me->pid, me->tid, true);
	tr_fire(r, &r->by_event[bit], NULL, false);
	tr_clear_ctx(r);
}

/* Start a new batch when EV is not of the current one: the unloads of
 * the last batch have all fired and are forgotten. */
void tr_batch_begin(struct run *r, const struct maptap_event *ev)
{
	if (ev->pid == r->batch_pid && ev->time_ns == r->batch_ns)
		return;
	r->batch_pid = ev->pid;
	r->batch_ns = ev->time_ns;
	r->nunloads = r->unloads_sent = 0;
}

int tr_on_module_event(const struct maptap_module_event *me, void *arg)
{
	struct run *r = arg;
	struct maptap_module_event *v;
	size_t cap;

	if (r->rep)
		tr_report_module_event(r, me);
	if (me->kind == MAPTAP_MODULE_LOAD) {
		fire_module_event(r, me);
		return 0;
	}
	/* Its text is gone: so are its breakpoints. */
	if (r->uprobes.n)
		maptap_uprobe_forget(r->pub.sess, me->pid, me->module->lo,
				     me->module->hi);
	/* ME->module lives as long as the tracker, ME->syscall is the
	 * syscall table's: a copy of the event stays valid. */
	if (r->nunloads == r->unloads_cap) {
		cap = r->unloads_cap ? 2 * r->unloads_cap : 8;
		v = realloc(r->unloads, cap * sizeof(*v));
		if (!v) {
			fire_module_event(r, me);	/* early, not lost */
			return 0;
		}
		r->unloads = v;
		r->unloads_cap = cap;
	}
	r->unloads[r->nunloads++] = *me;
	return 0;
}

/* Fire the unloads held since the last call. */
void tr_fire_unloads(struct run *r)
{
	while (r->unloads_sent < r->nunloads)
		fire_module_event(r, &r->unloads[r->unloads_sent++]);
}

/* The desc of an unmap of anonymous memory that was the bss of a module
 * unloaded earlier in this batch: munmap() of a library's whole span
 * comes as one unmap event per VMA in address order, so the module
 * layer has unloaded the instance at its last file-backed VMA and no
 * longer sees a bss after it.  The instance still resolves "as it was"
 * just before this batch (maptap_sym_lookup() with a time), and only an
 * instance unloaded in this batch is taken.  Returns whether DESC is
 * set. */
bool tr_bss_of_unloaded(struct run *r, const struct maptap_event *ev,
			struct maptap_module_desc *desc)
{
	struct maptap_sym_info si;
	const struct maptap_module_desc *w = &si.where;
	size_t i;

	if (ev->kind != MAPTAP_EV_UNMAP || ev->vma.inode || !r->nunloads ||
	    ev->time_ns < 2 ||
	    maptap_sym_lookup(r->pub.mods, ev->pid, ev->vma.start,
			      ev->time_ns - 1, 0, &si) ||
	    !w->has_segment || w->segment.kind != MAPTAP_SEG_BSS)
		return false;
	for (i = 0; i < r->nunloads; i++) {
		const struct maptap_module_info *mi = r->unloads[i].module;

		if (mi->path == w->module.path && mi->bias == w->module.bias) {
			*desc = *w;
			return true;
		}
	}
	return false;
}

/* P's name at its end: the session's (the name at its exec, or a later
 * rename: the main thread's exit stop in ptrace mode, perf's COMM
 * records), else the name it had at its begin. */
static const char *end_comm(struct run *r, const struct proc *p)
{
	const char *c = NULL;

	if (maptap_session_proc(r->pub.sess, p->pid, NULL, &c) == 0 && c &&
	    *c)
		return c;
	return p->comm;
}

/* The lifetime points an event means (the header comment's rules). */
void tr_lifetime(struct run *r, const struct maptap_event *ev)
{
	struct proc *p;

	switch (ev->kind) {
	case MAPTAP_EV_EXEC:
		if (!tr_proc_find(r, ev->pid))
			break;	/* -c's command before its first exec */
		tr_fire_point(r, TR_PROC_END, ev->pid, ev->tid, true,
			   ev->old_path, NULL);
		break;
	case MAPTAP_EV_CLONE:
		/* A vfork or CLONE_VM child is a process: its begin
		 * comes from on_ready. */
		if (r->by_point[TR_THREAD_BEGIN].n && ev->thread) {
			p = tr_proc_find(r, ev->pid);
			tr_fire_point(r, TR_THREAD_BEGIN, ev->pid, ev->child,
				   false, p ? p->exe : NULL, NULL);
		}
		break;
	case MAPTAP_EV_EXIT:
		p = tr_proc_find(r, ev->pid);
		if (!p)
			break;
		if (!ev->group_exit) {
			tr_fire_point(r, TR_THREAD_END, ev->pid, ev->tid, false,
				   p->exe, end_comm(r, p));
			break;
		}
		tr_fire_point(r, TR_PROC_END, ev->pid, ev->tid, false, p->exe,
			   end_comm(r, p));
		tr_proc_forget(r, ev->pid);
		break;
	case MAPTAP_EV_DETACH:
		if (ev->pid == ev->tid)
			tr_proc_forget(r, ev->pid);
		break;
	default:
		break;
	}
}
