/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_threads.c -- several threads changing the address space at once.
 *
 * Usage: t_threads MAPS_OUT NTHREADS ROUNDS [wait]
 * With "wait", it prints "ready PID" once its threads exist and waits for
 * a line on stdin (time for maptap -x to attach).  Then all threads start
 * together (a barrier); each round a thread maps 8
 * pages, protects pages 2-3 and unmaps pages 5-6 of them, and keeps the
 * rest, so no address is ever used by two threads and the test can
 * attribute every event.  Prints "area-TID-ROUND 0xSTART 0xEND".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "t_common.h"

#define PG 4096UL

static pthread_barrier_t start;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int rounds;

static void *worker(void *arg)
{
	pid_t tid = gettid();
	char key[64];
	int i;

	(void)arg;
	pthread_barrier_wait(&start);
	for (i = 0; i < rounds; i++) {
		char *p = mmap(NULL, 8 * PG, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			t_die("mmap");
		if (mprotect(p + 2 * PG, 2 * PG, PROT_READ))
			t_die("mprotect");
		if (munmap(p + 5 * PG, 2 * PG))
			t_die("munmap");
		snprintf(key, sizeof(key), "area-%d-%d", (int)tid, i);
		pthread_mutex_lock(&out_lock);
		t_report(key, p, p + 8 * PG);
		pthread_mutex_unlock(&out_lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	int i, n;

	if (argc < 4)
		return 2;
	t_init();
	n = atoi(argv[2]);
	rounds = atoi(argv[3]);
	if (n < 1 || n > 64)
		return 2;
	pthread_barrier_init(&start, NULL, (unsigned)n + 1);
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, NULL))
			t_die("pthread_create");
	if (argc > 4 && strcmp(argv[4], "wait") == 0) {
		char line[16];

		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (read(0, line, sizeof(line)) <= 0)
			return 3;
	}
	pthread_barrier_wait(&start);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	t_dump_maps(argv[1]);
	_exit(0);
}
