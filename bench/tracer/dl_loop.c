/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dl_loop.c -- benchmark target: N rounds of dlopen and dlclose of the
 * shared libraries named on the command line (bench/tracer/floor.sh
 * builds four small ones).  Each dlopen maps a library's segments
 * (mmap, mprotect) and each dlclose unmaps them: the mapping calls of a
 * program that loads plugins.
 *
 * Usage: dl_loop N LIB...   exits 0, 1 on a bad argument, 2 if a
 * library cannot be loaded.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long i, n;
	void *h[16];
	char *end;
	int k, libs = argc - 2;

	if (argc < 3 || libs > 16) {
		fprintf(stderr, "usage: %s COUNT LIB...\n", argv[0]);
		return 1;
	}
	n = strtoul(argv[1], &end, 10);
	if (*argv[1] == '\0' || *end != '\0') {
		fprintf(stderr, "usage: %s COUNT LIB...\n", argv[0]);
		return 1;
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < libs; k++) {
			h[k] = dlopen(argv[2 + k], RTLD_NOW | RTLD_LOCAL);
			if (!h[k]) {
				fprintf(stderr, "dl_loop: %s\n", dlerror());
				return 2;
			}
		}
		for (k = libs - 1; k >= 0; k--)
			dlclose(h[k]);
	}
	return 0;
}
