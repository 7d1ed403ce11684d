/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scale_lib.c -- the library bench/symbols/scale maps a thousand copies
 * of: one function and a .bss larger than a page, so that most of it is
 * the anonymous VMA after the data segment (the module layer's bss
 * lookup, not a file-backed piece). */
char scale_bss[1 << 16];

int scale_func(int x)
{
	return x + scale_bss[x & 0xffff];
}
