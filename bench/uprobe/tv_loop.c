/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tv_loop.c -- the target of bench/uprobe/tvarcost.sh.
 *   tv_loop N   tv_fn(i, &s, i * 2) N times: a function with an int, a
 *               pointer to a struct and a long to read as $vars
 */
#include <stdio.h>
#include <stdlib.h>

struct tv_s {
	long x, y;
};

__attribute__((noinline)) long tv_fn(int a, struct tv_s *p, long c)
{
	__asm__ volatile("" ::: "memory");
	return a + p->x + c;
}

int main(int argc, char **argv)
{
	struct tv_s s = { 5, 6 };
	long i, n, sum = 0;

	if (argc != 2)
		return 2;
	n = atol(argv[1]);
	for (i = 0; i < n; i++)
		sum += tv_fn((int)i, &s, i * 2);
	printf("%ld\n", sum);
	return 0;
}
