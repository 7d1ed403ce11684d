/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_remapstorm.c -- an mremap(MREMAP_MAYMOVE) that cannot grow in place
 * while siblings unmap and map the page it would grow into.
 *
 * Usage: t_remapstorm SETS ROUNDS MAPS_FILE
 *
 * Each set of three threads shares two pages of a region, X and the
 * page S above it.  The remapper grows its one-page mapping at X to
 * two pages with MREMAP_MAYMOVE, which moves it when S is mapped, and
 * brings it back to one page at X (moving it back with MREMAP_FIXED);
 * the unmapper unmaps S; the mapper maps S with MAP_FIXED.  So a munmap
 * of S re-reads it while the mremap is still in the kernel, whose
 * destination only its return value tells: S is in the range the mremap
 * would have grown into in place, and, when it moved, its exit does not
 * read S (runtime/tracer/refresh.c, pending_ranges()).  Prints the region as
 * "region 0xSTART 0xEND" and "done N"; copies its maps to MAPS_FILE at
 * the end.
 */
#define _GNU_SOURCE
#include "t_common.h"

#include <pthread.h>
#include <sys/mman.h>

enum { MAX_SETS = 5 };

static long page;
static int rounds;
static char *region;

struct job {
	int set, role;
	long done;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	char *x = region + (size_t)page * 3 * (size_t)j->set;
	char *s = x + page;
	int i;

	for (i = 0; i < rounds; i++) {
		char *q;

		switch (j->role) {
		case 0:	/* the remapper; failures are part of the game */
			q = mremap(x, (size_t)page, 2 * (size_t)page,
				   MREMAP_MAYMOVE);
			if (q == MAP_FAILED)
				break;
			if (q != x)
				mremap(q, 2 * (size_t)page, (size_t)page,
				       MREMAP_MAYMOVE | MREMAP_FIXED, x);
			else
				mremap(x, 2 * (size_t)page, (size_t)page, 0);
			break;
		case 1:
			munmap(s, (size_t)page);
			break;
		default:
			mmap(s, (size_t)page, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			break;
		}
		j->done++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int sets = argc > 1 ? atoi(argv[1]) : 2, n, k;
	struct job jobs[3 * MAX_SETS];
	pthread_t t[3 * MAX_SETS];
	long total = 0;

	t_init();
	page = sysconf(_SC_PAGESIZE);
	rounds = argc > 2 ? atoi(argv[2]) : 1000;
	if (sets < 1 || sets > MAX_SETS)
		return 2;
	n = 3 * sets;
	/* Per set: X, S, and a page left free between sets. */
	region = mmap(NULL, (size_t)page * 3 * (size_t)sets, PROT_NONE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED ||
	    munmap(region, (size_t)page * 3 * (size_t)sets) != 0)
		return 3;
	for (k = 0; k < sets; k++)
		if (mmap(region + (size_t)page * 3 * (size_t)k, (size_t)page,
			 PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
			return 3;
	t_report("region", region, region + (size_t)page * 3 * (size_t)sets);
	for (k = 0; k < n; k++) {
		jobs[k] = (struct job){ k / 3, k % 3, 0 };
		if (pthread_create(&t[k], NULL, worker, &jobs[k]) != 0)
			return 4;
	}
	for (k = 0; k < n; k++) {
		pthread_join(t[k], NULL);
		total += jobs[k].done;
	}
	printf("done %ld\n", total);
	t_dump_maps(argc > 3 ? argv[3] : NULL);
	return total == (long)n * rounds ? 0 : 1;
}
