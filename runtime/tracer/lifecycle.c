/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lifecycle.c -- the bookkeeping that keeps the session's threads equal
 * to the kernel's tracees (docs/tracer.md, "The thread lifecycle").
 *
 * A new child reports up to three things to its tracer: its creator's
 * PTRACE_EVENT_FORK/VFORK/CLONE, its own first stop, and its exit; the
 * kernel may deliver them in any order (the child runs on its own CPU,
 * or is scheduled before its creator on one CPU).  The child is adopted
 * at whichever of the first two comes first.  When its record is
 * dropped (exit, or let go for PTRACE_TRACEME) before its creator's
 * event, that event must not adopt it again: the set below remembers
 * such tids until the event comes.  Without it, the creator's event
 * made a second `fork` for a child already gone, and the session
 * waited for ever for a thread the kernel no longer had.
 */
#include "tracer_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

/* A creator killed between its fork and its event never reports the
 * event; its child's tid stays here.  That costs nothing but memory
 * (a reused tid whose creator's event finds it here is adopted at its
 * own first stop instead), so the set is only bounded. */
#define GONE_EARLY_MAX 4096

void mt_gone_early_add(struct maptap_session *s, pid_t tid)
{
	struct mt_tid_set *g = &s->gone_early;

	mt_gone_early_take(s, tid);
	if (g->n == GONE_EARLY_MAX) {
		memmove(g->tid, g->tid + 1, (g->n - 1) * sizeof(*g->tid));
		g->n--;
	}
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 16;
		pid_t *p = realloc(g->tid, cap * sizeof(*p));

		if (!p)
			return;	/* at worst a late event adopts a zombie,
				 * which mt_forget_lost() then drops */
		g->tid = p;
		g->cap = cap;
	}
	g->tid[g->n++] = tid;
}

bool mt_gone_early_take(struct maptap_session *s, pid_t tid)
{
	struct mt_tid_set *g = &s->gone_early;
	size_t i;

	for (i = 0; i < g->n; i++) {
		if (g->tid[i] != tid)
			continue;
		memmove(g->tid + i, g->tid + i + 1,
			(g->n - i - 1) * sizeof(*g->tid));
		g->n--;
		return true;
	}
	return false;
}

/* The kernel says there is nothing left to wait for (waitpid: ECHILD),
 * or the session is being freed, while records remain: each is a thread
 * maptap can no longer see.  Say so, log its `detach` with WHY, count it,
 * and drop it, so the session agrees with the kernel and no loop waits
 * for it. */
void mt_forget_lost(struct maptap_session *s, const char *why)
{
	size_t i;

	for (i = 0; i < s->threads.cap && s->threads.n; i++) {
		struct mt_thread *t = mt_thread_at(s, i);
		struct maptap_event ev;
		struct mt_proc *p;

		if (!t)
			continue;
		p = t->proc;
		s->stats.lost_threads++;
		mt_diag(s, "pid %d: lost thread %d: %s; its record is dropped",
			(int)p->pid, (int)t->tid, why);
		mt_event_init(&ev, MAPTAP_EV_DETACH, p->pid, t->tid);
		ev.reason = why;
		mt_emit(s, &ev);
		/* Harmless when it is gone; lets go of one that is not. */
		ptrace(PTRACE_DETACH, t->tid, 0L, 0L);
		t->early = false;
		mt_thread_del(s, t);
		if (p->nthreads == 0)
			mt_proc_del(s, p);
	}
}

/* Block until thread TID reports (waitpid(2) with __WALL).  maptap's
 * SIGINT, SIGTERM and SIGHUP handlers have no SA_RESTART, so that the
 * run loop's waits return at once, and one that runs during a blocking
 * wait fails it with EINTR: wait again.  (Taking that as an error put
 * the registers back while a thread still ran an injected call, which
 * then failed, so the thread went on in the vDSO after its syscall
 * instruction and crashed: uprobes.py's SIGINT case, when the signal
 * came at the first hit; and left a SIGKILLed command unreaped when
 * launch failed.)  The test-only fault site MT_FAULT_WAIT makes a wait
 * fail with EINTR (test_xolwait).  STATUS may be NULL.  Returns TID, or
 * -1 with errno (ECHILD: no such child). */
pid_t mt_wait_blocking(struct maptap_session *s, pid_t tid, int *status)
{
	pid_t r;

	/* Its stop may have been taken already (waitq.c). */
	if (mt_waitq_take(s, tid, status))
		return tid;
	for (;;) {
		if (s->fault && s->fault(s->fault_arg, MT_FAULT_WAIT, NULL)) {
			errno = EINTR;
			r = -1;
		} else {
			r = waitpid(tid, status, __WALL);
		}
		if (r >= 0 || errno != EINTR)
			return r;
	}
}
