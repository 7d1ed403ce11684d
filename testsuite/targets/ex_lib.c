/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ex_lib.c -- the library ex_libs loads: code, data and bss, so it has
 * every kind of segment. */
int ex_lib_counter = 1;
static char ex_lib_buf[3 * 4096];

int ex_lib_touch(int n)
{
	ex_lib_buf[n % sizeof(ex_lib_buf)]++;
	return ex_lib_counter += n;
}
