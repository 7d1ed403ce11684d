/* SPDX-License-Identifier: GPL-2.0-or-later */
/* map_loop.c -- benchmark target: N pairs of mmap and munmap of one
 * anonymous private page, 200,000 by default.
 *
 * Every call changes the address space, so every call is one the tracer
 * must catch: this measures the whole per-call cost (stops, the range
 * refresh, the diff and the event).  The page is touched so the mapping
 * is real, as it is in programs that map memory to use it.
 *
 * Usage: map_loop [N]   exits 0, 1 on a bad argument, 2 if a call fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long i, n = 200000;
	long page = sysconf(_SC_PAGESIZE);
	char *end;

	if (argc > 1) {
		n = strtoul(argv[1], &end, 10);
		if (*argv[1] == '\0' || *end != '\0') {
			fprintf(stderr, "usage: %s [COUNT]\n", argv[0]);
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		volatile char *p = mmap(NULL, (size_t)page,
					PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			return 2;
		}
		p[0] = 1;
		if (munmap((void *)p, (size_t)page) != 0) {
			perror("munmap");
			return 2;
		}
	}
	return 0;
}
