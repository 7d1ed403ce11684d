/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_lsan.c -- a leak for LeakSanitizer to find, with threads about.
 *
 * Built with -fsanitize=address.  Four threads wait in read(2) on a pipe
 * nobody writes to; the main thread drops the only pointer to a block of
 * 1234 bytes and exits 3.  At exit LeakSanitizer stops the world: a
 * helper thread (clone with CLONE_UNTRACED) ptrace-attaches to every
 * other thread, reads their registers and stacks, and detaches; then it
 * reports the leak and the exit status becomes LeakSanitizer's.
 */
#include <pthread.h>

#include "t_common.h"

static int pipefd[2];
void *volatile t_leak;

static void *waiter(void *arg)
{
	char c;

	(void)arg;
	return (void *)(long)read(pipefd[0], &c, 1);
}

int main(void)
{
	pthread_t th;
	int i;

	if (pipe(pipefd))
		return 2;
	for (i = 0; i < 4; i++)
		if (pthread_create(&th, NULL, waiter, NULL))
			return 2;
	t_leak = malloc(1234);
	t_leak = NULL;
	exit(3);
}
