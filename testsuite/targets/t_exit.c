/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_exit.c -- end with a given exit code or signal.
 *
 * Usage: t_exit code N | t_exit raise SIG | t_exit segv | t_exit thread N |
 *        t_exit sysexit N | t_exit threadexit N | t_exit leaderexit N |
 *        t_exit threads
 * (thread: main returns N while another thread waits in pause();
 * sysexit: exit(2), not exit_group; threadexit: a thread ends by exit(2)
 * with N, then main by exit(2) with 3 (no exit_group: waitpid gives a
 * thread reaped during one the group's status); leaderexit: main ends
 * by exit(2) with 11, then the last thread by exit(2) with N; threads:
 * three threads
 * and main wait in pause() after "ready PID", for a signal from outside)
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "t_common.h"

static void *idle(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static int code;

static void *sysexit(void *arg)
{
	usleep(100000);		/* after main's exit(2), for leaderexit */
	syscall(SYS_exit, code);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	struct rlimit no_core = { 0, 0 };

	if (argc < 2)
		return 2;
	setrlimit(RLIMIT_CORE, &no_core);	/* no core files in the tests */
	if (strcmp(argv[1], "code") == 0 && argc > 2)
		exit(atoi(argv[2]));
	if (strcmp(argv[1], "raise") == 0 && argc > 2) {
		signal(atoi(argv[2]), SIG_DFL);
		raise(atoi(argv[2]));
		return 3;
	}
	if (strcmp(argv[1], "thread") == 0 && argc > 2) {
		if (pthread_create(&t, NULL, idle, NULL))
			return 4;
		return atoi(argv[2]);
	}
	if (strcmp(argv[1], "sysexit") == 0 && argc > 2)
		syscall(SYS_exit, atoi(argv[2]));
	if ((strcmp(argv[1], "threadexit") == 0 ||
	     strcmp(argv[1], "leaderexit") == 0) && argc > 2) {
		code = atoi(argv[2]);
		if (pthread_create(&t, NULL, sysexit, NULL))
			return 4;
		if (argv[1][0] == 'l')
			syscall(SYS_exit, 11);
		pthread_join(t, NULL);
		syscall(SYS_exit, 3);
	}
	if (strcmp(argv[1], "threads") == 0) {
		int i;

		for (i = 0; i < 3; i++)
			if (pthread_create(&t, NULL, idle, NULL))
				return 4;
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		for (;;)
			pause();
	}
	if (strcmp(argv[1], "segv") == 0) {
		volatile int *volatile p = NULL;

		return *p;
	}
	return 2;
}
