/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_perfstorm.c -- two threads change the address space at random, then
 * the process writes its own final /proc/self/maps.
 *
 * Usage: t_perfstorm ROUNDS SEED MAPS_FILE [wait|lone]
 * With "wait": prints "ready PID" and waits for a line on stdin before
 * the storm (for maptap -x); "lone" too, and the main thread storms
 * alone first, then both do (a process that gets its second thread
 * under maptap -x).  Each thread keeps up to 16 mappings of its
 * own and, ROUNDS times, picks one of: mmap (anonymous or of /proc/self/
 * exe), munmap (all or part), mprotect (part), mmap MAP_FIXED over part
 * of one of its own, mremap (grow in place, shrink, move to a new place),
 * madvise(MADV_DONTFORK or MADV_DOFORK) of a page (a VMA split or
 * merged), a munmap and a madvise that fail (EINVAL),
 * or, in the first thread only, brk up or down (never below where it
 * began).  The random choices come
 * from SEED (rand_r per thread), so a run repeats.  At the end the main
 * thread writes /proc/self/maps to MAPS_FILE (t_dump_maps()) and exits 0:
 * the log replayed must give exactly that.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "t_common.h"

#define PG 4096UL
#define SLOTS 16

static int rounds;
static unsigned seed;
static int exe_fd;

struct slot {
	char *p;
	size_t len;		/* bytes */
};

static void storm(int who)
{
	struct slot s[SLOTS] = { { 0 } };
	size_t grown = 0;	/* bytes this storm added to the break */
	unsigned r = seed * 2654435761u + (unsigned)who;
	int i, k;

	for (i = 0; i < rounds; i++) {
		struct slot *x = &s[rand_r(&r) % SLOTS];
		int op = rand_r(&r) % 10;
		size_t pages = 1 + rand_r(&r) % 6;

		if (!x->p) {
			int file = rand_r(&r) % 4 == 0;

			x->len = pages * PG;
			x->p = mmap(NULL, x->len, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | (file ? 0 : MAP_ANONYMOUS),
				    file ? exe_fd : -1, 0);
			if (x->p == MAP_FAILED)
				x->p = NULL;
			else if (!file)
				x->p[0] = 1;
			continue;
		}
		switch (op) {
		case 0:		/* unmap all */
			munmap(x->p, x->len);
			x->p = NULL;
			break;
		case 1:		/* unmap the tail */
			if (x->len > PG) {
				munmap(x->p + x->len - PG, PG);
				x->len -= PG;
			}
			break;
		case 2:		/* protect a page */
			k = rand_r(&r) % (int)(x->len / PG);
			mprotect(x->p + k * PG, PG, rand_r(&r) % 2 ?
				 PROT_READ : PROT_NONE);
			break;
		case 3: {	/* MAP_FIXED over a page */
			char *q;

			k = rand_r(&r) % (int)(x->len / PG);
			q = mmap(x->p + k * PG, PG, PROT_READ | PROT_EXEC,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			if (q == MAP_FAILED)
				t_die("mmap MAP_FIXED");
			break;
		}
		case 4: {	/* mremap: grow, in place or moved */
			char *q = mremap(x->p, x->len, x->len + PG,
					 MREMAP_MAYMOVE);

			if (q != MAP_FAILED) {
				x->p = q;
				x->len += PG;
			}
			break;
		}
		case 5:		/* mremap: shrink */
			if (x->len > PG &&
			    mremap(x->p, x->len, x->len - PG, 0) != MAP_FAILED)
				x->len -= PG;
			break;
		case 6: {	/* mremap: move onto a reservation of its own */
			char *dst = mmap(NULL, x->len + 2 * PG, PROT_NONE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			char *q;

			if (dst == MAP_FAILED)
				break;
			/* Onto it, never into a hole another thread may have
			 * mapped meanwhile; then its two guard pages go. */
			q = mremap(x->p, x->len, x->len,
				   MREMAP_MAYMOVE | MREMAP_FIXED, dst + PG);
			if (q != MAP_FAILED)
				x->p = q;
			munmap(dst, PG);
			munmap(dst + PG + x->len, PG);
			if (q == MAP_FAILED)
				munmap(dst + PG, x->len);
			break;
		}
		case 8:		/* a page that fork does not copy, or does */
			k = rand_r(&r) % (int)(x->len / PG);
			madvise(x->p + k * PG, PG, rand_r(&r) % 2 ?
				MADV_DONTFORK : MADV_DOFORK);
			break;
		case 9:		/* EINVAL: not page-aligned, no such advice */
			if (munmap(x->p + 1, PG) == 0 ||
			    madvise(x->p, PG, 12345) == 0)
				t_die("a call that must fail did not");
			break;
		default:	/* brk, first thread only */
			/* Never below the break the storm began with: malloc's
			 * memory is under it (nothing mallocs meanwhile). */
			if (who == 0 && rand_r(&r) % 2) {
				if (sbrk((intptr_t)(pages * PG)) != (void *)-1)
					grown += pages * PG;
			} else if (who == 0 && grown) {
				size_t by = pages * PG < grown ? pages * PG :
					    grown;

				if (sbrk(-(intptr_t)by) != (void *)-1)
					grown -= by;
			}
			break;
		}
	}
}

static void *worker(void *arg)
{
	storm((int)(intptr_t)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	char line[16];

	if (argc < 4)
		return 2;
	t_init();
	rounds = atoi(argv[1]);
	seed = (unsigned)atoi(argv[2]);
	exe_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (exe_fd < 0)
		t_die("open /proc/self/exe");
	if (argc > 4) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 2;
	}
	if (argc > 4 && strcmp(argv[4], "lone") == 0)
		storm(0);
	if (pthread_create(&t, NULL, worker, (void *)(intptr_t)1))
		t_die("pthread_create");
	storm(0);
	pthread_join(t, NULL);
	t_dump_maps(argv[3]);
	printf("done\n");
	return 0;
}
