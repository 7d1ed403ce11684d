/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* waitq.c -- the stops already taken from the kernel and not yet
 * handled: every thread gets its turn (docs/tracer.md, "Every thread
 * gets its turn").
 *
 * waitpid(-1) reports the first tracee with a stop in the kernel's own
 * list order (kernel/exit.c, ptrace_do_wait(): the tracer's ptraced
 * list, newest first), not the one that stopped first.  A thread that
 * is resumed and stops again before the next waitpid(-1) -- a sibling
 * hammering mapping calls, when maptap yields its CPU to it (the spin
 * wait of loop.c) -- is then reported every time, and a thread behind
 * it in the list waits for ever: under `maptap -x` pinned to one CPU,
 * the main thread of a target stopped and continued (^Z, fg) stayed in
 * its read(2)'s syscall-entry stop, reported but never taken, while
 * its sibling's thousands of stops were.  strace drains every pending
 * status before handling any, for the same reason.
 *
 * So when several threads are traced, each waitpid(-1) that finds a
 * stop is followed by more with WNOHANG until none is left, and the
 * stops found are handled in that order before the kernel is asked
 * again: in each round every stopped thread is handled once.  A thread
 * has at most one stop reported at a time, so the queue never holds
 * more entries than there are tracees.  A wait for one thread's stop
 * (loop.c's detach_running(), mt_wait_blocking()) looks here first:
 * the stop it waits for may already have been taken.
 */
#include "tracer_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Append (TID, STATUS).  Returns false when no memory could be had;
 * the caller then handles the stop at once instead. */
static bool push(struct mt_waitq *q, pid_t tid, int status)
{
	if (q->head + q->n == q->cap) {
		if (q->head) {
			memmove(q->e, q->e + q->head, q->n * sizeof(*q->e));
			q->head = 0;
		} else {
			size_t cap = q->cap ? 2 * q->cap : 16;
			struct mt_waitq_entry *e = realloc(q->e,
							   cap * sizeof(*e));

			if (!e)
				return false;
			q->e = e;
			q->cap = cap;
		}
	}
	q->e[q->head + q->n].tid = tid;
	q->e[q->head + q->n].status = status;
	q->n++;
	return true;
}

bool mt_waitq_pop(struct maptap_session *s, pid_t *tid, int *status)
{
	struct mt_waitq *q = &s->waitq;

	if (!q->n)
		return false;
	*tid = q->e[q->head].tid;
	*status = q->e[q->head].status;
	q->n--;
	q->head = q->n ? q->head + 1 : 0;
	return true;
}

bool mt_waitq_take(struct maptap_session *s, pid_t tid, int *status)
{
	struct mt_waitq *q = &s->waitq;
	size_t i;

	for (i = q->head; i < q->head + q->n; i++) {
		if (q->e[i].tid != tid)
			continue;
		if (status)
			*status = q->e[i].status;
		memmove(q->e + i, q->e + i + 1,
			(q->head + q->n - i - 1) * sizeof(*q->e));
		q->n--;
		if (!q->n)
			q->head = 0;
		return true;
	}
	return false;
}

void mt_waitq_drain(struct maptap_session *s)
{
	pid_t more;
	int st;

	if (s->threads.n < 2)
		return;
	/* Take every other stop now pending: they come before the next
	 * stop of the one just taken, which the next waitpid(-1) would
	 * report first. */
	for (;;) {
		more = waitpid(-1, &st, __WALL | WNOHANG);
		if (more < 0 && errno == EINTR)
			continue;
		if (more <= 0)
			break;
		if (!push(&s->waitq, more, st)) {
			/* Out of memory: handle it now, before the other's
			 * stop; nothing is lost, only the turn. */
			mt_handle_status(s, more, st);
			break;
		}
	}
}

pid_t mt_wait_any(struct maptap_session *s, int *status)
{
	pid_t tid;

	if (mt_waitq_pop(s, &tid, status))
		return tid;
	tid = waitpid(-1, status, __WALL | WNOHANG);
	if (tid > 0)
		mt_waitq_drain(s);
	return tid;
}

void mt_waitq_free(struct maptap_session *s)
{
	free(s->waitq.e);
	memset(&s->waitq, 0, sizeof(s->waitq));
}
