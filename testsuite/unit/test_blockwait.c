/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_blockwait.c -- detach requests against the blocking wait
 * (maptap_session_opts.block_wait, issue 16).
 *
 * With block_wait the run loop waits for the next stop in one blocking
 * waitpid(2), which no self-pipe can end.  A request must still be
 * taken at once:
 *  1. made by a signal handler (no SA_RESTART) while the loop sleeps in
 *     the wait: the wait fails with EINTR;
 *  2. made just before the wait, after the loop last looked (the
 *     test-only fault site MT_FAULT_BLOCK calls the request there, as a
 *     handler that ran at that instant would): the request makes a
 *     child that exits at once, whose report ends the wait;
 *  3. the same in attach mode with every thread of the target in a
 *     group-stop (SIGSTOP before the attach), where no tracee can stop
 *     to end the wait: the detach is done and the target is left
 *     stopped and untraced.  An earlier wake-up interrupted the running
 *     tracees and skipped group-stopped ones: here nothing would end the
 *     wait (alarm(20) then fails the test instead of hanging it); and
 *     it failed a command's epoll_wait() with EINTR (attach.py,
 *     t_eintr).
 * The launched command, testsuite/targets/t_sleeper.c (built at test
 * time with $CC, no C library), sleeps 30 s and makes no stop after its
 * exec; a request in launch mode sends its signal (SIGTERM) to the
 * command.  So the command killed by SIGTERM shows the request was
 * taken; a request left waiting lets it exit 0 after 30 s.
 */
#include <config.h>

#include <maptap/maptap.h>

#include "../../runtime/tracer/tracer_priv.h"
#include "../lib/build_target.h"
#include "../lib/tap.h"

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/maptap-blockwait.XXXXXX";
static char target[PATH_MAX];
static struct maptap_session *sess;
static bool ready, in_window;
static int blocks;

static bool hang_guard;

static void on_alarm(int sig)
{
	(void)sig;
	if (hang_guard) {
		static const char m[] = "not ok - the blocking wait hung\n";

		(void)!write(1, m, sizeof(m) - 1);
		_exit(1);
	}
	maptap_session_request_detach(sess, SIGTERM);
}

static int fault(void *arg, int site, const struct mt_thread *t)
{
	(void)arg;
	(void)t;
	if (site != MT_FAULT_BLOCK)
		return 0;
	blocks++;
	/* Once the command runs its own program: a signal in the window. */
	if (in_window && ready) {
		in_window = false;
		maptap_session_request_detach(sess, SIGTERM);
	}
	return 0;
}

static void on_ready(pid_t pid, pid_t tid, enum maptap_ready_why why,
		     void *arg)
{
	(void)pid;
	(void)tid;
	(void)arg;
	if (why == MAPTAP_READY_LAUNCH)
		ready = true;
}

static int build_target(void)
{
	return tap_build_target(dir, "t_sleeper.c", "t_sleeper",
				"-O2 -nostdlib -static -fno-stack-protector",
				"", target, sizeof(target));
}

/* Launch t_sleeper (30 s) with block_wait; WINDOW: the request comes at the
 * first blocking wait after the exec, else from SIGALRM 1 s in.
 * Returns the command's wait status, -1 on a session failure. */
static int run(bool window)
{
	struct maptap_session_opts o;
	char *argv[] = { target, (char *)"30", NULL };
	struct sigaction sa;
	int status = -1;
	pid_t pid;

	memset(&o, 0, sizeof(o));
	o.on_ready = on_ready;
	o.block_wait = true;
	ready = false;
	in_window = window;
	blocks = 0;
	if (maptap_session_new(&o, &sess))
		return -1;
	mt_set_fault(sess, fault, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: waits must end */
	sigaction(SIGALRM, &sa, NULL);
	if (maptap_session_launch(sess, argv, &pid) == 0) {
		if (!window)
			alarm(1);
		if (maptap_session_run(sess) == 0)
			status = maptap_session_exit_status(sess);
	}
	alarm(0);
	maptap_session_free(sess);
	sess = NULL;
	return status;
}

/* Whether PID shows state T (stopped) within 2 s: a thread let go from
 * its group-stop trap is woken to stop again (kernel/ptrace.c,
 * __ptrace_unlink()) and shows R for a moment. */
static bool wait_stopped(pid_t pid)
{
	char st = 0;
	int i;

	for (i = 0; i < 2000; i++) {
		if (mt_proc_state(pid, &st) == 0 && st == 'T')
			return true;
		usleep(1000);
	}
	tap_diag("process %d: state %c, not T", (int)pid, st ? st : '?');
	return false;
}

/* Case 3: attach to a stopped t_sleeper, the request in the window.
 * Returns 1 when the run ended and the target is still stopped and no
 * longer traced, 0 otherwise. */
static int attach_stopped(void)
{
	struct maptap_session_opts o;
	int status, ok, rc = -1, pfd[2];
	long tracer = -1;
	pid_t pid = -1, mid;

	/* Not our child (as with maptap -x): a grandchild, its parent gone. */
	if (pipe(pfd))
		return 0;
	mid = fork();
	if (mid == 0) {
		pid_t g = fork();

		if (g == 0) {
			execl(target, target, "30", (char *)NULL);
			_exit(127);
		}
		(void)!write(pfd[1], &g, sizeof(g));
		_exit(0);
	}
	if (mid < 0 || read(pfd[0], &pid, sizeof(pid)) != sizeof(pid) ||
	    waitpid(mid, &status, 0) != mid || kill(pid, SIGSTOP) != 0)
		return 0;
	close(pfd[0]);
	close(pfd[1]);
	if (!wait_stopped(pid)) {
		kill(pid, SIGKILL);
		return 0;
	}
	memset(&o, 0, sizeof(o));
	o.on_ready = on_ready;
	o.block_wait = true;
	ready = false;
	in_window = true;
	if (maptap_session_new(&o, &sess) == 0) {
		mt_set_fault(sess, fault, NULL);
		hang_guard = true;
		alarm(20);
		if (maptap_session_attach(sess, pid) == 0) {
			/* MAPTAP_READY_ATTACH came: the next wait is it */
			ready = true;
			rc = maptap_session_run(sess);
		}
		alarm(0);
		hang_guard = false;
		maptap_session_free(sess);
		sess = NULL;
	}
	ok = rc == 0 && !in_window && wait_stopped(pid) &&
	     mt_proc_status_long(pid, "TracerPid:", &tracer) == 0 &&
	     tracer == 0;
	if (!ok)
		tap_diag("run %d, request %s, TracerPid %ld", rc,
			 in_window ? "not made" : "made", tracer);
	kill(pid, SIGKILL);
	return ok;
}

int main(void)
{
	char cmd[PATH_MAX + 16];
	int st;

	if (!tap_ok(build_target() == 0,
		    "build t_sleeper with $CC (needs top_srcdir)"))
		return tap_done();
	st = run(false);
	tap_ok(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
	       "a request from a handler during the wait is taken: the "
	       "command gets SIGTERM (status 0x%x, %d blocking waits)",
	       st, blocks);
	tap_ok(blocks > 0, "the run waited in the blocking wait");
	st = run(true);
	tap_ok(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
	       "a request just before the wait is taken: the command gets "
	       "SIGTERM (status 0x%x)", st);
	tap_ok(!in_window, "the request was made in the window");
	tap_ok(attach_stopped(), "attach to a stopped process, a request just "
	       "before the wait: detached, the target still stopped and "
	       "untraced");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		tap_diag("cannot remove %s", dir);
	return tap_done();
}
