/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* session.c -- the session object's public lifecycle: new, free, the
 * detach request and the getters.  Its tables of threads, processes and
 * address spaces are threads.c's, its messages and events diag.c's; the
 * stop loop and the ways in are loop.c, launch.c and attach.c.
 */
#include "tracer_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <unistd.h>

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
	mt_thread_table_free(s);
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
	/* The run loop may be in, or just about to enter, a blocking
	 * waitpid (opts.block_wait), which no pipe ends and which a
	 * handler that ran just before it does not interrupt: a child
	 * that exits at once ends it.  (Not an interrupt of the tracees:
	 * their epoll_wait(), sigtimedwait() and the like then failed
	 * with EINTR where untraced they did not.)  fork(2) as a system
	 * call, without the C library's handlers: async-signal-safe. */
	if (__atomic_load_n(&s->in_block, __ATOMIC_SEQ_CST) &&
	    !__atomic_load_n(&s->wake_child, __ATOMIC_SEQ_CST) &&
	    (pid_t)syscall(SYS_gettid) == s->run_tid) {
		long c = syscall(SYS_fork);

		if (c == 0)
			syscall(SYS_exit_group, 0);
		if (c > 0)
			__atomic_store_n(&s->wake_child, (pid_t)c,
					 __ATOMIC_SEQ_CST);
	}
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

int maptap_session_proc(const struct maptap_session *s, pid_t pid,
			const char **exe, const char **comm)
{
	struct mt_proc *p = mt_proc_find((struct maptap_session *)s, pid);

	if (!p)
		return -ESRCH;
	if (exe)
		*exe = p->exe ? p->exe : "";
	if (comm)
		*comm = p->comm;
	return 0;
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

int maptap_session_get_call_stack(struct maptap_session *s, pid_t tid,
				  struct user_regs_struct *regs,
				  const void **stack, size_t *len)
{
	struct mt_thread *t;

	if (!s || !regs || !stack || !len)
		return -EINVAL;
	t = mt_thread_find(s, tid);
	if (!t)
		return -ESRCH;
	return mt_perf_call_stack(s, t, regs, stack, len);
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
