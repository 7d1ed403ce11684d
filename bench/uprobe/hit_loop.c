/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hit_loop.c -- the target of bench/uprobe/hitcost.sh.
 *   hit_loop call N   bench_fn() N times (the probed function)
 *   hit_loop map N    mprotect() of one page N times: N mapping calls,
 *                     each one seccomp stop and one exit stop of maptap
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

__attribute__((noinline)) long bench_fn(long x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

int main(int argc, char **argv)
{
	long i, n, sum = 0;
	char *p;

	if (argc != 3)
		return 2;
	n = atol(argv[2]);
	if (!strcmp(argv[1], "call")) {
		for (i = 0; i < n; i++)
			sum += bench_fn(i);
	} else {
		p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		for (i = 0; i < n; i++)
			mprotect(p, 4096, i & 1 ? PROT_READ : PROT_NONE);
	}
	printf("%ld\n", sum);
	return 0;
}
