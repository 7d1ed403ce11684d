/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_starve.c -- one thread's calls must not wait behind a sibling's.
 *
 * Usage: t_starve N
 * Prints "ready PID" and waits for a line on stdin (none under -c: end
 * of file will do).  Then a second thread maps and unmaps a page as
 * fast as it can while the main thread does N mmap+munmap pairs of its
 * own; the main thread then stops the second and prints "done N".
 * Every call is a stop for maptap (a mapping call), so the two threads
 * are stopped turn about: when the tracer lets the sibling run and it
 * is stopped again before each waitpid(-1), the main thread's stop is
 * never taken unless every pending stop gets its turn (runtime/tracer/
 * waitq.c).  Exit status 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "t_common.h"

static atomic_int stop;

static void *hammer(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || munmap(p, 4096))
			t_die("hammer");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 1000;
	char line[64];
	pthread_t th;

	t_init();
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (read(0, line, sizeof(line)) < 0)
		t_die("read");
	if (pthread_create(&th, NULL, hammer, NULL))
		t_die("pthread_create");
	for (i = 0; i < n; i++) {
		void *p = mmap(NULL, 8192, PROT_READ,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || munmap(p, 8192))
			t_die("main");
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	printf("done %ld\n", n);
	return 0;
}
