/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* threads.c -- a session's tables: its traced threads, in an
 * open-addressing hash table keyed by tid, its processes, and their
 * address spaces (struct mt_mm), shared by reference count between the
 * processes of one mm (CLONE_VM).  Split from session.c (the public
 * lifecycle), which only frees what is left here.
 */
#include "tracer_priv.h"

#include <errno.h>
#include <stdlib.h>

/* ---- threads: open-addressing hash table keyed by tid ---- */

#define TOMB MT_THREAD_TOMB

static size_t hash_tid(pid_t tid, size_t cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

struct mt_thread *mt_thread_find(struct maptap_session *s, pid_t tid)
{
	struct mt_thread_table *tt = &s->threads;
	size_t i;

	if (!tt->cap)
		return NULL;
	for (i = hash_tid(tid, tt->cap);; i = (i + 1) & (tt->cap - 1)) {
		struct mt_thread *t = tt->slot[i];

		if (!t)
			return NULL;
		if (t != TOMB && t->tid == tid)
			return t;
	}
}

static int table_grow(struct mt_thread_table *tt)
{
	size_t i, cap = tt->cap ? tt->cap * 2 : 64;
	struct mt_thread **slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (i = 0; i < tt->cap; i++) {
		struct mt_thread *t = tt->slot[i];
		size_t j;

		if (!t || t == TOMB)
			continue;
		for (j = hash_tid(t->tid, cap); slot[j]; j = (j + 1) & (cap - 1))
			;
		slot[j] = t;
	}
	free(tt->slot);
	tt->slot = slot;
	tt->cap = cap;
	tt->tombs = 0;
	return 0;
}

struct mt_thread *mt_thread_add(struct maptap_session *s, pid_t tid,
				struct mt_proc *proc)
{
	struct mt_thread_table *tt = &s->threads;
	struct mt_thread *t;
	size_t i;

	if ((tt->n + tt->tombs + 1) * 2 > tt->cap && table_grow(tt))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->proc = proc;
	t->own_status = -1;
	proc->nthreads++;
	for (i = hash_tid(tid, tt->cap); tt->slot[i] && tt->slot[i] != TOMB;
	     i = (i + 1) & (tt->cap - 1))
		;
	if (tt->slot[i] == TOMB)
		tt->tombs--;
	tt->slot[i] = t;
	tt->n++;
	return t;
}

/* T and what it owns (its table slot is the caller's). */
static void thread_free(struct mt_thread *t)
{
	mt_ustack_free(t->ustack);
	mt_perf_stack_free(t->perf_stack);
	mt_perf_mremap_src_free(t);
	mt_perf_dup_free(&t->perf_dup);
	maptap_mm_free(t->perf_fork_image);
	maptap_mm_free(t->perf_fork.image);
	free(t);
}

void mt_thread_del(struct maptap_session *s, struct mt_thread *t)
{
	struct mt_thread_table *tt = &s->threads;
	size_t i;

	for (i = hash_tid(t->tid, tt->cap); tt->slot[i] != t;
	     i = (i + 1) & (tt->cap - 1))
		;
	tt->slot[i] = TOMB;
	tt->tombs++;
	tt->n--;
	/* Counted by the stop loop's set_call() only: perf mode sets
	 * t->call from its records and counts nothing (it went below 0). */
	if (t->call && t->call->cls == MAPTAP_SC_MAP && !s->perf &&
	    !s->perf_used)
		t->proc->mm->in_call--;
	if (t->deferred)	/* its mm is gone, or it ran no more */
		t->proc->mm->deferred--;
	t->proc->nthreads--;
	/* Its creator's event is still to come and must not adopt it
	 * again. */
	if (t->early)
		mt_gone_early_add(s, t->tid);
	thread_free(t);
}

/* ---- processes and address spaces ---- */

struct mt_mm *mt_mm_new(void)
{
	struct mt_mm *mm = calloc(1, sizeof(*mm));

	if (!mm)
		return NULL;
	mm->model = maptap_mm_new();
	if (!mm->model) {
		free(mm);
		return NULL;
	}
	mm->refs = 1;
	return mm;
}

void mt_mm_put(struct mt_mm *mm)
{
	if (!mm || --mm->refs > 0)
		return;
	maptap_mm_free(mm->model);
	maptap_mm_free(mm->perf_dontcopy);
	maptap_maps_close(mm->reader);
	mt_bps_free(mm->bps);
	free(mm);
}

struct mt_proc *mt_proc_find(struct maptap_session *s, pid_t pid)
{
	struct mt_proc *p;

	for (p = s->procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

struct mt_proc *mt_proc_new(struct maptap_session *s, pid_t pid,
			    struct mt_mm *mm)
{
	struct mt_proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pid = pid;
	p->mm = mm;
	/* perf: no status known (a launched command's was taken for exit
	 * code 0, and a signal that ended its threads was not logged) */
	p->perf_status = p->perf_leader_status = -1;
	p->exe = mt_proc_exe(pid);
	mt_proc_comm(pid, p->comm);
	p->next = s->procs;
	s->procs = p;
	return p;
}

int mt_proc_each_new_tid(struct maptap_session *s, struct mt_proc *p,
			 int (*take)(struct maptap_session *s,
				     struct mt_proc *p, pid_t tid))
{
	for (;;) {
		pid_t *tids;
		size_t i, n;
		int added = 0, err = mt_proc_tids(p->pid, &tids, &n);

		if (err)
			return err;
		for (i = 0; i < n; i++) {
			int r = mt_thread_find(s, tids[i]) ? 0 :
				take(s, p, tids[i]);

			if (r < 0) {
				free(tids);
				return r;
			}
			added += r;
		}
		free(tids);
		if (!added)
			return 0;
	}
}

void mt_proc_del(struct maptap_session *s, struct mt_proc *p)
{
	struct mt_proc **pp;
	size_t i;

	for (pp = &s->procs; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	mt_mm_put(p->mm);
	free(p->exe);
	free(p->perf_exec_wait.old_exe);
	for (i = 0; i < p->perf_exec_wait.nheld; i++)
		free(p->perf_exec_wait.held[i].rec);
	free(p->perf_exec_wait.held);
	free(p);
}

void mt_thread_table_free(struct maptap_session *s)
{
	size_t i;

	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *t = s->threads.slot[i];

		if (t && t != TOMB) {
			thread_free(t);
		}
	}
	free(s->threads.slot);
}
