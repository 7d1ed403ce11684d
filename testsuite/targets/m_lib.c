/* SPDX-License-Identifier: GPL-2.0-or-later */
/* m_lib.c -- a shared library for the module tests: one function, one
 * initialized variable, one zero-initialized array (.bss). */
int m_lib_data = 3;
char m_lib_bss[256];

int m_lib_func(int x)
{
	return x * m_lib_data + m_lib_bss[x & 255];
}
