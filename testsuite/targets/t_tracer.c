/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_tracer.c -- a process that traces its own child, for maptap -x.
 *
 * The child calls PTRACE_TRACEME and stops itself; the parent waits for
 * that stop, prints "ready PID" and "child PID", and waits for a line on
 * stdin (mttest.attach_run(): maptap attaches meanwhile).  Then it steps
 * the child from system call to system call (PTRACE_SYSCALL) until it
 * exits: the child maps a page and exits 3.  It prints "stops N" (the
 * syscall stops it saw, at least the mmap's two) and exits 0 when all of
 * that happened as ptrace(2) says, else the step that failed.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "t_common.h"

int main(void)
{
	int status, stops = 0;
	char line[16];
	pid_t pid;

	t_init();
	pid = fork();
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
			_exit(40);
		raise(SIGSTOP);
		if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0) == MAP_FAILED)
			_exit(errno == ENOSYS ? 42 : 41);
		_exit(3);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 10;
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP)
		return 11;
	printf("ready %d\nchild %d\n", (int)getpid(), (int)pid);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 12;
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(long)PTRACE_O_TRACESYSGOOD))
		return 13;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, NULL) != 0)
			return 14;
		if (waitpid(pid, &status, 0) != pid)
			return 15;
		if (!WIFSTOPPED(status))
			break;
		if (WSTOPSIG(status) != (SIGTRAP | 0x80))
			return 16;
		stops++;
	}
	printf("stops %d\n", stops);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 3)
		return WIFEXITED(status) && WEXITSTATUS(status) == 42 ? 42 : 17;
	return stops >= 2 ? 0 : 18;
}
