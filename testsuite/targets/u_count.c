/* SPDX-License-Identifier: GPL-2.0-or-later */
/* u_count.c -- an LD_PRELOAD counter of malloc(3) calls (uprobes.py):
 * every call through the PLT, which is what interposition sees; the
 * count goes to the file $U_COUNT_OUT at exit. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);

static long calls;

void *malloc(size_t size)
{
	calls++;
	return __libc_malloc(size);
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("U_COUNT_OUT");
	char buf[32];
	int fd, n;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%ld\n", calls);
	if (write(fd, buf, (size_t)n) != n)
		n = -1;
	close(fd);
}
