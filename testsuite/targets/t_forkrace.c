/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_forkrace.c -- fork children while sibling threads change mappings.
 *
 * Usage: t_forkrace NFORKS MAPS_FILE [wait]
 * Two sibling threads change pages of their own, over and over, while
 * the main thread forks NFORKS children one after the other: munmap
 * and a MAP_FIXED mmap of one page, mprotect of another there and back,
 * MADV_DONTFORK and MADV_DOFORK of a third, which the other thread maps
 * anew (MAP_FIXED, which ends the mark), an mremap of a fourth
 * (read-only, apart) into the page after it and back.  Each child
 * writes its /proc/self/maps to MAPS_FILE.PID and exits at once (before
 * a tracer that reads late can look at it); at the end the parent
 * writes its own to MAPS_FILE.  Each log replayed must give its
 * process's file.  With "wait", once its threads are made, it prints
 * "ready PID" and waits for a line on stdin before any of them begins
 * (an attach).
 *
 * A child has the mm as dup_mmap() (kernel/fork.c) copied it, under the
 * mm's write lock; its FORK record and task_newtask come later, at the
 * end of copy_process().  The parent holds some 200 VMAs, so that each
 * copy takes long enough for the siblings to queue on the lock and run
 * as soon as it is released: their calls land between the copy and the
 * fork's records, or take the lock before the copy and end after them,
 * in several children of every hundred.  A sibling sleeps between its
 * rounds so that the records do not outrun the tracer (a lost record is
 * a full read, which would hide the order).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_common.h"

#define PG 4096UL
#define NSIB 2
#define NBALLAST 100

static atomic_int go, stop;
static char *region[NSIB];

static void *sibling(void *arg)
{
	int me = (int)(intptr_t)arg;
	char *r = region[me], *o = region[(me + 1) % NSIB];

	while (!atomic_load(&go))
		usleep(1000);
	while (!atomic_load(&stop)) {
		munmap(r + PG, PG);
		mmap(r + PG, PG, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		mprotect(r, PG, PROT_READ);
		mprotect(r, PG, PROT_READ | PROT_WRITE);
		madvise(r + 3 * PG, PG, MADV_DONTFORK);
		madvise(r + 3 * PG, PG, MADV_DOFORK);
		/* a new mapping over the other thread's marked page:
		 * not marked, whichever madvise came last before it */
		mmap(o + 3 * PG, PG, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		/* the fifth page grows into the hole and back, in place:
		 * known only at the exit */
		mremap(r + 4 * PG, PG, 2 * PG, 0);
		mremap(r + 4 * PG, 2 * PG, PG, 0);
		usleep(50);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[NSIB];
	char f[512], *b;
	int i, n;

	if (argc < 3)
		return 2;
	n = atoi(argv[1]);
	t_init();
	/* ballast: every other page read-only, one VMA each */
	b = mmap(NULL, 2 * NBALLAST * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED)
		t_die("mmap ballast");
	for (i = 0; i < NBALLAST; i++)
		if (mprotect(b + 2 * i * PG, PG, PROT_READ))
			t_die("mprotect ballast");
	for (i = 0; i < NSIB; i++) {
		/* 5 pages and a hole after them, so that the regions of
		 * the two threads never merge; the fifth read-only, so
		 * that it stays a VMA of its own when it grows */
		region[i] = mmap(NULL, 6 * PG, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (region[i] == MAP_FAILED || munmap(region[i] + 5 * PG, PG) ||
		    mprotect(region[i] + 4 * PG, PG, PROT_READ))
			t_die("mmap");
	}
	for (i = 0; i < NSIB; i++)
		if (pthread_create(&th[i], NULL, sibling, (void *)(intptr_t)i))
			t_die("pthread_create");
	if (argc > 3 && strcmp(argv[3], "wait") == 0) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(f, sizeof(f), stdin))
			t_die("stdin");
	}
	atomic_store(&go, 1);
	for (i = 0; i < n; i++) {
		pid_t k = fork();

		if (k < 0)
			t_die("fork");
		if (k == 0) {
			snprintf(f, sizeof(f), "%s.%d", argv[2],
				 (int)getpid());
			t_dump_maps(f);
			_exit(0);
		}
		if (waitpid(k, NULL, 0) != k)
			t_die("waitpid");
	}
	atomic_store(&stop, 1);
	for (i = 0; i < NSIB; i++)
		pthread_join(th[i], NULL);
	t_dump_maps(argv[2]);
	return 0;
}
