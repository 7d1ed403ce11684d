/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* perf_close.c -- closing perf event descriptors without waiting for
 * the kernel's tracepoint teardown (perf_close.h says why). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf_close.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* In the grandchild: close every descriptor but the SORTED[0..N) ones
 * and the read end of the pipe RFD, wait until every other process has
 * dropped its copies (EOF on RFD: the write ends are closed after the
 * perf descriptors), then close those, holding the last references.
 * Async-signal-safe calls only: the caller may have threads. */
static _Noreturn void closer(const int *sorted, size_t n, int rfd)
{
	unsigned int from = 0;
	char c;
	size_t i;

	for (i = 0; i <= n; i++) {
		unsigned int to = i < n ? (unsigned int)sorted[i] : ~0U;

		if (to > from) {
			if ((unsigned int)rfd >= from &&
			    (unsigned int)rfd < to) {
				if ((unsigned int)rfd > from)
					close_range(from, (unsigned int)rfd - 1,
						    0);
				from = (unsigned int)rfd + 1;
			}
			if (to > from)
				close_range(from, to - 1, 0);
		}
		if (i < n)
			from = to + 1;
	}
	if (chdir("/") != 0) {
		/* keep the caller's directory busy a little longer */
	}
	while (read(rfd, &c, 1) < 0 && errno == EINTR)
		;
	for (i = 0; i < n; i++)
		close(sorted[i]);
	_exit(0);
}

static void close_list(const int *fds, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

int mt_fds_push(int **fds, size_t *n, size_t *cap, size_t first, int fd)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : first;
		int *v = realloc(*fds, c * sizeof(*v));

		if (!v)
			return -ENOMEM;
		*fds = v;
		*cap = c;
	}
	(*fds)[(*n)++] = fd;
	return 0;
}

void mt_perf_close_all(const int *fds, size_t n)
{
	int *sorted = NULL, p[2] = { -1, -1 };
	pid_t child = -1;
	size_t i;

	for (i = 0; i < n; i++)
		ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
	if (n)
		sorted = malloc(n * sizeof(*sorted));
	if (sorted && pipe2(p, O_CLOEXEC) == 0) {
		memcpy(sorted, fds, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), cmp_int);
		child = fork();
		if (child == 0) {
			/* The grandchild, reparented to init when this child
			 * exits, drops the last references; if it cannot be
			 * made, this child does, and the caller waits. */
			pid_t g = fork();

			if (g == 0) {
				close(p[1]);
				closer(sorted, n, p[0]);
			}
			close(p[0]);
			close_list(sorted, n);
			close(p[1]);
			_exit(0);
		}
		close(p[0]);
	}
	close_list(fds, n);
	if (p[1] >= 0)
		close(p[1]);
	if (child > 0)
		while (waitpid(child, NULL, __WALL) < 0 && errno == EINTR)
			;
	free(sorted);
}
