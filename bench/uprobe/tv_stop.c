/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tv_stop.c -- the target of bench/uprobe/bench_tvar.c: tv_fn(a, p, c)
 * stops itself with SIGSTOP, so its caller finds the thread inside
 * tv_fn's frame with its three variables stored (-O0). */
#include <signal.h>
#include <stdio.h>

struct tv_s {
	long x, y;
};

__attribute__((noinline)) long tv_fn(int a, struct tv_s *p, long c)
{
	raise(SIGSTOP);
	return a + p->x + c;	/* TV_STOP_AFTER */
}

int main(void)
{
	struct tv_s s = { 5, 6 };

	printf("%ld\n", tv_fn(3, &s, 7));
	return 0;
}
