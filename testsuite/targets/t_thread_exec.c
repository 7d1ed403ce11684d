/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_thread_exec.c -- exec from a thread that is not the leader.
 *
 * Usage: t_thread_exec MAPS_OUT [wait] [idle] (the first image)
 *        t_thread_exec MAPS_OUT after  (the image the thread execs)
 * With "wait" it prints "ready PID" and waits for a line on stdin first;
 * with "idle" a third thread waits in pause() from the start, which the
 * exec ends (de_thread() kills it: exit code 0).
 * The first image starts a thread that prints "execer TID" and execs this
 * program again while the leader waits in pause(); the new image (which
 * has the leader's pid and tid, execve(2)) maps one area, saves its maps
 * and exits with status 5.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "t_common.h"

static char **args;

static void *idler(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void *execer(void *arg)
{
	char *argv[] = { args[0], args[1], "after", NULL };

	(void)arg;
	printf("execer %d\n", (int)gettid());
	fflush(stdout);
	execv("/proc/self/exe", argv);
	t_die("execv");
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th, idle;
	int i;

	if (argc < 2)
		return 2;
	t_init();
	args = argv;
	if (argc > 2 && strcmp(argv[2], "after") == 0) {
		char *p = mmap(NULL, 4096, PROT_READ,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		printf("leader %d\nleader-tid %d\n", (int)getpid(),
		       (int)gettid());
		t_report("after", p, p + 4096);
		t_dump_maps(argv[1]);
		_exit(5);
	}
	for (i = 2; i < argc; i++)
		if (strcmp(argv[i], "idle") == 0 &&
		    pthread_create(&idle, NULL, idler, NULL))
			t_die("pthread_create");
	if (argc > 2 && strcmp(argv[2], "wait") == 0) {
		char line[16];

		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (read(0, line, sizeof(line)) <= 0)
			return 3;
	}
	if (pthread_create(&th, NULL, execer, NULL))
		t_die("pthread_create");
	for (;;)
		pause();
}
