/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_lib.c -- a small shared library for the dlopen and MAP_FIXED tests:
 * some text, some data, some bss, so that it has every kind of segment. */
int t_lib_counter = 7;
static char t_lib_bss[3 * 4096];

int t_lib_work(int n)
{
	int i, sum = t_lib_counter;

	for (i = 0; i < n; i++) {
		t_lib_bss[(i * 131) % sizeof(t_lib_bss)] += (char)i;
		sum += t_lib_bss[(i * 17) % sizeof(t_lib_bss)];
	}
	return sum;
}
