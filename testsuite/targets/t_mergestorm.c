/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_mergestorm.c -- pages mapped one at a time into a slot that one
 * thread keeps unmapping, merging with their neighbours as they come.
 *
 * Usage: t_mergestorm MAPPERS ROUNDS MAPS_FILE
 *
 * One thread unmaps an 8-page slot again and again; MAPPERS threads map
 * single pages at random places in it with MAP_FIXED, each merging with
 * the pages next to it into one VMA; two more map and unmap a page where
 * the kernel likes.  So a munmap's re-read of the slot walks VMAs that
 * grow under it: the VMA after the last one read may have swallowed it
 * meanwhile (runtime/model/maps_reader.c, drop_overlapped()).  Prints "done
 * N"; copies its maps to MAPS_FILE at the end.
 */
#include "t_common.h"

#include <pthread.h>
#include <sys/mman.h>

enum { SLOT = 8, MAX_MAPPERS = 12 };

static long page;
static char *slot;
static int rounds;

static void *unmapper(void *arg)
{
	long *done = arg;
	int i;

	for (i = 0; i < rounds; i++, ++*done)
		if (munmap(slot, SLOT * (size_t)page) != 0)
			_exit(3);
	return NULL;
}

static void *mapper(void *arg)
{
	long *done = arg;
	unsigned seed = (unsigned)(uintptr_t)done * 2654435761u;
	int i;

	for (i = 0; i < rounds; i++, ++*done)
		if (mmap(slot + (size_t)(rand_r(&seed) % SLOT) * (size_t)page,
			 (size_t)page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
			_exit(4);
	return NULL;
}

static void *placer(void *arg)
{
	long *done = arg;
	int i;

	for (i = 0; i < rounds; i++, ++*done) {
		char *p = mmap(NULL, (size_t)page, PROT_READ,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || munmap(p, (size_t)page) != 0)
			_exit(5);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int m = argc > 1 ? atoi(argv[1]) : 8, n = 0, k;
	pthread_t t[MAX_MAPPERS + 3];
	long done[MAX_MAPPERS + 3] = { 0 }, total = 0;

	t_init();
	page = sysconf(_SC_PAGESIZE);
	rounds = argc > 2 ? atoi(argv[2]) : 2000;
	if (m < 1 || m > MAX_MAPPERS)
		return 2;
	slot = mmap(NULL, SLOT * (size_t)page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (slot == MAP_FAILED)
		return 3;
	if (pthread_create(&t[n], NULL, unmapper, &done[n]) != 0)
		return 4;
	for (n++, k = 0; k < m; k++, n++)
		if (pthread_create(&t[n], NULL, mapper, &done[n]) != 0)
			return 4;
	for (k = 0; k < 2; k++, n++)
		if (pthread_create(&t[n], NULL, placer, &done[n]) != 0)
			return 4;
	for (k = 0; k < n; k++) {
		pthread_join(t[k], NULL);
		total += done[k];
	}
	printf("done %ld\n", total);
	t_dump_maps(argc > 3 ? argv[3] : NULL);
	return total == (long)n * rounds ? 0 : 1;
}
