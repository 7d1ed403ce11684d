/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_errors.c -- failures inside the stop loop (maptap/session.h,
 * "Errors while tracing"):
 *
 * - a refresh that fails (-ENOMEM, -ESRCH, -EIO, injected with the
 *   test-only mt_set_fault()) is counted (stats.refresh_errors) and the
 *   address space is read whole again at the next stop of one of its
 *   threads (stats.resyncs): the change comes as a resync event, with the
 *   snapshot flag for a snapshot that failed, and --verify finds nothing;
 * - a non-zero return of on_event or on_syscall ends the session: run
 *   returns it, with a message, and no callback is made again.
 *
 * The target, testsuite/targets/t_steps.c, is built at test time with $CC.
 */
#include <config.h>

#include <maptap/maptap.h>

#include "../../runtime/tracer/tracer_priv.h"
#include "../lib/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096

static const char *target;

/* tap_int_eq() with a formatted name. */
static void int_eq(long long got, long long want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void int_eq(long long got, long long want, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tap_int_eq(got, want, buf);
}
static char out_path[PATH_MAX];

struct rec {
	int kind;
	pid_t pid;
	uint64_t start, end;
	int nr;
	bool snapshot;
};

struct ctx {
	struct rec v[4096];
	size_t n;
	size_t diffs;			/* verify: lines */
	size_t after_stop;		/* callbacks after a non-zero return */
	int stop_at_a;			/* on_event: return it at A's mmap */
	int stop_at_mprotect;		/* on_syscall: return it there */
	bool stopped;
	/* faults */
	int call_nr;			/* fail the call with this number */
	uint64_t call_len;		/* and length */
	int call_err;
	int full_at;			/* fail the Nth full read (1-based) */
	int full_err;
	int fulls;
	bool full_after_call;		/* count full reads after the call's */
	bool call_failed;
	uint64_t a_lo, a_hi, b_lo, b_hi;
};

static int fault(void *arg, int site, const struct mt_thread *t)
{
	struct ctx *c = arg;

	if (site == MT_FAULT_CALL) {
		if (c->call_failed || !c->call_err || !t->call ||
		    t->call->nr != c->call_nr || t->args[1] != c->call_len)
			return 0;
		c->call_failed = true;
		return c->call_err;
	}
	if (site != MT_FAULT_FULL)
		return 0;
	if (c->full_after_call && !c->call_failed)
		return 0;
	return ++c->fulls == c->full_at ? c->full_err : 0;
}

static int on_event(const struct maptap_event *ev, void *arg)
{
	struct ctx *c = arg;
	struct rec *r;

	if (c->stopped)
		c->after_stop++;
	if (c->n == sizeof(c->v) / sizeof(c->v[0]))
		return 0;
	r = &c->v[c->n++];
	r->kind = ev->kind;
	r->pid = ev->pid;
	r->start = ev->vma.start;
	r->end = ev->vma.end;
	r->nr = ev->syscall_nr;
	r->snapshot = ev->snapshot;
	if (c->stop_at_a && ev->kind == MAPTAP_EV_MAP &&
	    ev->syscall_nr == SYS_mmap && ev->vma.end - ev->vma.start ==
	    5 * PAGE) {
		c->stopped = true;
		return c->stop_at_a;
	}
	return 0;
}

static int on_syscall(const struct maptap_syscall_stop *st, void *arg)
{
	struct ctx *c = arg;

	if (c->stopped)
		c->after_stop++;
	if (c->stop_at_mprotect && st->nr == SYS_mprotect) {
		c->stopped = true;
		return c->stop_at_mprotect;
	}
	return 0;
}

static void on_ready(pid_t pid, pid_t tid, enum maptap_ready_why why,
		     void *arg)
{
	struct ctx *c = arg;

	(void)pid;
	(void)tid;
	(void)why;
	if (c->stopped)
		c->after_stop++;
}

static void on_diag(const char *line, void *arg)
{
	struct ctx *c = arg;

	if (strstr(line, "verify:")) {
		c->diffs++;
		tap_diag("%s", line);
	}
}

/* The areas the target printed (its stdout went to OUT_PATH). */
static void read_areas(struct ctx *c)
{
	FILE *f = fopen(out_path, "r");
	unsigned long a, b;
	char key;

	if (!f)
		return;
	while (fscanf(f, " %c %lx %lx", &key, &a, &b) == 3) {
		if (key == 'a') {
			c->a_lo = a;
			c->a_hi = b;
		} else if (key == 'b') {
			c->b_lo = b ? a : 0;
			c->b_hi = b;
		}
	}
	fclose(f);
}

/* Launch the target (MODE) with C's faults and callbacks; run until
 * the end, or until the first run returns non-zero (its value in
 * *FIRST_RC), then on to the end.  Returns the command's exit status. */
static int run(struct ctx *c, const char *mode, bool verify, int *first_rc,
	       struct maptap_session_stats *st, char *msg, size_t msglen)
{
	struct maptap_session_opts o;
	struct maptap_session *s;
	char *argv[] = { (char *)target, (char *)mode, NULL };
	int status = -1, rc, out, saved;
	pid_t pid;

	memset(&o, 0, sizeof(o));
	o.on_event = on_event;
	o.on_diag = on_diag;
	o.on_ready = on_ready;
	o.arg = c;
	o.verify = verify;
	if (c->stop_at_mprotect) {
		o.on_syscall = on_syscall;
		o.syscalls[SYS_mprotect / 64] |= 1ULL << (SYS_mprotect % 64);
	}
	if (maptap_session_new(&o, &s))
		return -1;
	mt_set_fault(s, fault, c);
	/* The target's stdout: a file, not our TAP stream. */
	out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	saved = dup(1);
	fflush(stdout);
	dup2(out, 1);
	rc = maptap_session_launch(s, argv, &pid);
	dup2(saved, 1);
	close(saved);
	close(out);
	if (rc == 0) {
		rc = maptap_session_run(s);
		if (first_rc)
			*first_rc = rc;
		if (msg)
			snprintf(msg, msglen, "%s", maptap_session_errmsg(s));
		if (rc != 0)
			rc = maptap_session_run(s);
		if (rc == 0)
			status = maptap_session_exit_status(s);
	}
	maptap_session_get_stats(s, st);
	maptap_session_free(s);
	read_areas(c);
	return status;
}

/* Events of PID of KIND over exactly [LO, HI) with call number NR. */
static size_t count(const struct ctx *c, int kind, uint64_t lo, uint64_t hi,
		    int nr)
{
	size_t i, n = 0;

	for (i = 0; i < c->n; i++)
		if (c->v[i].kind == kind && c->v[i].start == lo &&
		    c->v[i].end == hi && c->v[i].nr == nr)
			n++;
	return n;
}

static size_t count_snapshot(const struct ctx *c, pid_t not_pid)
{
	size_t i, n = 0;

	for (i = 0; i < c->n; i++)
		if (c->v[i].kind == MAPTAP_EV_MAP && c->v[i].snapshot &&
		    c->v[i].nr == -1 && c->v[i].pid != not_pid)
			n++;
	return n;
}

static pid_t first_exec_pid(const struct ctx *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].kind == MAPTAP_EV_EXEC)
			return c->v[i].pid;
	return 0;
}

/* A failed mmap refresh, without --verify: A comes at the resync made
 * before the thread is resumed. */
static void test_call_enomem(void)
{
	static struct ctx c;
	struct maptap_session_stats st;

	memset(&c, 0, sizeof(c));
	c.call_nr = SYS_mmap;
	c.call_len = 5 * PAGE;
	c.call_err = -ENOMEM;
	tap_int_eq(run(&c, "", false, NULL, &st, NULL, 0), 7 << 8,
		   "mmap refresh -ENOMEM: exit status 7");
	tap_ok(c.call_failed && c.a_lo < c.a_hi,
	       "mmap refresh -ENOMEM: the fault was injected");
	tap_int_eq((long long)count(&c, MAPTAP_EV_MAP, c.a_lo, c.a_hi, -1), 1,
		   "mmap refresh -ENOMEM: A mapped by the resync");
	tap_int_eq((long long)count(&c, MAPTAP_EV_MAP, c.a_lo, c.a_hi,
				    SYS_mmap), 0,
		   "mmap refresh -ENOMEM: not by the call that failed");
	tap_int_eq((long long)st.refresh_errors, 1,
		   "mmap refresh -ENOMEM: one refresh error counted");
	tap_int_eq((long long)st.resyncs, 1,
		   "mmap refresh -ENOMEM: one resync counted");
}

/* A failed munmap refresh (-ESRCH), then the resync at that stop fails
 * too (-EIO): the next stop's resync finds B gone; --verify agrees. */
static void test_call_then_full(void)
{
	static struct ctx c;
	struct maptap_session_stats st;

	memset(&c, 0, sizeof(c));
	c.call_nr = SYS_munmap;
	c.call_len = 3 * PAGE;
	c.call_err = -ESRCH;
	c.full_after_call = true;
	c.full_at = 1;
	c.full_err = -EIO;
	tap_int_eq(run(&c, "", true, NULL, &st, NULL, 0), 7 << 8,
		   "munmap -ESRCH, resync -EIO: exit status 7");
	tap_ok(c.call_failed && c.fulls >= 2 && c.b_lo < c.b_hi,
	       "munmap -ESRCH, resync -EIO: both faults injected, a full read after");
	tap_int_eq((long long)count(&c, MAPTAP_EV_UNMAP, c.b_lo, c.b_hi, -1),
		   1, "munmap -ESRCH, resync -EIO: B unmapped by a resync");
	tap_int_eq((long long)st.refresh_errors, 2,
		   "munmap -ESRCH, resync -EIO: two refresh errors counted");
	tap_int_eq((long long)st.resyncs, 1,
		   "munmap -ESRCH, resync -EIO: one resync counted");
	tap_int_eq((long long)c.diffs, 0,
		   "munmap -ESRCH, resync -EIO: no verify difference");
}

/* The exec's snapshot fails (-EIO), or a fork child's: the resync
 * brings it, flagged as a snapshot. */
static void test_snapshot(const char *mode, int at, const char *name)
{
	static struct ctx c;
	struct maptap_session_stats st;
	pid_t pid;

	memset(&c, 0, sizeof(c));
	c.full_at = at;
	c.full_err = -EIO;
	int_eq(run(&c, mode, true, NULL, &st, NULL, 0), 7 << 8,
		   "%s: exit status 7", name);
	pid = first_exec_pid(&c);
	tap_ok(c.fulls > at, "%s: the fault was injected, a full read came after",
	       name);
	tap_ok(count_snapshot(&c, at == 1 ? 0 : pid) > 0,
	       "%s: the snapshot comes from the resync", name);
	int_eq((long long)st.refresh_errors, 1,
		   "%s: one refresh error counted", name);
	int_eq((long long)st.resyncs, 1, "%s: one resync counted", name);
	int_eq((long long)c.diffs, 0, "%s: no verify difference", name);
}

/* on_event or on_syscall returns non-zero: the session ends there. */
static void test_consumer_stop(bool syscall)
{
	static struct ctx c;
	struct maptap_session_stats st;
	const char *name = syscall ? "on_syscall returns 3" :
				     "on_event returns -ECANCELED";
	char msg[512] = "";
	int first = 0, status;

	memset(&c, 0, sizeof(c));
	if (syscall)
		c.stop_at_mprotect = 3;
	else
		c.stop_at_a = -ECANCELED;
	status = run(&c, "", true, &first, &st, msg, sizeof(msg));
	int_eq(first, syscall ? 3 : -ECANCELED,
		   "%s: maptap_session_run() returns it", name);
	tap_ok(strstr(msg, syscall ? "on_syscall" : "on_event") != NULL,
	       "%s: the message says so (%s)", name, msg);
	int_eq((long long)c.after_stop, 0,
		   "%s: no callback after it", name);
	int_eq(status, 7 << 8,
		   "%s: run again, the command ends as it would", name);
}

static int build_target(char *out, size_t size)
{
	const char *cc = getenv("CC"), *src = getenv("top_srcdir");
	char dir[] = "/tmp/maptap-errors.XXXXXX", cmd[4 * PATH_MAX];

	if (!src || !mkdtemp(dir))
		return -1;
	snprintf(out, size, "%s/t_steps", dir);
	snprintf(out_path, sizeof(out_path), "%s/out", dir);
	snprintf(cmd, sizeof(cmd),
		 "%.*s -O1 -o '%s' '%.*s/testsuite/targets/t_steps.c'",
		 PATH_MAX, cc && *cc ? cc : "cc", out, PATH_MAX, src);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	static char path[PATH_MAX];
	char cmd[PATH_MAX + 32];

	if (!tap_ok(build_target(path, sizeof(path)) == 0,
		    "build t_steps with $CC (needs top_srcdir)"))
		return tap_done();
	target = path;
	alarm(300);	/* a hang is a failure, not a stuck test run */
	test_call_enomem();
	test_call_then_full();
	test_snapshot("", 1, "exec snapshot -EIO");
	test_snapshot("fork", 2, "fork child's snapshot -EIO");
	test_consumer_stop(false);
	test_consumer_stop(true);
	snprintf(cmd, sizeof(cmd), "rm -rf '%.*s'",
		 (int)(strrchr(path, '/') - path), path);
	if (system(cmd) != 0)
		tap_diag("cannot remove the target's directory");
	return tap_done();
}
