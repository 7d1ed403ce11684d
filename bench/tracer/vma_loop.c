/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vma_loop.c -- benchmark target for --verify: a process with many VMAs
 * (V, 60,000 by default) that then makes N pairs of mmap and munmap of
 * one anonymous page (1,000 by default).
 *
 * The VMAs come from one PROT_NONE reservation of V pages in which every
 * other page is made readable with mprotect (each an event, which a
 * check of the whole map per event made quadratic).  The kernel's limit
 * is vm.max_map_count (65,530 by default).
 *
 * Usage: vma_loop [V [N]]   exits 0, 1 on a bad argument, 2 if a call
 * fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long v = argc > 1 ? strtoul(argv[1], NULL, 10) : 60000;
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000, i;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *base;

	if (!v || !n)
		return 1;
	base = mmap(NULL, v * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	for (i = 1; i < v; i += 2)
		if (mprotect(base + i * page, page, PROT_READ)) {
			perror("mprotect");
			return 2;
		}
	for (i = 0; i < n; i++) {
		volatile char *p = mmap(NULL, page, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			return 2;
		}
		p[0] = 1;
		if (munmap((void *)p, page)) {
			perror("munmap");
			return 2;
		}
	}
	return 0;
}
