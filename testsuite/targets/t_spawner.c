/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_spawner.c -- keeps creating threads, before, during and after attach.
 *
 * Usage: t_spawner N
 * Prints "ready PID".  A creator thread starts short-lived threads one
 * after another (each maps and unmaps one page and ends) until the main
 * thread reads a line from stdin; then it starts N more, each of which
 * maps one page and keeps it, prints "thread-TID 0xSTART 0xEND", and
 * ends.  Exit status 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "t_common.h"

static atomic_int phase;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int count;

static void *short_lived(void *arg)
{
	char key[32];
	void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		t_die("mmap");
	if (!arg) {
		munmap(p, 4096);
		return NULL;
	}
	snprintf(key, sizeof(key), "thread-%d", (int)gettid());
	pthread_mutex_lock(&out_lock);
	t_report(key, p, (char *)p + 4096);
	pthread_mutex_unlock(&out_lock);
	return NULL;
}

static void *creator(void *arg)
{
	int made = 0;

	(void)arg;
	while (made < count) {
		int keep = atomic_load(&phase);
		pthread_t th;

		if (pthread_create(&th, NULL, short_lived,
				   keep ? (void *)1 : NULL))
			t_die("pthread_create");
		pthread_join(th, NULL);
		made += keep;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t c;
	char line[64];

	if (argc < 2)
		return 2;
	t_init();
	count = atoi(argv[1]);
	if (pthread_create(&c, NULL, creator, NULL))
		t_die("pthread_create");
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (read(0, line, sizeof(line)) <= 0)
		return 4;
	atomic_store(&phase, 1);
	pthread_join(c, NULL);
	fflush(stdout);
	return 0;
}
