/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_earlydeath.c -- an LD_PRELOAD shim for maptap itself (signals.py):
 * the first time maptap opens perf events on its own child, or
 * PTRACE_SEIZEs it, the shim first sends that child the signal
 * $MT_EARLY_SIG and waits until it is dead (waitid WNOWAIT: the zombie
 * stays for maptap to reap).  That is what a terminal's ^C or
 * timeout(1), which signal the whole process group, do now and then to
 * a command launched with -c while it still waits for maptap's go: the
 * race made deterministic.  With MT_EARLY_AT=go the child is killed
 * later, when maptap writes it its go (the one byte "g"): its events are
 * open, or it is seized, and it dies before its exec.  Without
 * $MT_EARLY_SIG it changes nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int done;
static pid_t child;	/* MT_EARLY_AT=go: whom the go is for */

/* Whether PID is a child of this process (proc(5), stat field 4). */
static int my_child(pid_t pid)
{
	char path[64], comm_end[512];
	FILE *f;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	/* the command name may hold spaces; it ends at the last ')' */
	if (fgets(comm_end, sizeof(comm_end), f)) {
		char *p = strrchr(comm_end, ')');

		if (p)
			sscanf(p + 1, " %*c %d", &ppid);
	}
	fclose(f);
	return ppid == getpid();
}

static void kill_now(pid_t pid)
{
	siginfo_t si;

	done = 1;
	kill(pid, atoi(getenv("MT_EARLY_SIG")));
	waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
}

static void kill_first(pid_t pid)
{
	const char *at = getenv("MT_EARLY_AT");

	if (done || child || !getenv("MT_EARLY_SIG") || pid <= 0 ||
	    !my_child(pid))
		return;
	if (at && !strcmp(at, "go"))
		child = pid;
	else
		kill_now(pid);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT,
								     "write");
	if (!done && child && n == 1 && *(const char *)buf == 'g')
		kill_now(child);
	return real(fd, buf, n);
}

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (nr == SYS_perf_event_open)
		kill_first((pid_t)a[1]);
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

long ptrace(enum __ptrace_request req, ...)
{
	static long (*real)(enum __ptrace_request, ...);
	va_list ap;
	pid_t pid;
	void *addr, *data;

	va_start(ap, req);
	pid = va_arg(ap, pid_t);
	addr = va_arg(ap, void *);
	data = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (long (*)(enum __ptrace_request, ...))dlsym(RTLD_NEXT,
								   "ptrace");
	if (req == PTRACE_SEIZE)
		kill_first(pid);
	return real(req, pid, addr, data);
}
