/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_lifetime.c -- processes that begin and end in a known order, and a
 * system call with known 64-bit arguments, for the probe-point tests.
 *
 * Usage: t_lifetime exit N      exit with status N
 *        t_lifetime forkexec [PATH]
 *                               fork; the child execs PATH (default: this
 *                               program) as "PATH exit 7"; wait for it,
 *                               then exit 0
 *        t_lifetime exec        exec "t_lifetime exit 3" directly
 *        t_lifetime thread      start a thread that exits, join it, exit 0
 *        t_lifetime wait MODE   print "ready PID", read a line from stdin,
 *                               then do MODE
 *        t_lifetime rawcall NR  call NR with six 64-bit patterns (also
 *                               the unknown number 500), print
 *                               "ret NR VALUE" for each, exit 0
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "t_common.h"

static void *thread_main(void *arg)
{
	return arg;
}

static int rawcall(long nr)
{
	long r = syscall(nr, 0x0123456789abcdefL, (long)0xfedcba9876543210UL,
			 (long)0x8000000000000000UL, -1L, 0x7fffffffffffffffL,
			 0x5555aaaa5555aaaaL);

	printf("ret %ld %ld\n", nr, r < 0 ? -(long)errno : r);
	return 0;
}

static int run(char **argv, const char *mode, const char *arg)
{
	char *child[] = { argv[0], "exit", NULL, NULL };
	pthread_t th;
	int status;
	pid_t pid;

	if (!strcmp(mode, "exit"))
		return atoi(arg ? arg : "0");
	if (!strcmp(mode, "exec")) {
		child[2] = "3";
		execv("/proc/self/exe", child);
		t_die("execv");
	}
	if (!strcmp(mode, "forkexec")) {
		child[2] = "7";
		pid = fork();
		if (pid < 0)
			t_die("fork");
		if (pid == 0) {
			if (arg)
				child[0] = (char *)arg;
			execv(arg ? arg : "/proc/self/exe", child);
			t_die("execv");
		}
		if (waitpid(pid, &status, 0) != pid)
			t_die("waitpid");
		return 0;
	}
	if (!strcmp(mode, "thread")) {
		if (pthread_create(&th, NULL, thread_main, NULL) ||
		    pthread_join(th, NULL))
			t_die("pthread");
		return 0;
	}
	if (!strcmp(mode, "rawcall")) {
		rawcall(strtol(arg ? arg : "39", NULL, 0));
		return rawcall(500);
	}
	return 2;
}

int main(int argc, char **argv)
{
	char line[16];

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "wait") && argc > 2) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (read(0, line, sizeof(line)) <= 0)
			return 3;
		return run(argv, argv[2], argc > 3 ? argv[3] : NULL);
	}
	return run(argv, argv[1], argc > 2 ? argv[2] : NULL);
}
