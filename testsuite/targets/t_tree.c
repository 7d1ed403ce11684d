/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_tree.c -- trees of threads, one after another, until killed.
 *
 * Usage: t_tree
 * Prints "ready PID".  Every 3 ms the main thread starts a tree: a
 * thread that maps two pages, makes one of them PROT_NONE, starts two
 * children that do the same one level down (4 levels: 31 threads a
 * tree), joins them and unmaps its pages.  Never forks.  Runs until a
 * signal ends it: a kill lands with threads in every kind of stop
 * (clone events, mapping calls) -- lifecycle.py's "killed while cloning".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/mman.h>

#include "t_common.h"

static void *node(void *arg)
{
	long depth = (long)arg;
	size_t len = 8192 * (size_t)(depth + 1);
	pthread_t c[2];
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (p == MAP_FAILED)
		t_die("mmap");
	mprotect(p, 4096, PROT_NONE);
	for (i = 0; depth > 0 && i < 2; i++)
		if (pthread_create(&c[i], NULL, node, (void *)(depth - 1)))
			t_die("pthread_create");
	for (i = 0; depth > 0 && i < 2; i++)
		pthread_join(c[i], NULL);
	munmap(p, len);
	return NULL;
}

int main(void)
{
	t_init();
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;) {
		pthread_t t;

		if (pthread_create(&t, NULL, node, (void *)4L) == 0)
			pthread_detach(t);
		usleep(3000);
	}
}
