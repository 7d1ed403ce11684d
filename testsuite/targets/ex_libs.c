/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ex_libs.c -- the target of examples.py's library timeline and
 * module-bytes cases: dlopen a library, report where it was loaded,
 * dlclose it.
 *
 * Usage: ex_libs LIB REPORT.  Writes "bias 0xL_ADDR" (the library's load
 * bias, from its link_map) to REPORT.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	struct link_map *lm;
	int (*touch)(int);
	FILE *rep;
	void *h;

	if (argc < 3)
		return 2;
	h = dlopen(argv[1], RTLD_NOW);
	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm))
		return 3;
	touch = (int (*)(int))dlsym(h, "ex_lib_touch");
	if (!touch || touch(1) != 2)
		return 3;
	rep = fopen(argv[2], "w");
	if (!rep)
		return 3;
	fprintf(rep, "bias 0x%lx 0x0\n", (unsigned long)lm->l_addr);
	fclose(rep);
	return dlclose(h) ? 3 : 0;
}
