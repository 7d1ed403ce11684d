/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uw_mmap.c -- main -> a -> b -> mmap of 73728 bytes (18 pages, a size
 * nothing else maps), for the backtrace script functions: a probe on that
 * mmap sees this chain.
 */
#include <sys/mman.h>

#define KEEP __attribute__((noinline, noclone))

volatile int u_sink;

KEEP int b(int x)
{
	void *p = mmap(0, 73728, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return x + (p == MAP_FAILED) + u_sink;
}

KEEP int a(int x)
{
	return b(x + 1) * 3;
}

int main(void)
{
	return a(u_sink) == 12345;
}
