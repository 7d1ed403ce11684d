/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_vforkwait.c -- a parent that sits in vfork(2) for as long as the test
 * wants: the state in which a tracer's stop request cannot be met.
 *
 * Prints "pid PID", waits for a line on stdin, then vforks.  The child
 * prints "ready PPID" (the parent is in vfork() from then on, asleep
 * uninterruptibly until the child execs) and waits for a second line
 * before it execs this program again as "child", which exits 0.  The
 * parent, once back, maps 7 pages, reports them as "mapped", and exits 0.
 * stdin is read a byte at a time so each process takes only its line.
 *
 * "churn N": prints "pid PID", then vforks N times, each child sleeping
 * 2 ms before its _exit: the parent is asleep uninterruptibly ('D') most
 * of the time, but never for long.
 *
 * "populate THREADS MIB": prints "pid PID", then THREADS threads map
 * MIB MiB with MAP_POPULATE and unmap it, for ever: each waits for the
 * mm's lock in 'D' behind the others' populating, for 0.1 s and more,
 * and is no vfork parent.
 */
#include "t_common.h"

#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

static void read_line(void)
{
	char c;

	while (read(0, &c, 1) == 1 && c != '\n')
		;
}

static size_t populate_bytes;

static void *populate(void *arg)
{
	(void)arg;
	for (;;) {
		void *m = mmap(NULL, populate_bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
			       -1, 0);

		if (m != MAP_FAILED)
			munmap(m, populate_bytes);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char line[64];
	int status, n;
	void *m;
	pid_t c;

	if (argc > 1 && strcmp(argv[1], "child") == 0)
		return 0;
	if (argc > 3 && strcmp(argv[1], "populate") == 0) {
		long i, nthreads = atol(argv[2]);
		pthread_t th;

		populate_bytes = (size_t)atol(argv[3]) << 20;
		n = snprintf(line, sizeof(line), "pid %d\n", (int)getpid());
		if (write(1, line, (size_t)n) != n)
			return 2;
		for (i = 0; i < nthreads; i++)
			if (pthread_create(&th, NULL, populate, NULL))
				return 6;
		for (;;)
			pause();
	}
	if (argc > 2 && strcmp(argv[1], "churn") == 0) {
		long i, rounds = atol(argv[2]);

		n = snprintf(line, sizeof(line), "pid %d\n", (int)getpid());
		if (write(1, line, (size_t)n) != n)
			return 2;
		for (i = 0; i < rounds; i++) {
			c = vfork();
			if (c == 0) {
				struct timespec ts = { 0, 2000000 };

				nanosleep(&ts, NULL);
				_exit(0);
			}
			if (c < 0 || waitpid(c, &status, 0) != c ||
			    status != 0)
				return 4;
		}
		return 0;
	}
	n = snprintf(line, sizeof(line), "pid %d\n", (int)getpid());
	if (write(1, line, (size_t)n) != n)
		return 2;
	read_line();
	c = vfork();
	if (c == 0) {
		/* Only write(2), read(2) and execv(2) in a vfork child. */
		n = snprintf(line, sizeof(line), "ready %d\n", (int)getppid());
		if (write(1, line, (size_t)n) != n)
			_exit(2);
		read_line();
		execl(argv[0], argv[0], "child", (char *)NULL);
		_exit(3);
	}
	if (c < 0 || waitpid(c, &status, 0) != c || status != 0)
		return 4;
	m = mmap(NULL, 7 * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 5;
	t_init();
	t_report("mapped", m, (char *)m + 7 * 4096);
	printf("done\n");
	return 0;
}
