/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_attach_ours.c -- attaching to a process one of whose threads is
 * already traced by this very process.
 *
 * That is what a thread created during the attach scan looks like: a
 * thread maptap seized creates it, PTRACE_O_TRACECLONE attaches it to
 * maptap, and the scan then finds it and cannot seize it again (EPERM).
 * attach used to take that for another tracer and refuse ("already traced
 * by process <maptap's own pid>"), an intermittent failure on targets
 * that create threads.  Here the situation is made deterministic: the
 * test seizes and interrupts the target's second thread itself first.
 */
#include <config.h>

#include <maptap/maptap.h>

#include <dirent.h>
#include <stdio.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/tap.h"

static int hold[2];

static void *blocker(void *arg)
{
	char c;

	if (read(hold[0], &c, 1) < 0)
		return NULL;
	return arg;
}

/* The target: a second thread blocked in read; the main thread exits
 * the whole process once told to. */
static void target(int ready, int go)
{
	pthread_t t;
	char c;

	if (pipe(hold) || pthread_create(&t, NULL, blocker, NULL))
		_exit(3);
	if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 1)
		_exit(4);
	_exit(0);
}

static pid_t second_thread(pid_t pid)
{
	char path[64];
	struct dirent *d;
	pid_t tid = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir)))
		if (atoi(d->d_name) > 0 && atoi(d->d_name) != pid)
			tid = atoi(d->d_name);
	if (dir)
		closedir(dir);
	return tid;
}

int main(void)
{
	struct maptap_session_opts o;
	struct maptap_session *s;
	int to[2], from[2], rc;
	pid_t pid, tid;
	char c;

	alarm(120);	/* a hang is a failure */
	if (pipe(to) || pipe(from))
		return tap_ok(false, "pipes"), tap_done();
	pid = fork();
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		target(from[1], to[0]);
	}
	close(to[0]);
	close(from[1]);
	if (!tap_ok(pid > 0 && read(from[0], &c, 1) == 1, "the target runs"))
		return tap_done();
	tid = second_thread(pid);
	tap_ok(tid > 0 &&
	       ptrace(PTRACE_SEIZE, tid, 0L,
		      (unsigned long)(PTRACE_O_TRACESYSGOOD |
				      PTRACE_O_TRACECLONE)) == 0 &&
	       ptrace(PTRACE_INTERRUPT, tid, 0L, 0L) == 0,
	       "its second thread %d is traced by this process", (int)tid);
	memset(&o, 0, sizeof(o));
	if (maptap_session_new(&o, &s))
		return tap_ok(false, "session"), tap_done();
	rc = maptap_session_attach(s, pid);
	tap_ok(rc == 0, "attach takes a thread this process already traces "
	       "as its own (rc %d: %s)", rc, maptap_session_errmsg(s));
	if (rc == 0) {
		if (write(to[1], "g", 1) != 1)
			tap_ok(false, "release the target");
		tap_int_eq(maptap_session_run(s), 0,
			   "tracing ends when the target exits");
	}
	maptap_session_free(s);
	kill(pid, SIGKILL);
	while (waitpid(-1, NULL, __WALL) > 0)
		;
	return tap_done();
}
