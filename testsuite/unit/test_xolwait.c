/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_xolwait.c -- a signal to maptap while a breakpoint's first hit
 * maps the out-of-line page (runtime/tracer/xol.c).
 *
 * The first hit in an address space runs mmap(2) in the hitting thread
 * and waits, in waitpid(2), for that call's stops.  maptap's SIGINT,
 * SIGTERM and SIGHUP handlers have no SA_RESTART, so a signal then
 * fails the wait with EINTR; that was taken as an error: the registers
 * were put back while the thread still ran the call (which failed), the
 * thread went on in the vDSO after the syscall instruction, and the
 * breakpoint was dropped ("cannot be stepped over").  uprobes.py's
 * SIGINT case met it when the signal came at the first hit.
 *
 * Here the waits are made to fail with EINTR (the test-only
 * mt_set_fault(), MT_FAULT_WAIT), the first three times: every call of
 * the probed function must still be a hit, the command's output and exit
 * status those of its untraced run.  The target,
 * testsuite/targets/u_calls.c, is built at test time with $CC, not as a
 * PIE, so that a symbol's value is its address.
 */
#include <config.h>

#include <maptap/maptap.h>

#include "../../runtime/tracer/tracer_priv.h"
#include "../lib/build_target.h"
#include "../lib/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CALLS 50
#define EINTRS 3

static char dir[] = "/tmp/maptap-xolwait.XXXXXX";
static char target[PATH_MAX], out_path[PATH_MAX];

struct ctx {
	struct maptap_session *s;
	uint64_t addr;			/* u_square */
	int insert_rc;
	long hits;
	int waits;			/* MT_FAULT_WAIT asked */
	int eintrs;			/* of which failed */
	int dropped;			/* "cannot be stepped over" said */
};

static int fault(void *arg, int site, const struct mt_thread *t)
{
	struct ctx *c = arg;

	(void)t;
	if (site != MT_FAULT_WAIT)
		return 0;
	c->waits++;
	if (c->eintrs == EINTRS)
		return 0;
	c->eintrs++;
	return -EINTR;
}

static int on_hit(const struct maptap_uprobe_hit *h, void *arg)
{
	struct ctx *c = arg;

	(void)h;
	c->hits++;
	return 0;
}

static void on_ready(pid_t pid, pid_t tid, enum maptap_ready_why why,
		     void *arg)
{
	struct ctx *c = arg;

	(void)tid;
	if (why == MAPTAP_READY_LAUNCH)
		c->insert_rc = maptap_uprobe_insert(c->s, pid, c->addr, 1,
						    false);
}

static void on_diag(const char *line, void *arg)
{
	struct ctx *c = arg;

	if (strstr(line, "cannot be stepped over"))
		c->dropped++;
	tap_diag("%s", line);
}

static int find_fn(const char *name, uint64_t vaddr, uint64_t size,
		   void *arg)
{
	(void)name;
	(void)size;
	*(uint64_t *)arg = vaddr;
	return 1;
}

/* The first line the command printed into PATH ("" if none). */
static void first_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = 0;
	fclose(f);
}

/* Run the target under a session with C's faults; its stdout goes to
 * OUT_PATH.  Returns its exit status, or -1. */
static int traced(struct ctx *c)
{
	struct maptap_session_opts o;
	char *argv[] = { target, (char *)"count", (char *)"50", NULL };
	int status = -1, rc, out, saved;
	pid_t pid;

	memset(&o, 0, sizeof(o));
	o.on_ready = on_ready;
	o.on_diag = on_diag;
	o.arg = c;
	if (maptap_session_new(&o, &c->s))
		return -1;
	if (maptap_uprobe_set_handler(c->s, on_hit, c)) {
		maptap_session_free(c->s);
		return -1;
	}
	mt_set_fault(c->s, fault, c);
	out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	saved = dup(1);
	fflush(stdout);
	dup2(out, 1);
	rc = maptap_session_launch(c->s, argv, &pid);
	dup2(saved, 1);
	close(saved);
	close(out);
	if (rc == 0 && maptap_session_run(c->s) == 0)
		status = maptap_session_exit_status(c->s);
	maptap_session_free(c->s);
	return status;
}

static int build_target(void)
{
	if (tap_build_target(dir, "u_calls.c", "u_calls", "-O0 -no-pie",
			     "-pthread -ldl", target, sizeof(target)))
		return -1;
	snprintf(out_path, sizeof(out_path), "%s/out", dir);
	return 0;
}

int main(void)
{
	char want[256], got[256], cmd[PATH_MAX + 64];
	struct ctx c;
	FILE *p;
	int status;

	if (!tap_ok(build_target() == 0,
		    "build u_calls with $CC (needs top_srcdir)"))
		return tap_done();
	alarm(120);	/* a hang is a failure, not a stuck test run */
	memset(&c, 0, sizeof(c));
	tap_ok(maptap_uprobe_functions(target, "u_square", find_fn,
				       &c.addr) == 1 && c.addr,
	       "u_square found in the target's symbols");
	snprintf(cmd, sizeof(cmd), "'%s' count %d", target, CALLS);
	p = popen(cmd, "r");
	want[0] = 0;
	if (p) {
		if (!fgets(want, sizeof(want), p))
			want[0] = 0;
		pclose(p);
	}
	tap_ok(want[0] != 0, "the untraced run prints its sum");

	status = traced(&c);
	tap_int_eq(c.insert_rc, 0, "the breakpoint placed at the launch");
	tap_ok(c.waits > EINTRS, "the first hit waited for the mmap it ran "
	       "in the thread (%d waits, %d failed with EINTR)",
	       c.waits, c.eintrs);
	tap_int_eq(c.dropped, 0, "no breakpoint dropped for an interrupted "
		   "wait");
	tap_int_eq(c.hits, CALLS, "every call of u_square a hit");
	first_line(out_path, got, sizeof(got));
	tap_str_eq(got, want, "the command's output as untraced");
	tap_int_eq(status, 0, "the command's exit status as untraced");

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		tap_diag("cannot remove the target's directory");
	return tap_done();
}
