/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_busy.c -- a busy multi-threaded target for attach, detach and stop.
 *
 * Usage: t_busy [churn]
 * Prints "ready PID".  Two workers loop until told to stop: one maps,
 * fills, checks, protects and unmaps memory, the other computes without
 * system calls.  With "churn" a third one forks children that exit at
 * once and starts threads that end at once (threads come and go while
 * maptap opens its events on each), and the mapper pauses 200 us after
 * each round: its calls come as fast as a busy server's, not at the
 * 50,000 a second of a tight loop, which in perf mode outrun a maptap
 * that gets less than about half a CPU (a sanitizer build beside a
 * parallel testsuite: records lost, counted, in 2 rounds of 150).
 * The main thread waits in read(2) on stdin (a call in progress when
 * maptap attaches and detaches) for one line, then stops the workers
 * and prints what they found: the output does not depend on how long
 * they ran, so a traced run must print exactly what an untraced one
 * does.  Exit status 3.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "t_common.h"

#define PG 4096UL

static atomic_int stop;
static long map_errors, compute_errors, churn_errors;
static int paced;		/* the mapper's pause a round, us */

static void *mapper(void *arg)
{
	unsigned char n = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		unsigned char *p = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t i;

		if (p == MAP_FAILED) {
			map_errors++;
			continue;
		}
		memset(p, ++n, 4 * PG);
		if (mprotect(p + PG, PG, PROT_READ))
			map_errors++;
		for (i = 0; i < 4 * PG; i += 512)
			if (p[i] != n)
				map_errors++;
		if (munmap(p, 4 * PG))
			map_errors++;
		if (paced)
			usleep(paced);
	}
	return NULL;
}

static void *computer(void *arg)
{
	unsigned long x = 1, y = 1;

	(void)arg;
	while (!atomic_load(&stop)) {
		int i;

		for (i = 0; i < 1000; i++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			y = y * 6364136223846793005UL + 1442695040888963407UL;
		}
		if (x != y)
			compute_errors++;
	}
	return NULL;
}

static void *nothing(void *arg)
{
	return arg;
}

static void *churner(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		pthread_t t;
		int st;
		pid_t c = fork();

		if (c == 0)
			_exit(0);
		if (c < 0 || waitpid(c, &st, 0) != c || st != 0)
			churn_errors++;
		if (pthread_create(&t, NULL, nothing, NULL) ||
		    pthread_join(t, NULL))
			churn_errors++;
		usleep(1000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b, c;
	int churn = argc > 1 && !strcmp(argv[1], "churn");
	char line[64];
	ssize_t n;

	t_init();
	if (churn)
		paced = 200;
	if (pthread_create(&a, NULL, mapper, NULL) ||
	    pthread_create(&b, NULL, computer, NULL) ||
	    (churn && pthread_create(&c, NULL, churner, NULL)))
		t_die("pthread_create");
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	n = read(0, line, sizeof(line));
	if (n < 0)
		printf("read failed: %s\n", strerror(errno));
	else
		printf("read %d bytes\n", (int)n);
	atomic_store(&stop, 1);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	if (churn) {
		pthread_join(c, NULL);
		printf("churn errors %ld\n", churn_errors);
	}
	printf("map errors %ld\ncompute errors %ld\n", map_errors,
	       compute_errors);
	return 3;
}
