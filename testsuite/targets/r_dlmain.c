/* SPDX-License-Identifier: GPL-2.0-or-later */
/* r_dlmain.c -- main of report.py's dlopen case: linked with
 * libloader.so, it asks load_plugin() to dlopen argv[1] (a path), calls
 * into it, and asks unload_plugin() to dlclose it.
 */
#include <stdio.h>

void *load_plugin(const char *path);
int unload_plugin(void *h);

int main(int argc, char **argv)
{
	void *h;

	if (argc != 2)
		return 2;
	h = load_plugin(argv[1]);
	if (!h)
		return 1;
	return unload_plugin(h) != 0;
}
