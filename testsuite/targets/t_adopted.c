/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_adopted.c -- a process that its own child ptrace-attaches to.
 *
 * The child attaches to the parent (PTRACE_SEIZE: under maptap, maptap
 * must let go of the parent first), checks that it is the tracer, and
 * detaches; the parent waits for the child and exits 9 (or with the
 * child's failing status).  maptap -c must still pass that 9 on: it is
 * the parent of the launched command even after it let go of it.
 */
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "t_common.h"

static int traces(pid_t pid)
{
	char path[64], line[256];
	FILE *f;
	int me = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &me) == 1)
			break;
	fclose(f);
	return me == getpid();
}

int main(void)
{
	pid_t parent = getpid(), pid;
	int status;

	pid = fork();
	if (pid == 0) {
		if (ptrace(PTRACE_SEIZE, parent, NULL, NULL))
			_exit(20);
		if (!traces(parent))
			_exit(21);
		/* PTRACE_DETACH needs the tracee stopped (ptrace(2)). */
		if (ptrace(PTRACE_INTERRUPT, parent, NULL, NULL) ||
		    waitpid(parent, &status, __WALL) != parent ||
		    ptrace(PTRACE_DETACH, parent, NULL, NULL))
			_exit(22);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 30;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return WIFEXITED(status) ? WEXITSTATUS(status) : 31;
	return 9;
}
