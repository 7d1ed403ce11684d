/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_unwind_api.c -- the unwinder's documented errors and names
 * (include/maptap/unwind.h), without a target: what a caller gets for
 * bad arguments and for a thread it does not trace.
 */
#include <config.h>

#include <maptap/module.h>
#include <maptap/unwind.h>

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/tap.h"

static void names(void)
{
	tap_str_eq(maptap_unwind_end_name(MAPTAP_UNWIND_COMPLETE), "complete",
		   "end name: complete");
	tap_str_eq(maptap_unwind_end_name(MAPTAP_UNWIND_TRUNCATED),
		   "truncated", "end name: truncated");
	tap_str_eq(maptap_unwind_end_name(MAPTAP_UNWIND_NOINFO), "noinfo",
		   "end name: noinfo");
	tap_str_eq(maptap_unwind_end_name(MAPTAP_UNWIND_BADFRAME),
		   "badframe", "end name: badframe");
	tap_ok(maptap_unwind_end_name((enum maptap_unwind_end)99) == NULL,
	       "end name of an unknown value is NULL");
}

static void errors(struct maptap_modules *m)
{
	struct maptap_frame f[MAPTAP_MAXBACKTRACE];
	struct maptap_unwind_stats st;
	struct maptap_unwinder *u = NULL;
	pid_t child;

	tap_int_eq(maptap_unwinder_new(NULL, &u), -EINVAL,
		   "unwinder without a module tracker: -EINVAL");
	tap_int_eq(maptap_unwinder_new(m, &u), 0, "unwinder created");
	tap_int_eq(maptap_unwind(u, getpid(), getpid(), NULL, 0, NULL),
		   -EINVAL, "no frame array: -EINVAL");
	tap_int_eq(maptap_unwind(u, 0, 0, f, 0, NULL), -EINVAL,
		   "pid 0: -EINVAL");
	/* A child that is alive but not traced by us: PTRACE_GETREGS
	 * fails with ESRCH (ptrace(2)). */
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	tap_int_eq(maptap_unwind(u, child, child, f, 0, NULL), -ESRCH,
		   "a thread we do not trace: -ESRCH");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	maptap_unwinder_get_stats(u, &st);
	tap_ok(st.backtraces == 0 && st.page_reads == 0,
	       "failed calls read nothing (%llu backtraces, %llu reads)",
	       (unsigned long long)st.backtraces,
	       (unsigned long long)st.page_reads);
	maptap_unwinder_free(u);
}

int main(void)
{
	struct maptap_modules *m;

	names();
	if (maptap_modules_new(NULL, &m) != 0) {
		tap_ok(false, "module tracker");
		return tap_done();
	}
	errors(m);
	maptap_modules_free(m);
	return tap_done();
}
