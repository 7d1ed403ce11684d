/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ptrace_stop.c -- start a program under ptrace and run it to its
 * SIGSTOP (see ptrace_stop.h).
 */
#include <config.h>

#include "ptrace_stop.h"

#include <signal.h>
#include <stdbool.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

/* Threads whose first stop was seen; more than the targets start. */
#define MAX_THREADS 64

/* Fork ARGV under PTRACE_TRACEME; its pid stopped at exec, or -1. */
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

/* Continue every thread until one that was running stops with SIGSTOP;
 * its tid.  A tid's first SIGSTOP counts only for the process's first
 * thread (the others' is the stop PTRACE_O_TRACECLONE gives them). */
static pid_t run_to_sigstop(pid_t pid)
{
	pid_t seen[MAX_THREADS] = { pid }, t = pid;
	int st, sig = 0, nseen = 1, i;
	bool known, resume = true;

	for (;;) {
		if (resume &&
		    ptrace(PTRACE_CONT, t, NULL, (void *)(long)sig) != 0)
			return -1;
		resume = true;
		t = waitpid(-1, &st, __WALL);
		if (t < 0)
			return -1;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (t == pid)
				return -1;
			resume = false;	/* a thread is gone: nothing to resume */
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

pid_t ptrace_stop_launch(char **argv, pid_t *tid)
{
	pid_t pid = launch(argv);

	if (pid < 0)
		return -1;
	*tid = run_to_sigstop(pid);
	if (*tid < 0) {
		ptrace_stop_kill(pid);
		return -1;
	}
	return pid;
}

void ptrace_stop_kill(pid_t pid)
{
	kill(pid, SIGKILL);
	while (waitpid(-1, NULL, __WALL) > 0)
		;
}
