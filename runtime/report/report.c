/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report.c -- maptap --report: who holds the address space.
 *
 * Per process (record), an interval map of the mapped bytes, each range
 * charged to a site and tagged with a class; per site, live and peak
 * bytes.  The event rules are those of maptap/report.h; what a site and a
 * class are is in docs/report.md.  A pid seen again after its process
 * exited (a fork or attach of a reused pid) starts a new record: the old
 * one stays, frozen, for the report; so does the record of an image an
 * exec replaced.  A process that shares another's mm (vfork) charges its
 * range events to that one's record until it execs or exits.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_state.h"

/* ---- processes ---- */

static bool pid_match(const void *ctx, uint32_t idx, const void *key)
{
	const struct maptap_report *r = ctx;

	return r->procs[idx]->pid == *(const pid_t *)key;
}

static uint64_t pid_hash(const void *ctx, uint32_t idx)
{
	const struct maptap_report *r = ctx;

	return mt_hash64((uint64_t)r->procs[idx]->pid);
}

static struct rp_proc *proc_find(const struct maptap_report *r, pid_t pid)
{
	long id = rp_ix_find(&r->pid_ix, mt_hash64((uint64_t)pid), pid_match,
			     r, &pid);

	return id < 0 ? NULL : r->procs[id];
}

static void proc_free(struct rp_proc *p)
{
	size_t i;

	if (!p)
		return;
	rp_map_free(&p->map);
	for (i = 0; i < p->nsites; i++) {
		rp_frames_free(p->sites[i].frames, p->sites[i].nframes);
		free(p->sites[i].frames);
	}
	for (i = 0; i < p->ndl; i++) {
		rp_frames_free(p->dl[i].frames, p->dl[i].nframes);
		free(p->dl[i].frames);
		free(p->dl[i].path);
	}
	free(p->dl);
	free(p->sites);
	free(p->site_ix.slot);
	free(p->exe);
	free(p->exec_path);
	free(p);
}

/* A new record for PID, which becomes the one PID names. */
static struct rp_proc *proc_new(struct maptap_report *r, pid_t pid)
{
	struct rp_proc *p = calloc(1, sizeof(*p));
	bool had = proc_find(r, pid) != NULL;
	uint64_t h = mt_hash64((uint64_t)pid);
	unsigned w;

	if (!p || rp_grow((void **)&r->procs, &r->procs_cap, r->nprocs + 1,
		       sizeof(*r->procs)))
		goto fail;
	p->pid = pid;
	rp_map_init(&p->map, mt_hash64((uint64_t)pid ^ r->nprocs));
	for (w = 0; w < RP_W_CALL; w++) {
		struct rp_site_key k = { w, 0, NULL };

		if (rp_site_get(r, p, &k) < 0)
			goto fail;
	}
	p->snap_site = RP_W_BEFORE_ATTACH;
	if (had)
		rp_ix_set(&r->pid_ix, h, pid_match, r, &pid,
			  (uint32_t)r->nprocs);
	else if (rp_ix_add(&r->pid_ix, h, (uint32_t)r->nprocs, pid_hash, r))
		goto fail;
	r->procs[r->nprocs++] = p;
	return p;
fail:
	proc_free(p);
	return NULL;
}

/* The live record of PID: a new one when PID is unknown or its process
 * exited (a reused pid). */
static struct rp_proc *proc_fresh(struct maptap_report *r, pid_t pid)
{
	struct rp_proc *p = proc_find(r, pid);

	return p && !p->exited && !p->detached && !p->execd ? p :
							      proc_new(r, pid);
}

static struct rp_proc *proc_get(struct maptap_report *r, pid_t pid)
{
	struct rp_proc *p = proc_find(r, pid);

	return p ? p : proc_new(r, pid);
}

static int set_exe(struct rp_proc *p, const char *path)
{
	char *d;

	if (!path)
		return 0;
	d = strdup(path);
	if (!d)
		return -ENOMEM;
	free(p->exe);
	p->exe = d;
	return 0;
}

/* ---- processes that share an mm (vfork, CLONE_VM) ---- */

static long share_find(const struct maptap_report *r, pid_t pid)
{
	size_t i;

	for (i = 0; i < r->nshare; i++)
		if (r->share[i].pid == pid)
			return (long)i;
	return -1;
}

/* The pid whose record PID's range events go to: PID itself unless it
 * shares another's mm. */
static pid_t share_owner(const struct maptap_report *r, pid_t pid)
{
	long i = r->nshare ? share_find(r, pid) : -1;

	return i < 0 ? pid : r->share[i].owner;
}

pid_t maptap_report_mm_owner(const struct maptap_report *r, pid_t pid)
{
	return r ? share_owner(r, pid) : pid;
}

/* CHILD shares the mm of PARENT (and so of whatever PARENT shares). */
static int share_add(struct maptap_report *r, pid_t parent, pid_t child)
{
	pid_t owner = share_owner(r, parent);

	if (child == owner || share_find(r, child) >= 0)
		return 0;
	if (rp_grow((void **)&r->share, &r->share_cap, r->nshare + 1,
		    sizeof(*r->share)))
		return -ENOMEM;
	r->share[r->nshare++] = (struct rp_share){ child, owner };
	return 0;
}

/* PID's own mm begins (exec) or it ends: true when it was sharing. */
static bool share_drop(struct maptap_report *r, pid_t pid)
{
	long i = r->nshare ? share_find(r, pid) : -1;

	if (i < 0)
		return false;
	r->share[i] = r->share[--r->nshare];
	return true;
}

/* ---- accounting ---- */

/* S is about to change: the first change since P's latest peak saves
 * what S held at it.  O(1) per change, nothing per peak. */
static void keep_at_peak(const struct rp_proc *p, struct rp_site *s)
{
	if (s->at_peak_gen != p->peak_gen) {
		s->at_peak = s->live;
		s->at_peak_gen = p->peak_gen;
	}
}

static void uncharge(void *arg, uint32_t site, uint64_t bytes)
{
	struct rp_proc *p = arg;

	keep_at_peak(p, &p->sites[site]);
	p->sites[site].live -= bytes;
}

static void charge(struct rp_proc *p, long site, uint64_t bytes)
{
	struct rp_site *s = &p->sites[site];

	if (!bytes)
		return;
	keep_at_peak(p, s);
	s->live += bytes;
	s->maps++;
	if (s->live > s->peak)
		s->peak = s->live;
}

static void note_peak(struct rp_proc *p, uint64_t time_ns)
{
	if (p->map.bytes > p->peak) {
		p->peak = p->map.bytes;
		p->peak_ns = time_ns;
		p->peak_gen++;
	}
}

static int on_snapshot(struct maptap_report *r, struct rp_proc *p,
		       const struct maptap_event *ev, long cls)
{
	uint64_t added;
	int err;

	(void)r;
	err = rp_map_fill(&p->map, ev->vma.start, ev->vma.end, p->snap_site,
			  (uint32_t)cls, &added);
	if (!err)
		charge(p, p->snap_site, added);
	return err;
}

static int on_grow(struct rp_proc *p, const struct maptap_event *ev,
		   long site, long cls)
{
	const struct maptap_vma *v = &ev->vma, *o = &ev->old;
	uint64_t lo = o->start > v->start ? o->start : v->start;
	uint64_t hi = o->end < v->end ? o->end : v->end;
	int err = 0;

	if (lo >= hi)	/* no unchanged part: all of it is new */
		lo = hi = v->end;
	if (v->start < lo)
		err = rp_map_assign(&p->map, v->start, lo, (uint32_t)site,
				    (uint32_t)cls, uncharge, p);
	if (!err && hi < v->end)
		err = rp_map_assign(&p->map, hi, v->end, (uint32_t)site,
				    (uint32_t)cls, uncharge, p);
	if (!err)
		charge(p, site, (lo - v->start) + (v->end - hi));
	return err;
}

static int on_shrink(struct rp_proc *p, const struct maptap_event *ev)
{
	const struct maptap_vma *v = &ev->vma, *o = &ev->old;
	int err = 0;

	if (o->start < v->start)
		err = rp_map_erase(&p->map, o->start, v->start, uncharge, p);
	if (!err && v->end < o->end)
		err = rp_map_erase(&p->map, v->end, o->end, uncharge, p);
	return err;
}

static bool brings_bytes(const struct maptap_event *ev)
{
	switch (ev->kind) {
	case MAPTAP_EV_MAP:
	case MAPTAP_EV_REPLACE:
	case MAPTAP_EV_GROW:
		return true;
	case MAPTAP_EV_MOVE:
		return ev->vma.end - ev->vma.start >
		       ev->old.end - ev->old.start;
	default:
		return false;
	}
}

bool rp_event_of_exec(const struct maptap_event *ev)
{
	return ev->syscall && (!strcmp(ev->syscall, "execve") ||
			       !strcmp(ev->syscall, "execveat"));
}

bool maptap_report_wants_stack(const struct maptap_event *ev)
{
	return ev && maptap_event_is_range(ev->kind) && ev->syscall_nr >= 0 &&
	       !ev->snapshot && !rp_event_of_exec(ev) && brings_bytes(ev);
}

bool maptap_report_has_site(const struct maptap_report *r, pid_t pid,
			    const struct maptap_frame *frames,
			    unsigned nframes)
{
	unsigned i;

	if (!r || !frames)
		return false;
	for (i = 0; i < nframes; i++) {
		const char *base, *sym;

		rp_frame_quick(r->m, pid, &frames[i], &base, &sym);
		if (!rp_frame_internal(base, sym))
			return true;
	}
	return false;
}

static int on_range(struct maptap_report *r, struct rp_proc *p,
		    const struct maptap_event *ev,
		    const struct maptap_frame *frames, unsigned n)
{
	const struct maptap_vma *v = &ev->vma;
	long cls = 0, site = 0;
	uint64_t added;
	int err;

	if (ev->kind != MAPTAP_EV_UNMAP && ev->kind != MAPTAP_EV_SHRINK) {
		cls = rp_class_of(r, ev);
		if (cls < 0)
			return (int)cls;
	}
	if (ev->kind == MAPTAP_EV_MAP && ev->snapshot)
		return on_snapshot(r, p, ev, cls);
	if (brings_bytes(ev)) {
		site = rp_site_for(r, p, ev, frames, n);
		if (site < 0)
			return (int)site;
	}
	switch (ev->kind) {
	case MAPTAP_EV_MAP:
	case MAPTAP_EV_REPLACE:
		err = rp_map_assign(&p->map, v->start, v->end, (uint32_t)site,
				    (uint32_t)cls, uncharge, p);
		if (!err)
			charge(p, site, v->end - v->start);
		return err;
	case MAPTAP_EV_UNMAP:
		return rp_map_erase(&p->map, v->start, v->end, uncharge, p);
	case MAPTAP_EV_PROTECT:
	case MAPTAP_EV_RENAME:
		return rp_map_reclass(&p->map, v->start, v->end,
				      (uint32_t)cls);
	case MAPTAP_EV_MOVE:
		err = rp_map_move(&p->map, ev->old.start, ev->old.end,
				  v->start, v->end, (uint32_t)site,
				  (uint32_t)cls, uncharge, p, &added);
		if (!err)
			charge(p, site, added);
		return err;
	case MAPTAP_EV_GROW:
		return on_grow(p, ev, site, cls);
	case MAPTAP_EV_SHRINK:
		return on_shrink(p, ev);
	default:
		return 0;
	}
}

/* A fork child is what its snapshot says (the map events with snapshot
 * set that follow, under its pid), charged to "inherited"; not a copy of
 * the parent's map, which has what the kernel does not copy
 * (MADV_DONTFORK): docs/model.md, "Processes". */
static int on_fork(struct maptap_report *r, const struct maptap_event *ev)
{
	struct rp_proc *parent = proc_find(r, share_owner(r, ev->pid)), *c;

	c = proc_fresh(r, ev->child);
	if (!c)
		return -ENOMEM;
	c->snap_site = RP_W_INHERITED;
	return set_exe(c, ev->path ? ev->path : parent ? parent->exe : NULL);
}

/* Each program image has its own record: the old one ends "replaced by
 * exec" with its peak, the new one starts empty.  A vfork child had no
 * record of its own: its first one starts here. */
static int on_exec(struct maptap_report *r, const struct maptap_event *ev)
{
	struct rp_proc *old = share_drop(r, ev->pid) ? NULL :
			      proc_find(r, ev->pid), *p;

	if (old && old->exited)		/* frozen, as for range events */
		return 0;
	if (old && !old->detached) {
		if (ev->path) {
			old->exec_path = strdup(ev->path);
			if (!old->exec_path)
				return -ENOMEM;
		}
		old->execd = true;
	}
	p = proc_new(r, ev->pid);
	if (!p)
		return -ENOMEM;
	p->snap_site = RP_W_EXECVE;
	return set_exe(p, ev->path);
}

static int on_process(struct maptap_report *r, const struct maptap_event *ev)
{
	struct rp_proc *p;

	switch (ev->kind) {
	case MAPTAP_EV_ATTACH:
		p = proc_fresh(r, ev->pid);
		if (!p)
			return -ENOMEM;
		p->snap_site = RP_W_BEFORE_ATTACH;
		return set_exe(p, ev->path);
	case MAPTAP_EV_EXEC:
		return on_exec(r, ev);
	case MAPTAP_EV_FORK:
		return on_fork(r, ev);
	case MAPTAP_EV_CLONE:
		return ev->thread ? 0 : share_add(r, ev->pid, ev->child);
	case MAPTAP_EV_EXIT:
		/* A vfork child that never exec'd leaves no record. */
		if (ev->group_exit && share_drop(r, ev->pid))
			return 0;
		p = share_owner(r, ev->pid) == ev->pid ?
			    proc_find(r, ev->pid) : NULL;
		if (p && ev->group_exit && !p->exited) {
			p->exited = true;
			p->status = ev->status;
		}
		return 0;
	case MAPTAP_EV_DETACH:
		if (share_drop(r, ev->pid))
			return 0;
		p = proc_find(r, ev->pid);
		if (p)
			p->detached = true;
		return 0;
	default:
		return 0;
	}
}

/* A process event that failed leaves its process incomplete. */
static int process_event(struct maptap_report *r,
			 const struct maptap_event *ev)
{
	int err = on_process(r, ev);
	struct rp_proc *p;

	if (!err)
		return 0;
	p = proc_find(r, ev->kind == MAPTAP_EV_FORK ? ev->child : ev->pid);
	if (p)
		p->incomplete = true;
	return err;
}

int maptap_report_event(struct maptap_report *r,
			const struct maptap_event *ev,
			const struct maptap_frame *frames, unsigned nframes)
{
	struct rp_proc *p;
	int err;

	if (!r || !ev)
		return -EINVAL;
	if (!r->first_ns)
		r->first_ns = ev->time_ns ? ev->time_ns : 1;
	if (!maptap_event_is_range(ev->kind))
		return process_event(r, ev);
	p = proc_get(r, share_owner(r, ev->pid));
	if (!p)
		return -ENOMEM;
	if (p->exited)		/* frozen as it was at its exit */
		return 0;
	err = on_range(r, p, ev, frames, nframes);
	if (err)
		p->incomplete = true;
	note_peak(p, ev->time_ns);
	return err;
}

/* ---- dlopen / dlclose ---- */

static int dl_add(struct maptap_report *r, struct rp_proc *p,
		  const struct maptap_module_event *me, enum rp_dl_op op,
		  const struct maptap_frame *frames, unsigned n)
{
	struct rp_dl *d;
	unsigned first;

	/* The stack from the caller of dlopen/dlclose: the first frame
	 * outside libc and the loader. */
	for (first = 0; first < n; first++) {
		const char *base, *sym;

		rp_frame_quick(r->m, p->pid, &frames[first], &base, &sym);
		if (!rp_module_is_libc(base))
			break;
	}
	if (rp_grow((void **)&p->dl, &p->dl_cap, p->ndl + 1, sizeof(*d)))
		return -ENOMEM;
	d = &p->dl[p->ndl];
	memset(d, 0, sizeof(*d));
	d->op = op;
	d->time_ns = me->time_ns;
	d->tid = me->tid;
	d->path = strdup(me->module && me->module->path ? me->module->path :
			 "");
	if (!d->path)
		return -ENOMEM;
	if (first < n) {
		d->frames = calloc(n - first, sizeof(*d->frames));
		if (!d->frames || rp_frames_symbolize(r->m, p->pid,
						      frames + first,
						      n - first, d->frames)) {
			free(d->frames);
			free(d->path);
			return -ENOMEM;
		}
		d->nframes = n - first;
	}
	p->ndl++;
	return 0;
}

/* What a module load (LOAD) or unload made by FRAMES is: a load through
 * dlopen is a dlopen.  An unload is what the innermost dl call on the
 * stack asked for: dlclose, or dlopen when the loader undoes a library
 * that did not link (glibc's dl-open.c calls _dl_close_worker itself,
 * with no dlclose: a failed dlopen).  So _dl_close_worker alone, shared
 * by both, decides nothing. */
static enum rp_dl_op module_dl_op(struct maptap_report *r,
				  const struct rp_proc *p, bool load,
				  const struct maptap_frame *frames,
				  unsigned n)
{
	unsigned i;

	for (i = 0; frames && i < n; i++) {
		const char *base, *sym;
		enum rp_dl_op op;

		rp_frame_quick(r->m, p->pid, &frames[i], &base, &sym);
		op = rp_symbol_dl_op(sym);
		if (op == RP_DL_OPEN)
			return load ? RP_DL_OPEN : RP_DL_OPEN_FAILED;
		if (op == RP_DL_CLOSE && !load && !rp_symbol_is(sym,
							"_dl_close_worker"))
			return RP_DL_CLOSE;
	}
	return RP_DL_NONE;
}

int maptap_report_module_event(struct maptap_report *r,
			       const struct maptap_module_event *me,
			       const struct maptap_frame *frames,
			       unsigned nframes)
{
	enum rp_dl_op op;
	struct rp_proc *p;
	int err;

	if (!r || !me)
		return -EINVAL;
	/* Data files the loader maps on the way (/etc/ld.so.cache, while
	 * dlopen searches) are no libraries: only ELF objects count. */
	if (!me->module || me->module->type == MAPTAP_MODULE_FILE ||
	    me->module->type == MAPTAP_MODULE_JIT)
		return 0;
	p = proc_get(r, share_owner(r, me->pid));
	if (!p)
		return -ENOMEM;
	if (p->exited)
		return 0;
	op = module_dl_op(r, p, me->kind == MAPTAP_MODULE_LOAD, frames,
			  nframes);
	if (op == RP_DL_NONE) {
		if (me->kind == MAPTAP_MODULE_LOAD)
			p->loads_at_start++;
		return 0;
	}
	err = dl_add(r, p, me, op, frames, nframes);
	if (err)
		p->incomplete = true;
	return err;
}

/* ---- the object ---- */

int maptap_report_new(struct maptap_modules *m,
		      const struct maptap_report_opts *opts,
		      struct maptap_report **out)
{
	struct maptap_report *r;

	if (!m || !out)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->m = m;
	if (opts)
		r->opts = *opts;
	if (!r->opts.site_frames)
		r->opts.site_frames = 3;
	if (!r->opts.top)
		r->opts.top = 20;
	*out = r;
	return 0;
}

void maptap_report_free(struct maptap_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nprocs; i++)
		proc_free(r->procs[i]);
	for (i = 0; i < r->ncls; i++)
		free(r->cls[i].key);
	free(r->procs);
	free(r->pid_ix.slot);
	free(r->cls);
	free(r->cls_ix.slot);
	free(r->share);
	free(r);
}

int maptap_report_totals(const struct maptap_report *r, pid_t pid,
			 struct maptap_report_totals *out)
{
	const struct rp_proc *p = r ? proc_find(r, pid) : NULL;
	size_t i;

	if (!p || !out)
		return -ESRCH;
	memset(out, 0, sizeof(*out));
	out->live_bytes = p->map.bytes;
	out->peak_bytes = p->peak;
	out->peak_ns = p->peak_ns;
	for (i = 0; i < p->nsites; i++)
		if (p->sites[i].live)
			out->sites++;
	out->exited = p->exited;
	out->ended = p->exited || p->detached;
	out->status = p->status;
	return 0;
}
