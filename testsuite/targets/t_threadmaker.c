/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_threadmaker.c -- threads that make threads without a pause.
 *
 * Usage: t_threadmaker K [IDLE]
 * Starts IDLE threads (default 0) that only wait, then prints "ready
 * PID".  K creator threads each start a short-lived thread (it maps and
 * unmaps one page and ends) and join it, over and over.  The main thread
 * reads lines from stdin: at "count" it prints "made N" (the threads
 * made so far); at any other line or EOF each creator ends, and it
 * prints "made N" and exits with status 0.  A creator and its fresh
 * child switch on one CPU all the time, the perf contexts' swap that
 * perfmode.py's case 4d is about; the idle threads are case 4e's.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "t_common.h"

static atomic_int stop;
static atomic_long made;

static void *short_lived(void *arg)
{
	void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	(void)arg;
	if (p == MAP_FAILED)
		t_die("mmap");
	munmap(p, 4096);
	return NULL;
}

static void *idle(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static void *creator(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		pthread_t th;

		if (pthread_create(&th, NULL, short_lived, NULL))
			t_die("pthread_create");
		pthread_join(th, NULL);
		atomic_fetch_add(&made, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t c[16], w;
	char line[64];
	int k, i, n;

	if (argc < 2)
		return 2;
	t_init();
	k = atoi(argv[1]);
	if (k < 1 || k > 16)
		return 2;
	n = argc > 2 ? atoi(argv[2]) : 0;
	for (i = 0; i < n; i++)
		if (pthread_create(&w, NULL, idle, NULL))
			t_die("pthread_create");
	for (i = 0; i < k; i++)
		if (pthread_create(&c[i], NULL, creator, NULL))
			t_die("pthread_create");
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) &&
	       strcmp(line, "count\n") == 0) {
		printf("made %ld\n", atomic_load(&made));
		fflush(stdout);
	}
	atomic_store(&stop, 1);
	for (i = 0; i < k; i++)
		pthread_join(c[i], NULL);
	printf("made %ld\n", atomic_load(&made));
	return 0;
}
