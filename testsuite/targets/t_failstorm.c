/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_failstorm.c -- mapping calls that fail, mixed with ones that do not,
 * alone and in threads (issue 16: a munmap, mprotect, madvise or in-place
 * mremap of a single-threaded mm takes no exit stop; its change is read
 * at the thread's next stop, and one that failed makes no event).
 *
 * Usage: t_failstorm THREADS ROUNDS MAPS_FILE
 *
 * In a region of 256 pages: first the main thread alone, then THREADS
 * threads at once, then the main thread alone again, each ROUNDS rounds
 * of a random call over a random range: mmap MAP_FIXED, munmap, mprotect
 * (read-only, read-write, none), madvise(MADV_DONTNEED), mremap in place
 * (may grow, or fail with ENOMEM where the next page is taken), mmap
 * without MAP_FIXED (the kernel places it; each phase keeps its last 8
 * and unmaps the oldest, so places free up and are taken again), mmap
 * with a hint in the region (placed there when those pages are free,
 * merging with what is on either side, else elsewhere) -- both longer
 * than the hole, so they never fill it -- and calls that
 * fail: munmap of an unaligned address (EINVAL), mprotect with unknown
 * bits (EINVAL), mprotect and madvise over a range that begins in a
 * hole (ENOMEM; mprotect then changes nothing), mremap to length 0
 * (EINVAL), mmap of no file without MAP_ANONYMOUS (EBADF), mmap of more
 * than any gap holds (ENOMEM).  (issue 16: a lone thread's mmap takes no
 * exit stop either; where it went, or that it failed, is read at the
 * next stop.)  A hole of 8 pages, made once by munmap, only ever
 * sees calls that fail there.  Prints "region 0xSTART 0xEND", "hole
 * 0xSTART 0xEND", "failed N" (calls that failed, at least one of each
 * kind in each phase) and "done N"; copies its maps to MAPS_FILE at the
 * end.
 */
#define _GNU_SOURCE
#include "t_common.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

enum { REGION_PAGES = 256, HOLE_PAGES = 8, KINDS = 7, KEEP = 8 };

static char *region, *hole;
static long page;
static int rounds;

struct phase {
	unsigned seed;
	long done, failed;
	long kinds[KINDS];	/* failures of each kind seen */
	void *kept[KEEP];	/* its placed mappings, oldest first */
	size_t kept_len[KEEP];
	int n_kept;
};

static int fail_call(int kind)
{
	switch (kind) {
	case 0:
		return munmap(hole + 1, (size_t)page);
	case 1:
		return mprotect(hole, (size_t)page, 0x7f0);
	case 2:
		return mprotect(hole, 2 * (size_t)page, PROT_READ);
	case 3:
		return madvise(hole, (size_t)page, MADV_DONTNEED);
	case 4:
		return mremap(hole - (size_t)page, (size_t)page, 0, 0) ==
		       MAP_FAILED ? -1 : 0;
	case 5:
		return mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE, -1,
			    0) == MAP_FAILED ? -1 : 0;
	default:
		/* Longer than any gap below the 47-bit window: ENOMEM
		 * from get_unmapped_area(), whatever the overcommit mode. */
		return mmap(NULL, (1UL << 47) - 2 * (size_t)page, PROT_READ,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
		       MAP_FAILED ? -1 : 0;
	}
}

/* Keep mapping M of LEN bytes; past KEEP, unmap the oldest. */
static void keep(struct phase *ph, void *m, size_t len)
{
	if (ph->n_kept == KEEP) {
		munmap(ph->kept[0], ph->kept_len[0]);
		memmove(ph->kept, ph->kept + 1,
			(KEEP - 1) * sizeof(ph->kept[0]));
		memmove(ph->kept_len, ph->kept_len + 1,
			(KEEP - 1) * sizeof(ph->kept_len[0]));
		ph->n_kept--;
	}
	ph->kept[ph->n_kept] = m;
	ph->kept_len[ph->n_kept++] = len;
}

static void round_of(struct phase *ph)
{
	int op = rand_r(&ph->seed) % 9;
	void *m;
	size_t at = (size_t)(rand_r(&ph->seed) % (REGION_PAGES - 8));
	size_t len = (size_t)page * (size_t)(1 + rand_r(&ph->seed) % 8);
	char *p = region + at * (size_t)page;
	static const int prots[3] = { PROT_READ, PROT_READ | PROT_WRITE,
				      PROT_NONE };

	switch (op) {
	case 0:
		if (mmap(p, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
			return;
		break;
	case 1:
		if (munmap(p, len) != 0)
			return;
		break;
	case 2:
		/* ENOMEM when part of it is unmapped: the part before the
		 * first hole changed all the same. */
		(void)mprotect(p, len, prots[rand_r(&ph->seed) % 3]);
		break;
	case 3:
		(void)madvise(p, len, MADV_DONTNEED);
		break;
	case 4:
		/* In place: shrink, or grow into what follows when free;
		 * else ENOMEM (or EFAULT where p is not mapped). */
		(void)mremap(p, (size_t)page,
			     (size_t)page * (size_t)(1 + rand_r(&ph->seed) % 3),
			     0);
		break;
	case 5:
		/* Longer than the hole: a placed mapping must never fill
		 * it (calls there must keep failing). */
		len += (size_t)page * HOLE_PAGES;
		m = mmap(NULL, len, prots[rand_r(&ph->seed) % 3],
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return;
		keep(ph, m, len);
		break;
	case 6:
		/* A hint, no MAP_FIXED: at P if free, else elsewhere; kept
		 * only when elsewhere (the region's own calls see to P). */
		len += (size_t)page * HOLE_PAGES;
		m = mmap(p, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return;
		if (m != p)
			keep(ph, m, len);
		break;
	default: {
		int kind = rand_r(&ph->seed) % KINDS;

		if (fail_call(kind) == 0)
			return;		/* it must fail: "done" falls short */
		ph->failed++;
		ph->kinds[kind]++;
		break;
	}
	}
	ph->done++;
}

static void *worker(void *arg)
{
	struct phase *ph = arg;
	int i;

	for (i = 0; i < rounds; i++)
		round_of(ph);
	return NULL;
}

static bool every_kind(const struct phase *ph)
{
	int k;

	for (k = 0; k < KINDS; k++)
		if (!ph->kinds[k])
			return false;
	return true;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4, k;
	struct phase ph[18];
	long total = 0, failed = 0;
	pthread_t t[16];
	bool kinds = true;
	char *h;

	t_init();
	page = sysconf(_SC_PAGESIZE);
	rounds = argc > 2 ? atoi(argv[2]) : 2000;
	if (n < 1 || n > 16)
		return 2;
	memset(ph, 0, sizeof(ph));
	for (k = 0; k < n + 2; k++)
		ph[k].seed = 2654435761u * (unsigned)(k + 1);
	/* The region between two PROT_NONE guard pages that no call
	 * touches, so that the gaps its calls open never join the free
	 * space around it, where the threads' stacks would go. */
	region = mmap(NULL, (REGION_PAGES + 2) * (size_t)page,
		      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	if (region != MAP_FAILED &&
	    (mprotect(region, (size_t)page, PROT_NONE) != 0 ||
	     mprotect(region + (REGION_PAGES + 1) * (size_t)page,
		      (size_t)page, PROT_NONE) != 0))
		return 3;
	if (region != MAP_FAILED)
		region += page;
	h = mmap(NULL, (HOLE_PAGES + 2) * (size_t)page, PROT_READ,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED || h == MAP_FAILED)
		return 3;
	hole = h + page;
	if (munmap(hole, HOLE_PAGES * (size_t)page) != 0)
		return 3;
	t_report("region", region, region + REGION_PAGES * (size_t)page);
	t_report("hole", hole, hole + HOLE_PAGES * (size_t)page);
	worker(&ph[0]);
	for (k = 0; k < n; k++)
		if (pthread_create(&t[k], NULL, worker, &ph[k + 1]) != 0)
			return 4;
	for (k = 0; k < n; k++)
		pthread_join(t[k], NULL);
	worker(&ph[n + 1]);
	for (k = 0; k < n + 2; k++) {
		total += ph[k].done;
		failed += ph[k].failed;
	}
	/* The phases alone are long enough to see every kind fail. */
	kinds = every_kind(&ph[0]) && every_kind(&ph[n + 1]);
	printf("failed %ld%s\n", failed, kinds ? "" : " (not every kind)");
	printf("done %ld\n", total);
	t_dump_maps(argc > 3 ? argv[3] : NULL);
	return total == (long)(n + 2) * rounds && kinds ? 0 : 1;
}
