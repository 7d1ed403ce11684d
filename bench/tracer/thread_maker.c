/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thread_maker.c -- threadrate.sh's target: IDLE threads that only
 * wait, and a main thread that creates and joins threads one after the
 * other.
 *
 * Usage: thread_maker IDLE SECS
 * Starts IDLE threads in pause(), prints "ready PID", waits for a line
 * on stdin (the tracer is attached), then creates and joins threads for
 * SECS seconds and prints "rate N": thread creations per second.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void *idle(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static void *nothing(void *arg)
{
	return arg;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, i;
	double secs = argc > 2 ? atof(argv[2]) : 3, t0;
	char line[16];
	long made = 0;
	pthread_t t;

	for (i = 0; i < n; i++)
		if (pthread_create(&t, NULL, idle, NULL))
			return 1;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	t0 = now();
	while (now() - t0 < secs) {
		if (pthread_create(&t, NULL, nothing, NULL) ||
		    pthread_join(t, NULL))
			return 1;
		made++;
	}
	printf("rate %.0f\n", (double)made / (now() - t0));
	return 0;
}
