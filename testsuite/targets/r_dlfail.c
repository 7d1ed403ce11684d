/* SPDX-License-Identifier: GPL-2.0-or-later */
/* r_dlfail.c -- report.py's failed dlopen: dlopen(argv[1], RTLD_NOW) of
 * a library with an undefined symbol must fail; prints "failed 1". */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h;

	if (argc != 2)
		return 2;
	h = dlopen(argv[1], RTLD_NOW);
	printf("failed %d\n", h == NULL);
	return h != NULL;
}
