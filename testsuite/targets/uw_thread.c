/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uw_thread.c -- the chain of uw_chain.c in a second thread: the stop is
 * that thread's (tid != pid), and its stack ends in the C library's
 * thread start code (start_thread, clone3), not in _start.  With any
 * argument, a first thread starts and exits before that one: the
 * tracer sees a thread exit before the stop.
 */
#include <pthread.h>
#include <signal.h>

#define KEEP __attribute__((noinline, noclone))

volatile int u_sink;

KEEP int b(int x)
{
	raise(SIGSTOP);
	return x + u_sink + 1;
}

KEEP int a(int x)
{
	return b(x + 1) * 3;
}

KEEP static void *u_thread_fn(void *arg)
{
	u_sink += a(u_sink);
	return arg;
}

static void *u_nothing(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	(void)argv;
	if (argc > 1 && (pthread_create(&t, NULL, u_nothing, NULL) != 0 ||
			 pthread_join(t, NULL) != 0))
		return 2;
	if (pthread_create(&t, NULL, u_thread_fn, NULL) != 0)
		return 2;
	pthread_join(t, NULL);
	return 0;
}
