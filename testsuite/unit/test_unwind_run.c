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

#include <maptap/maps.h>
#include <maptap/module.h>
#include <maptap/symbols.h>
#include <maptap/unwind.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_FRAMES 1024

static const char *const how_names[] = { "regs", "cfi", "fp", "dbg" };

static int die(const char *what, int err)
{
	fprintf(stderr, "test_unwind_run: %s: %s\n", what, strerror(err));
	return 1;
}

/* Fork CMD under PTRACE_TRACEME; returns its pid stopped at exec. */
static pid_t launch(char **argv)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		return -1;
	ptrace(PTRACE_SETOPTIONS, pid, NULL,
	       (void *)(long)(PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE));
	return pid;
}

#define MAX_THREADS 64

/* Continue every thread until one that was running stops with SIGSTOP;
 * its tid.  A new thread's first stop is a SIGSTOP too (PTRACE_O_
 * TRACECLONE, ptrace(2)), so a tid's first SIGSTOP counts only for the
 * process's first thread. */
static pid_t run_to_sigstop(pid_t pid)
{
	pid_t seen[MAX_THREADS] = { pid }, t = pid;
	int st, sig = 0, nseen = 1, i;
	bool known;

	for (;;) {
		if (ptrace(PTRACE_CONT, t, NULL, (void *)(long)sig) != 0)
			return -1;
		t = waitpid(-1, &st, __WALL);
		if (t < 0 || WIFEXITED(st) || WIFSIGNALED(st)) {
			if (t == pid || t < 0)
				return -1;
			continue;
		}
		sig = WSTOPSIG(st);
		if (sig == SIGTRAP && st >> 16) {	/* clone event */
			sig = 0;
			continue;
		}
		if (sig != SIGSTOP)
			continue;
		sig = 0;
		for (i = 0, known = false; i < nseen && !known; i++)
			known = seen[i] == t;
		if (known)
			return t;
		if (nseen < MAX_THREADS)
			seen[nseen++] = t;
	}
}

static int load_modules(struct maptap_modules *m, pid_t pid)
{
	struct maptap_maps_reader *r;
	struct maptap_vma_buf buf = { 0 };
	int rc = maptap_maps_open(pid, MAPTAP_MAPS_AUTO, &r);

	if (rc)
		return rc;
	rc = maptap_maps_read_all(r, &buf);
	if (!rc)
		rc = maptap_modules_sync(m, pid, buf.v, buf.n, NULL, NULL);
	maptap_vma_buf_free(&buf);
	maptap_maps_close(r);
	return rc;
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
		rc = load_modules(m, pid);
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
	pid = launch(argv + optind);
	if (pid < 0)
		return die("launch", errno);
	tid = run_to_sigstop(pid);
	if (tid < 0) {
		kill(pid, SIGKILL);
		return die("target exited before stopping", ESRCH);
	}
	rc = backtrace(pid, tid, max, debuginfo);
	kill(pid, SIGKILL);
	while (waitpid(-1, NULL, __WALL) > 0)
		;
	return rc ? die("backtrace", -rc) : 0;
}
