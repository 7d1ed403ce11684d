/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* session.c -- the session object: its tables of threads, processes and
 * address spaces, its messages, and the public entry points that are not
 * the stop loop (launch.c, attach.c, loop.c).
 */
#include "tracer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int mt_error(struct maptap_session *s, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->errmsg, sizeof(s->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

void mt_diag(struct maptap_session *s, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!s->opts.on_diag)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->opts.on_diag(line, s->opts.arg);
}

uint64_t mt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void mt_event_init(struct maptap_event *ev, enum maptap_event_kind kind,
		   pid_t pid, pid_t tid)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->pid = pid;
	ev->tid = tid;
	ev->time_ns = mt_now_ns();
	ev->syscall_nr = -1;
	ev->vma.name = ev->old.name = "";
}

int mt_emit(struct maptap_session *s, struct maptap_event *ev)
{
	int rc;

	if (s->quiet)
		return 0;
	s->stats.events++;
	if (!s->opts.on_event)
		return 0;
	rc = s->opts.on_event(ev, s->opts.arg);
	if (rc)
		mt_callback_stop(s, rc, "on_event");
	return 0;
}

void mt_callback_stop(struct maptap_session *s, int rc, const char *who)
{
	if (s->quiet)
		return;
	s->quiet = true;
	s->stop_rc = rc;
	mt_error(s, rc, "%s returned %d: the session ends, no callback is made again",
		 who, rc);
}

void mt_set_fault(struct maptap_session *s,
		  int (*fn)(void *arg, int site, const struct mt_thread *t),
		  void *arg)
{
	s->fault = fn;
	s->fault_arg = arg;
}

/* ---- threads: open-addressing hash table keyed by tid ---- */

#define TOMB ((struct mt_thread *)1)

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
	if (t->call && t->call->cls == MAPTAP_SC_MAP)
		t->proc->mm->in_call--;
	if (t->deferred)	/* its mm is gone, or it ran no more */
		t->proc->mm->deferred--;
	t->proc->nthreads--;
	/* Its creator's event is still to come and must not adopt it
	 * again. */
	if (t->early)
		mt_gone_early_add(s, t->tid);
	mt_ustack_free(t->ustack);
	free(t);
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
	p->exe = mt_proc_exe(pid);
	p->next = s->procs;
	s->procs = p;
	return p;
}

void mt_proc_del(struct maptap_session *s, struct mt_proc *p)
{
	struct mt_proc **pp;

	for (pp = &s->procs; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	mt_mm_put(p->mm);
	free(p->exe);
	free(p);
}

/* ---- public API ---- */

int maptap_session_new(const struct maptap_session_opts *opts,
		       struct maptap_session **out)
{
	struct maptap_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	if (opts)
		s->opts = *opts;
	s->exit_status = -1;
	if (pipe2(s->wake, O_NONBLOCK | O_CLOEXEC) != 0) {
		free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

static void free_threads(struct maptap_session *s)
{
	size_t i;

	for (i = 0; i < s->threads.cap; i++) {
		struct mt_thread *t = s->threads.slot[i];

		if (t && t != TOMB) {
			mt_ustack_free(t->ustack);
			free(t);
		}
	}
	free(s->threads.slot);
}

void maptap_session_free(struct maptap_session *s)
{
	if (!s)
		return;
	mt_perf_free(s);
	/* Still tracing: a launched command dies with us (EXITKILL); an
	 * attached process must not be left in a ptrace-stop. */
	if (s->threads.n && !s->launched)
		maptap_session_request_detach(s, 0);
	else if (s->threads.n && s->launched_pid > 0 && !s->launched_reaped)
		kill(s->launched_pid, SIGKILL);	/* not once reaped: the
						 * pid may be another's */
	/* A run ended by a callback's value (on_event) returns it once;
	 * the next traces quietly to the end. */
	if (s->threads.n && maptap_session_run(s) != 0 && s->threads.n)
		maptap_session_run(s);
	/* What the run could not end (it returns early on an error) is
	 * said and dropped, never waited for again. */
	if (s->threads.n)
		mt_forget_lost(s, "still traced when the session ended");
	free_threads(s);
	free(s->gone_early.tid);
	mt_waitq_free(s);
	mt_listeners_free(s);
	mt_uprobes_free(s->up);
	while (s->procs)
		mt_proc_del(s, s->procs);
	maptap_vma_buf_free(&s->buf);
	maptap_vma_buf_free(&s->buf2);
	close(s->wake[0]);
	close(s->wake[1]);
	free(s);
}

/* From a signal handler: only atomics, write(2), and errno kept. */
void maptap_session_request_detach(struct maptap_session *s, int signo)
{
	uint64_t bit = signo > 0 && signo < 64 ? 1ULL << signo : 1;
	int saved = errno;

	__atomic_fetch_or(&s->detach_req, bit, __ATOMIC_SEQ_CST);
	/* A full pipe fails with EAGAIN: a wake-up is pending anyway. */
	(void)!write(s->wake[1], "", 1);
	errno = saved;
}

int maptap_session_exit_status(const struct maptap_session *s)
{
	return s->exit_status;
}

const struct maptap_mm *maptap_session_mm(const struct maptap_session *s,
					  pid_t pid)
{
	struct mt_proc *p = mt_proc_find((struct maptap_session *)s, pid);

	return p ? p->mm->model : NULL;
}

void maptap_session_get_stats(const struct maptap_session *s,
			      struct maptap_session_stats *out)
{
	*out = s->stats;
}

int maptap_session_get_regs(struct maptap_session *s, pid_t tid,
			    struct user_regs_struct *regs)
{
	struct mt_thread *t = mt_thread_find(s, tid);

	if (!t)
		return -ESRCH;
	/* ptrace(2) would refuse a running thread with ESRCH too, which
	 * would not tell "not ours" from "not now". */
	if (!t->stopped)
		return -EBUSY;
	if (ptrace(PTRACE_GETREGS, tid, 0L, regs) != 0)
		return -errno;
	return 0;
}

const char *maptap_session_events(const struct maptap_session *s,
				  enum maptap_events_source *used)
{
	if (used)
		*used = s->perf_used ? MAPTAP_EVENTS_PERF : MAPTAP_EVENTS_PTRACE;
	return s->events_why;
}

const char *maptap_session_errmsg(const struct maptap_session *s)
{
	return s->errmsg;
}

const char *maptap_version(void)
{
	return PACKAGE_VERSION;
}
