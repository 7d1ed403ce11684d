/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_traceme.c -- a traced process that traces its own child.
 *
 * The child calls ptrace(PTRACE_TRACEME) (it must succeed under maptap:
 * maptap lets go of it), stops itself, maps an area and exits 3; the
 * parent sees the stop, continues it, sees the exit.  Exit status 0 when
 * all of that happened as ptrace(2) says, else the step that failed; 15
 * when the child's mmap failed with ENOSYS (a seccomp filter returning
 * SECCOMP_RET_TRACE under a tracer without PTRACE_O_TRACESECCOMP).
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
	int status;
	pid_t pid;

	t_init();
	pid = fork();
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0) {
			fprintf(stderr, "PTRACE_TRACEME: %s\n", strerror(errno));
			_exit(40);
		}
		raise(SIGSTOP);
		if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0) == MAP_FAILED)
			_exit(errno == ENOSYS ? 42 : 41);
		_exit(3);
	}
	printf("child %d\n", (int)pid);
	fflush(stdout);
	if (waitpid(pid, &status, 0) != pid)
		return 10;
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP) {
		fprintf(stderr, "first wait status 0x%x\n", status);
		return 11;
	}
	if (ptrace(PTRACE_CONT, pid, NULL, NULL) != 0)
		return 12;
	if (waitpid(pid, &status, 0) != pid)
		return 13;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 42)
		return 15;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 3) {
		fprintf(stderr, "last wait status 0x%x\n", status);
		return 14;
	}
	return 0;
}
