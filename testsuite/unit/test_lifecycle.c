/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_lifecycle.c -- the session's records agree with the kernel's
 * tracees, or say what they lost: a record for a thread the kernel does
 * not report (a ghost) no longer makes maptap_session_run() return 0 at
 * once for ever, nor maptap_session_free() loop on it; and a child
 * dropped before its creator's event is not adopted again.
 *
 * The ghost is planted through the private tables (runtime/tracer/tracer_priv.h):
 * that is the state the fork/exit race used to leave behind
 * (testsuite/system/lifecycle.py reaches it through the kernel).  An
 * alarm turns a hang into a failure.
 */
#include <config.h>

#include <maptap/maptap.h>

#include "../../runtime/tracer/tracer_priv.h"
#include "../lib/tap.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct ctx {
	int lost_diags;
	int lost_detach;
	int forks;
};

static void on_diag(const char *line, void *arg)
{
	struct ctx *c = arg;

	if (strstr(line, "lost thread"))
		c->lost_diags++;
}

static int on_event(const struct maptap_event *ev, void *arg)
{
	struct ctx *c = arg;

	if (ev->kind == MAPTAP_EV_DETACH && ev->reason &&
	    strstr(ev->reason, "exit report"))
		c->lost_detach++;
	if (ev->kind == MAPTAP_EV_FORK)
		c->forks++;
	return 0;
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "not ok - hung: the session waited for a thread the kernel does not have\n";

	(void)!write(1, msg, sizeof(msg) - 1);
	_exit(1);
}

/* A pid that was ours a moment ago and is reaped: the kernel will never
 * report it to this process again. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

static struct maptap_session *launched(struct ctx *c, pid_t *pid)
{
	static char *argv[] = { "/bin/true", NULL };
	struct maptap_session_opts o;
	struct maptap_session *s;

	memset(&o, 0, sizeof(o));
	o.on_diag = on_diag;
	o.on_event = on_event;
	o.arg = c;
	if (maptap_session_new(&o, &s) != 0)
		return NULL;
	if (maptap_session_launch(s, argv, pid) != 0) {
		maptap_session_free(s);
		return NULL;
	}
	return s;
}

static void test_run_forgets_ghost(void)
{
	struct maptap_session_stats st;
	struct maptap_session *s;
	struct ctx c = { 0 };
	pid_t pid, ghost = dead_pid();

	s = launched(&c, &pid);
	if (!tap_ok(s != NULL, "launch /bin/true"))
		return;
	tap_ok(mt_thread_add(s, ghost, mt_proc_find(s, pid)) != NULL,
	       "plant a record for a reaped pid");
	alarm(20);
	tap_int_eq(maptap_session_run(s), 0, "run returns 0");
	alarm(0);
	tap_int_eq((long long)s->threads.n, 0, "no record is left");
	maptap_session_get_stats(s, &st);
	tap_int_eq((long long)st.lost_threads, 1, "one thread counted lost");
	tap_int_eq(c.lost_diags, 1, "on_diag says it lost the thread");
	tap_int_eq(c.lost_detach, 1, "a detach event names why");
	tap_int_eq(WEXITSTATUS(maptap_session_exit_status(s)), 0,
		   "the command's exit status is kept");
	maptap_session_free(s);
}

static void test_free_forgets_ghost(void)
{
	struct maptap_session *s;
	struct ctx c = { 0 };
	pid_t pid, ghost = dead_pid();

	s = launched(&c, &pid);
	if (!tap_ok(s != NULL, "launch /bin/true (free)"))
		return;
	tap_ok(mt_thread_add(s, ghost, mt_proc_find(s, pid)) != NULL,
	       "plant a record for a reaped pid (free)");
	alarm(20);
	maptap_session_free(s);
	alarm(0);
	tap_int_eq(c.lost_diags, 1, "free says it lost the ghost, and returns");
}

static void test_gone_early(void)
{
	struct maptap_session_opts o;
	struct maptap_session *s;
	int i;

	memset(&o, 0, sizeof(o));
	if (!tap_ok(maptap_session_new(&o, &s) == 0, "new session"))
		return;
	tap_ok(!mt_gone_early_take(s, 42), "an unknown tid is not taken");
	mt_gone_early_add(s, 42);
	mt_gone_early_add(s, 42);
	mt_gone_early_add(s, 43);
	tap_ok(mt_gone_early_take(s, 42), "a tid dropped early is taken");
	tap_ok(!mt_gone_early_take(s, 42), "once: adding twice keeps one");
	tap_ok(mt_gone_early_take(s, 43), "the other is still there");
	for (i = 0; i < 5000; i++)
		mt_gone_early_add(s, 1000 + i);
	tap_ok(s->gone_early.n <= 4096, "the set is bounded (%zu)",
	       s->gone_early.n);
	tap_ok(mt_gone_early_take(s, 1000 + 4999), "the newest is kept");
	tap_ok(!mt_gone_early_take(s, 1000), "the oldest went first");
	maptap_session_free(s);
}

int main(void)
{
	signal(SIGALRM, on_alarm);
	test_run_forgets_ghost();
	test_free_forgets_ghost();
	test_gone_early();
	return tap_done();
}
