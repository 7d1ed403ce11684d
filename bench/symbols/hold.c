/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hold.c -- benchmark target: dlopen the library named by argv[1] (if
 * any), say "ready", and wait for a line on stdin, so that its mappings
 * stay put while the symbolizers are measured. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char line[16];

	if (argc > 1 && !dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) {
		fprintf(stderr, "hold: %s\n", dlerror());
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	return fgets(line, sizeof(line), stdin) ? 0 : 0;
}
