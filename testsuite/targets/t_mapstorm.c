/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_mapstorm.c -- threads that map, protect and unmap at once.
 *
 * Usage: t_mapstorm THREADS ITERATIONS
 *
 * Each thread mmaps 1 to 7 anonymous pages, makes the first read-only and
 * unmaps them all, ITERATIONS times.  The kernel hands one thread's freed
 * range to another's next mmap at once, often before maptap has seen the
 * first thread's munmap return: the case where a munmap is reported from
 * the mmap that reused its range (runtime/tracer/refresh.c, unmap_raced()).
 * Prints "done N" with the number of rounds run.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int iterations;

static void *worker(void *arg)
{
	long page = sysconf(_SC_PAGESIZE), i, *rounds = arg;

	for (i = 0; i < iterations; i++) {
		size_t len = (size_t)page * (size_t)(1 + i % 7);
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			break;
		p[0] = 1;
		if (mprotect(p, (size_t)page, PROT_READ) != 0 ||
		    munmap(p, len) != 0)
			break;
		++*rounds;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4, k;
	pthread_t t[16];
	long rounds[16] = { 0 }, total = 0;

	iterations = argc > 2 ? atoi(argv[2]) : 300;
	if (n < 1 || n > 16)
		return 2;
	for (k = 0; k < n; k++)
		if (pthread_create(&t[k], NULL, worker, &rounds[k]) != 0)
			return 3;
	for (k = 0; k < n; k++) {
		pthread_join(t[k], NULL);
		total += rounds[k];
	}
	printf("done %ld\n", total);
	return total == (long)n * iterations ? 0 : 1;
}
