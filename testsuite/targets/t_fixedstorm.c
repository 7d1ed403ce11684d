/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_fixedstorm.c -- threads that map over and unmap one region at once.
 *
 * Usage: t_fixedstorm THREADS ROUNDS MAPS_FILE
 *
 * Each thread, ROUNDS times, picks 1 to 8 pages of a 256-page region and
 * either maps them MAP_FIXED (over whatever is there), unmaps them, or
 * maps 1 to 4 pages where the kernel likes (often a hole a sibling just
 * made) and unmaps its previous such mapping.  So a MAP_FIXED lands
 * where a sibling's munmap is in progress, and an mmap where a sibling
 * unmapped, before maptap has seen those calls return (runtime/tracer/refresh.c,
 * unmap_exit(), fixed_raced(), unmap_raced()).  Prints the region as
 * "region 0xSTART 0xEND" and "done N"; copies its maps to MAPS_FILE at
 * the end.
 */
#include "t_common.h"

#include <pthread.h>
#include <sys/mman.h>

enum { REGION_PAGES = 256 };

static char *region;
static long page;
static int rounds;

static void *worker(void *arg)
{
	unsigned seed;
	char *own = NULL;
	size_t own_len = 0;
	long *done = arg;
	int i;

	seed = (unsigned)(uintptr_t)done * 2654435761u;
	for (i = 0; i < rounds; i++) {
		int op = rand_r(&seed) % 3;
		size_t at = (size_t)(rand_r(&seed) % (REGION_PAGES - 8));
		size_t len = (size_t)page * (size_t)(1 + rand_r(&seed) % 8);
		char *p;

		if (op == 0) {
			p = mmap(region + at * (size_t)page, len,
				 PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			if (p == MAP_FAILED)
				return NULL;
		} else if (op == 1) {
			if (munmap(region + at * (size_t)page, len) != 0)
				return NULL;
		} else {
			if (own && munmap(own, own_len) != 0)
				return NULL;
			own_len = (size_t)page * (size_t)(1 + rand_r(&seed) % 4);
			own = mmap(NULL, own_len, PROT_READ,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (own == MAP_FAILED)
				return NULL;
		}
		++*done;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4, k;
	long done[16] = { 0 }, total = 0;
	pthread_t t[16];

	t_init();
	page = sysconf(_SC_PAGESIZE);
	rounds = argc > 2 ? atoi(argv[2]) : 2000;
	if (n < 1 || n > 16)
		return 2;
	region = mmap(NULL, REGION_PAGES * (size_t)page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		return 3;
	t_report("region", region, region + REGION_PAGES * (size_t)page);
	for (k = 0; k < n; k++)
		if (pthread_create(&t[k], NULL, worker, &done[k]) != 0)
			return 4;
	for (k = 0; k < n; k++) {
		pthread_join(t[k], NULL);
		total += done[k];
	}
	printf("done %ld\n", total);
	t_dump_maps(argc > 3 ? argv[3] : NULL);
	return total == (long)n * rounds ? 0 : 1;
}
