/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_traceme.c -- a traced process that traces its own child.
 *
 * The child calls ptrace(PTRACE_TRACEME) (it must succeed under maptap:
 * maptap lets go of it), stops itself, maps an area and exits 3; the
 * parent sees the stop, continues it, sees the exit.  Exit status 0 when
 * all of that happened as ptrace(2) says, else the step that failed; 15
 * when the child's mmap failed with ENOSYS (a seccomp filter returning
 * SECCOMP_RET_TRACE under a tracer without PTRACE_O_TRACESECCOMP).
 *
 * With the argument "listener", the process first installs a seccomp
 * filter of its own with a listener (for getppid(2), never called), so
 * that no other listener can be added to its children (seccomp(2):
 * EBUSY); 16 when that filter cannot be installed.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "t_common.h"

/* A filter with a listener: getppid goes to it, the rest is allowed. */
static int own_listener(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	t_init();
	if (argc > 1 && strcmp(argv[1], "listener") == 0 && own_listener() < 0)
		return 16;
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
