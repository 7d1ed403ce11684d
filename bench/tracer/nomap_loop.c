/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nomap_loop.c -- benchmark target: N system calls that never change the
 * address space (getppid), 2,000,000 by default.
 *
 * Under `maptap -c` the seccomp filter allows these calls without a stop,
 * so the tracer should cost nothing per call here; under a tracer that
 * stops on every call (attach mode, plain strace) it costs two stops each.
 * getppid is called through syscall(2) so that no libc can answer it from
 * a cache.
 *
 * Usage: nomap_loop [N]   exits 0, or 1 on a bad argument.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long i, n = 2000000;
	char *end;
	long sum = 0;

	if (argc > 1) {
		n = strtoul(argv[1], &end, 10);
		if (*argv[1] == '\0' || *end != '\0') {
			fprintf(stderr, "usage: %s [COUNT]\n", argv[0]);
			return 1;
		}
	}
	for (i = 0; i < n; i++)
		sum += syscall(SYS_getppid);
	/* Use the result so the loop cannot be dropped. */
	return sum == -1 ? 2 : 0;
}
