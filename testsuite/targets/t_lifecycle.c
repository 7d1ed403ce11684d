/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_lifecycle.c -- short-lived children in the shapes that race with
 * their creator's ptrace event: a child's first stop, its exit, or its
 * real parent's wait may all come before the creator's
 * PTRACE_EVENT_FORK/VFORK/CLONE is reported to the tracer.
 *
 * Usage: t_lifecycle MODE N
 *   fork-exit    N times: fork(), the child _exit(0)s at once, wait
 *   vfork-exec   N times: vfork() and exec /bin/true, wait
 *   thread-fork  N times: a thread that exits at once while the main
 *                thread forks a child that _exit(0)s
 *   burst        fork N children that _exit at once, then wait for all
 *
 * Exits with status 3 after waiting for every child, each of which must
 * have exited 0 (else status 1).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void *quick(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 10, i, bad = 0;
	const char *mode = argc > 1 ? argv[1] : "";
	pid_t pids[256];

	if (n > 256)
		n = 256;
	for (i = 0; i < n; i++) {
		pid_t pid;

		if (!strcmp(mode, "fork-exit") || !strcmp(mode, "burst")) {
			pid = fork();
			if (pid == 0)
				_exit(0);
		} else if (!strcmp(mode, "vfork-exec")) {
			pid = vfork();
			if (pid == 0) {
				execl("/bin/true", "true", (char *)NULL);
				_exit(127);
			}
		} else if (!strcmp(mode, "thread-fork")) {
			pthread_t th;

			if (pthread_create(&th, NULL, quick, NULL))
				return 1;
			pid = fork();
			if (pid == 0)
				_exit(0);
			pthread_join(th, NULL);
		} else {
			fprintf(stderr, "t_lifecycle: unknown mode '%s'\n",
				mode);
			return 2;
		}
		if (pid < 0)
			return 1;
		if (!strcmp(mode, "burst"))
			pids[i] = pid;
		else if (reap(pid))
			bad++;
	}
	if (!strcmp(mode, "burst"))
		for (i = 0; i < n; i++)
			if (reap(pids[i]))
				bad++;
	return bad ? 1 : 3;
}
