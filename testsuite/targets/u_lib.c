/* SPDX-License-Identifier: GPL-2.0-or-later */
/* u_lib.c -- the shared library of testsuite/system/funcs.py: a function,
 * a data object and a signal handler whose addresses the script must
 * resolve to this library. */
#include <signal.h>

int u_lib_data[4] = { 1, 2, 3, 4 };
volatile sig_atomic_t u_lib_hits;

int u_lib_func(int x)
{
	return x * u_lib_data[x & 3];
}

void u_lib_handler(int sig)
{
	u_lib_hits += sig;
}
