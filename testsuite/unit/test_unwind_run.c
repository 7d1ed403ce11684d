/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_unwind_run.c -- run a target under ptrace until it stops itself
 * with SIGSTOP, then print the backtrace of the stopped thread as
 * libmaptap's unwinder sees it; the probe test_unwind.sh drives.
 *
 *   test_unwind_run [-n MAX] [-D DEBUGINFO_PATH] CMD [ARGS...]
 *
 * The target's first SIGSTOP (the thread that raised it: the stop
 * reports its tid) is the stop point.  The module layer learns the
 * address space from one read of /proc/PID/maps
 * (maptap_modules_sync()); -D sets its debuginfo path.  Output, one line
 * per frame, then the end marker:
 *
 *   stop PID TID
 *   frame N HOW PC FUNC+0xOFF MODULE_BASENAME
 *   end REASON
 *
 * with HOW regs|cfi|fp|dbg (dbg: CFI from .debug_frame), FUNC "??" and
 * MODULE "??" when unresolved.
 * The target is killed afterwards.  Exit status 0, or 1 with a message.
 */
#include <config.h>

#include <maptap/module.h>
#include <maptap/symbols.h>
#include <maptap/unwind.h>

#include "ptrace_stop.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_FRAMES 1024

static const char *const how_names[] = { "regs", "cfi", "fp", "dbg" };

static int die(const char *what, int err)
{
	fprintf(stderr, "test_unwind_run: %s: %s\n", what, strerror(err));
	return 1;
}

static void print_frame(struct maptap_modules *m, pid_t pid, unsigned i,
			const struct maptap_frame *f)
{
	struct maptap_sym_info si;
	const char *mod = "??", *slash;

	maptap_frame_lookup(m, pid, f, MAPTAP_SYM_FUNC, &si);
	if (si.where.has_module && si.where.module.path) {
		slash = strrchr(si.where.module.path, '/');
		mod = slash ? slash + 1 : si.where.module.path;
	}
	printf("frame %u %s 0x%" PRIx64 " %s+0x%" PRIx64 " %s\n", i,
	       how_names[f->how], f->pc, si.func.name ? si.func.name : "??",
	       si.func.name ? si.func.offset : 0, mod);
}

static int backtrace(pid_t pid, pid_t tid, unsigned max,
		     const char *debuginfo)
{
	struct maptap_modules_opts mo = { .debuginfo_path = debuginfo };
	static struct maptap_frame frames[MAX_FRAMES];
	struct maptap_unwinder *u = NULL;
	struct maptap_modules *m = NULL;
	enum maptap_unwind_end end;
	int rc, n, i;

	rc = maptap_modules_new(&mo, &m);
	if (!rc)
		rc = maptap_modules_sync_pid(m, pid, MAPTAP_MAPS_AUTO);
	if (!rc)
		rc = maptap_unwinder_new(m, &u);
	if (rc)
		goto out;
	printf("stop %d %d\n", (int)pid, (int)tid);
	n = maptap_unwind(u, pid, tid, frames, max, &end);
	if (n < 0) {
		rc = n;
		goto out;
	}
	for (i = 0; i < n; i++)
		print_frame(m, pid, (unsigned)i, &frames[i]);
	printf("end %s\n", maptap_unwind_end_name(end));
out:
	maptap_unwinder_free(u);
	maptap_modules_free(m);
	return rc;
}

int main(int argc, char **argv)
{
	const char *debuginfo = NULL;
	unsigned max = 0;
	pid_t pid, tid;
	int opt, rc;

	while ((opt = getopt(argc, argv, "+n:D:")) != -1) {
		if (opt == 'n')
			max = (unsigned)strtoul(optarg, NULL, 0);
		else if (opt == 'D')
			debuginfo = optarg;
		else
			return 2;
	}
	if (optind >= argc || max > MAX_FRAMES) {
		fputs("usage: test_unwind_run [-n MAX] [-D PATH] CMD...\n",
		      stderr);
		return 2;
	}
	pid = ptrace_stop_launch(argv + optind, &tid);
	if (pid < 0)
		return die("target exited before stopping", ESRCH);
	rc = backtrace(pid, tid, max, debuginfo);
	ptrace_stop_kill(pid);
	return rc ? die("backtrace", -rc) : 0;
}
