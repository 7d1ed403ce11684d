/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_stack_cache.c -- the backtrace script functions
 * (translator/interp/builtins_stack.c) share one walk per stop.
 *
 * The test runs a copy of itself (--child: t_outer -> t_inner ->
 * raise(SIGSTOP)) under ptrace to its SIGSTOP and runs handlers of a
 * script in that stop's context, as pass 5's driver does, counting the
 * walks with the unwinder's own counter (maptap_unwinder_get_stats()):
 *   - a handler that asks for the stack five times (print_ubacktrace,
 *     ubacktrace, ucallers, maptap_uframes, maptap_uframe_pc) walks once
 *     at a known stop, and prints what it prints when every call walks
 *     (no stop time: nothing is reused);
 *   - a second handler of the same stop walks no more; a new stop walks
 *     again;
 *   - a request deeper than a truncated walk (MAXBACKTRACE 2, then 20)
 *     walks again, and the shallow request after it is answered from
 *     the deep walk with the same frames as before.
 */
#include <config.h>

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <maptap/event.h>
#include <maptap/module.h>
#include <maptap/unwind.h>

#include "interp.h"
#include "ptrace_stop.h"
#include "run_probe.h"
#include "tap.h"

#define KEEP __attribute__((noinline, noclone))

volatile int t_sink;

int t_inner(int x);
int t_outer(int x);

KEEP int t_inner(int x)
{
	raise(SIGSTOP);
	return x + t_sink;
}

KEEP int t_outer(int x)
{
	return t_inner(x + 1) * 3;
}

static const char script[] =
	"probe begin {\n"
	"  print_ubacktrace()\n"
	"  printf(\"hex %s\\n\", ubacktrace())\n"
	"  printf(\"callers %s\\n\", ucallers(-1))\n"
	"  printf(\"n %d pc0 %x\\n\", maptap_uframes(), maptap_uframe_pc(0))\n"
	"}\n";

struct fixture {
	struct tr_target tgt;
	struct maptap_event ev;	/* its time names the stop */
};

/* Run SCRIPT's begin handler at the stop, MAXBACKTRACE MAX frames; its
 * output (malloc'd), NULL on failure. */
static char *run(struct fixture *fx, int64_t max)
{
	struct run_probe_limits lim = { .maxbacktrace = max };
	long errors;
	char *out = run_probe(script, &fx->tgt, &lim, &errors);

	if (errors != 0) {
		free(out);
		return NULL;
	}
	return out;
}

static uint64_t walks(const struct fixture *fx)
{
	struct maptap_unwind_stats st = { 0 };

	if (fx->tgt.unw)
		maptap_unwinder_get_stats(fx->tgt.unw, &st);
	return st.backtraces;
}

/* Run at stop time TIME (0: no stop known) with MAX frames; *WALKED
 * the walks it made. */
static char *run_at(struct fixture *fx, uint64_t time, int64_t max,
		    uint64_t *walked)
{
	uint64_t before = walks(fx);
	char *out;

	fx->ev.time_ns = time;
	fx->tgt.ev = time ? &fx->ev : NULL;
	out = run(fx, max);
	*walked = walks(fx) - before;
	return out;
}

static int lines(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

static void test_cache(struct fixture *fx)
{
	char *once, *each, *again, *deep, *shallow, *shallow2;
	uint64_t w;

	each = run_at(fx, 0, 20, &w);
	tap_int_eq((long long)w, 5, "no stop time: each of 5 calls walks");
	tap_ok(each && strstr(each, "t_inner") && strstr(each, "t_outer"),
	       "the walk names t_inner and t_outer");
	once = run_at(fx, 1, 20, &w);
	tap_int_eq((long long)w, 1, "a known stop: 5 calls, one walk");
	tap_str_eq(once ? once : "", each ? each : "-",
		   "the same output as with a walk per call");
	again = run_at(fx, 1, 20, &w);
	tap_int_eq((long long)w, 0, "a second handler of that stop walks not");
	tap_str_eq(again ? again : "", each ? each : "-",
		   "... and prints the same");
	free(again);
	again = run_at(fx, 2, 20, &w);
	tap_int_eq((long long)w, 1, "a new stop walks again");
	free(again);

	shallow = run_at(fx, 3, 2, &w);
	tap_int_eq((long long)w, 1, "MAXBACKTRACE 2: one walk");
	tap_int_eq(lines(shallow), 2 + 3, "... of 2 frames (2 lines + 3)");
	deep = run_at(fx, 3, 20, &w);
	tap_int_eq((long long)w, 1,
		   "MAXBACKTRACE 20 after a truncated 2 at one stop walks again");
	tap_str_eq(deep ? deep : "", each ? each : "-",
		   "... and gives the whole stack");
	shallow2 = run_at(fx, 3, 2, &w);
	tap_int_eq((long long)w, 0, "MAXBACKTRACE 2 again: from the deep walk");
	tap_str_eq(shallow2 ? shallow2 : "", shallow ? shallow : "-",
		   "... with the frames of the first shallow walk");
	free(shallow2);
	free(deep);
	free(shallow);
	free(once);
	free(each);
}

int main(int argc, char **argv)
{
	char *child[] = { "/proc/self/exe", "--child", NULL };
	struct fixture fx;
	pid_t pid, tid;

	(void)argv;
	if (argc > 1)
		return t_outer(t_sink) == 12345;
	memset(&fx, 0, sizeof(fx));
	if (maptap_modules_new(NULL, &fx.tgt.mods) != 0)
		return 99;
	pid = ptrace_stop_launch(child, &tid);
	if (!tap_ok(pid > 0, "the child stops itself"))
		return tap_done();
	if (tap_int_eq(maptap_modules_sync_pid(fx.tgt.mods, pid,
					       MAPTAP_MAPS_AUTO), 0,
		       "its modules")) {
		fx.tgt.pid = pid;
		fx.tgt.tid = tid;
		fx.tgt.stopped = true;
		test_cache(&fx);
	}
	ptrace_stop_kill(pid);
	maptap_unwinder_free(fx.tgt.unw);
	tr_stack_cache_free(fx.tgt.stk);
	maptap_modules_free(fx.tgt.mods);
	return tap_done();
}
