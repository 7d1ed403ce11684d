/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_munmaps.c -- N mmap+munmap pairs of one page, then exit 0: a known
 * count of munmap calls for another tool to sample (perfmode.py, "other
 * tools on the same tracepoints").
 *
 *   t_munmaps N
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 1000;

	for (i = 0; i < n; i++) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || munmap(p, 4096) != 0) {
			perror("t_munmaps");
			return 1;
		}
	}
	return 0;
}
