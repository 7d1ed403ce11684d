/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uw_lib.c -- a shared library whose inner function is static, so that
 * once the library is stripped only separate debuginfo names it.
 */
#include <signal.h>

#define KEEP __attribute__((noinline, noclone))

volatile int u_lib_sink;

static KEEP int u_lib_inner(int x)
{
	raise(SIGSTOP);
	return x + u_lib_sink + 1;
}

int u_lib_entry(int x)
{
	return u_lib_inner(x + 1) * 3;
}
