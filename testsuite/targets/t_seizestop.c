/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_seizestop.c -- a stopped process that its child seizes and lets go.
 *
 * The process stops itself (SIGSTOP).  Its child waits for that stop,
 * seizes it (under maptap -c, maptap lets go of it first, at the
 * interrupt stop of a thread in group-stop), interrupts, waits and
 * detaches it, waits for it to be back in its group-stop (state T), and
 * sends SIGCONT.  The process then maps a page and exits with its
 * child's status.  Exit status 0 when all of that happened as ptrace(2)
 * says, else the step that failed (42: the mmap failed with ENOSYS, 23:
 * not stopped after the detach).
 *
 * Under a tracer the process also shows t in every ptrace stop, so the
 * child may seize it before its SIGSTOP is dequeued; the stop it then
 * waits for can be that signal's delivery stop, and the child passes
 * the signal on at the detach, as any tracer must (ptrace(2), "Signal-
 * delivery-stop"), or the process would never stop (exit 23).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "t_common.h"

static int wait_state(pid_t pid, char want, int any_stop)
{
	int i;
	char c;

	for (i = 0; i < 10000; i++) {
		c = t_task_state(pid);
		if (c == want || (any_stop && c == 't'))
			return 1;
		usleep(1000);
	}
	return 0;
}

int main(void)
{
	pid_t parent = getpid(), pid;
	int status, sig;

	pid = fork();
	if (pid == 0) {
		/* Traced by maptap, a group-stopped process shows t. */
		if (!wait_state(parent, 'T', 1))
			_exit(19);
		if (ptrace(PTRACE_SEIZE, parent, NULL, NULL))
			_exit(20);
		if (ptrace(PTRACE_INTERRUPT, parent, NULL, NULL) ||
		    waitpid(parent, &status, __WALL) != parent ||
		    !WIFSTOPPED(status))
			_exit(22);
		/* A signal-delivery stop has no event in bits 16+. */
		sig = status >> 16 ? 0 : WSTOPSIG(status);
		if (ptrace(PTRACE_DETACH, parent, NULL, (void *)(long)sig))
			_exit(22);
		if (!wait_state(parent, 'T', 0))
			_exit(23);
		kill(parent, SIGCONT);
		_exit(0);
	}
	if (pid < 0)
		return 2;
	raise(SIGSTOP);
	if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
	    MAP_FAILED)
		return errno == ENOSYS ? 42 : 41;
	if (waitpid(pid, &status, 0) != pid)
		return 30;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 31;
}
