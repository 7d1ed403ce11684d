/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_thread_exec.c -- exec from a thread that is not the leader.
 *
 * Usage: t_thread_exec MAPS_OUT [wait] [idle] (the first image)
 *        t_thread_exec MAPS_OUT after  (the image the thread execs)
 * With "wait" it prints "ready PID" and waits for a line on stdin first;
 * with "idle" a third thread waits in pause() from the start, which the
 * exec ends (de_thread() kills it: exit code 0).
 *        t_thread_exec MAPS_OUT fail
 * The thread's execve fails (ENOENT) and it waits in pause(); then a
 * third thread kills the process with SIGKILL (taking it at once, most
 * likely before the others): every thread ends by signal 9.
 * The first image starts a thread that prints "execer TID" and execs this
 * program again while the leader waits in pause(); the new image (which
 * has the leader's pid and tid, execve(2)) maps one area, saves its maps
 * and exits with status 5.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include "t_common.h"

static char **args;

static void *killer(void *arg)
{
	(void)arg;
	kill(getpid(), SIGKILL);
	return NULL;
}
static int fail_mode;		/* "fail" */
static int failed[2];		/* the thread's execve failed */

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
	if (fail_mode) {
		execv("/nonexistent/t_thread_exec", argv);
		if (write(failed[1], "f", 1) != 1)
			t_die("write");
		for (;;)
			pause();
	}
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
	fail_mode = argc > 2 && strcmp(argv[2], "fail") == 0;
	if (fail_mode && pipe(failed))
		t_die("pipe");
	if (pthread_create(&th, NULL, execer, NULL))
		t_die("pthread_create");
	if (fail_mode) {
		pthread_t k;
		char c;

		if (read(failed[0], &c, 1) != 1 ||
		    pthread_create(&k, NULL, killer, NULL))
			t_die("fail");
	}
	for (;;)
		pause();
}
