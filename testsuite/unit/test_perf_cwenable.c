/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_perf_cwenable.c -- perf mode: an attach to a process that forks
 * while the per-CPU events are being turned on.
 *
 * The tracepoints of the seldom calls (clone's entry, task_newtask, ...)
 * are opened once per CPU and turned on one by one at the end of an
 * attach (enable_cw() in runtime/tracer/perf_source.c).  A clone whose
 * entry record is read is followed, and its FORK record waits for the
 * creator's task_newtask.  Turned on CPU by CPU in tp_list order, a
 * clone's entry could be on and its task_newtask not yet: the child
 * waited for a record that never came, its EXIT record was dropped
 * meanwhile, and it was said "gone without an exit record" (perfmode.py
 * 4b, 1 attach in 100-300).  Here a pause after each event turned on
 * (mt_perf_test_cw_pause()) widens that moment to milliseconds while
 * the target forks every few hundred microseconds: before the fix every
 * run lost children; now no child may be lost, and each one followed
 * has its exit event.
 *
 * With the BPF programs (runtime/tracer/perf_bpf.c), the children made
 * in that moment must not stay in their table of followed processes
 * once they have ended: they did, never followed by maptap so never
 * taken out, and whatever process got such a pid next was followed by
 * the kernel, its children too (a fresh helper's finding).  Once the
 * target stops forking and its children are gone, the table holds the
 * target alone.
 */
#include <config.h>

#include <maptap/maptap.h>

#include "../../runtime/tracer/tracer_priv.h"
#include "../lib/tap.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_KIDS 4096

struct seen {
	pid_t target;
	pid_t kids[MAX_KIDS];	/* fork events' children */
	bool ended[MAX_KIDS];	/* ... with their exit event */
	size_t n;
	size_t lines;		/* "gone without an exit record" said */
};

static int on_event(const struct maptap_event *ev, void *arg)
{
	struct seen *w = arg;
	size_t i;

	if (ev->kind == MAPTAP_EV_FORK && ev->pid == w->target &&
	    w->n < MAX_KIDS)
		w->kids[w->n++] = ev->child;
	if (ev->kind == MAPTAP_EV_EXIT)
		for (i = 0; i < w->n; i++)
			if (w->kids[i] == ev->pid)
				w->ended[i] = true;
	return 0;
}

static void on_diag(const char *line, void *arg)
{
	struct seen *w = arg;

	if (strstr(line, "without an exit record")) {
		w->lines++;
		tap_diag("%s", line);
	}
}

/* The target: fork a child that exits at once, reap it, pause; until
 * killed. */
static void target(int ready)
{
	if (write(ready, "r", 1) != 1)
		_exit(4);
	for (;;) {
		pid_t c = fork();

		if (c == 0)
			_exit(0);
		if (c > 0)
			waitpid(c, NULL, 0);
		usleep(300);
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(void)
{
	static struct seen w;
	struct maptap_session_opts o;
	struct maptap_session_stats st;
	struct maptap_session *s;
	enum maptap_events_source used = MAPTAP_EVENTS_PTRACE;
	int ready[2], rc;
	long tgids;
	size_t i, ended = 0;
	pid_t pid;
	char c;

	if (pipe(ready))
		return tap_ok(false, "pipe"), tap_done();
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		target(ready[1]);
	}
	close(ready[1]);
	if (!tap_ok(pid > 0 && read(ready[0], &c, 1) == 1, "the target runs"))
		return tap_done();
	w.target = pid;
	memset(&o, 0, sizeof(o));
	o.events = MAPTAP_EVENTS_PERF;
	o.on_event = on_event;
	o.on_diag = on_diag;
	o.arg = &w;
	if (maptap_session_new(&o, &s))
		return tap_ok(false, "session"), tap_done();
	/* 2 ms after each: tens of ms with clone's entry on before all */
	mt_perf_test_cw_pause(s, 2000);
	rc = maptap_session_attach(s, pid);
	maptap_session_events(s, &used);
	if (rc != 0 || used != MAPTAP_EVENTS_PERF) {
		tap_skip("perf mode: cannot attach with perf events here "
			 "(%s)", rc ? maptap_session_errmsg(s) :
			 maptap_session_events(s, NULL));
		goto out;
	}
	tap_ok(true, "attach in perf mode, per-CPU events turned on slowly");
	rc = maptap_session_run_until(s, now_ns() + 300000000ULL);
	tap_int_eq(rc, 1, "the target forks on for 300 ms, traced");
	/* Its last child ends at once, and exits before it is reaped:
	 * the table follows its last thread's exit, not the reaping. */
	kill(pid, SIGSTOP);
	rc = maptap_session_run_until(s, now_ns() + 100000000ULL);
	tgids = mt_perf_test_bpf_tgids(s);
	if (tgids == -ENOSYS)
		tap_skip("the BPF programs' table: no BPF programs here (%s)",
			 maptap_session_events(s, NULL));
	else
		tap_int_eq(tgids, 1, "the BPF programs follow the target "
			   "alone once it stops forking and its children "
			   "have ended");
	kill(pid, SIGCONT);
	maptap_session_request_detach(s, SIGINT);
	tap_int_eq(maptap_session_run(s), 0, "detach");
	maptap_session_get_stats(s, &st);
	for (i = 0; i < w.n; i++)
		ended += w.ended[i];
	tap_ok(w.n >= 20, "children followed: %zu", w.n);
	tap_int_eq((long long)st.lost_threads, 0,
		   "no child gone without its exit record");
	tap_int_eq((long long)w.lines, 0, "none said so either");
	/* the last child may still run at the detach */
	tap_ok(ended + 1 >= w.n, "each child followed has its exit event "
	       "(%zu of %zu)", ended, w.n);
out:
	maptap_session_free(s);
	kill(pid, SIGKILL);
	while (waitpid(-1, NULL, __WALL) > 0)
		;
	return tap_done();
}
