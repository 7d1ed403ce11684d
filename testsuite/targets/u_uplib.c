/* SPDX-License-Identifier: GPL-2.0-or-later */
/* u_uplib.c -- the library u_calls dlopens (uprobes.py). */
__attribute__((noinline)) long u_libfn(long x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}
