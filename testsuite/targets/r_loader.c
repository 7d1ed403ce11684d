/* SPDX-License-Identifier: GPL-2.0-or-later */
/* r_loader.c -- libloader.so of report.py: a library function that
 * dlopens, and one that dlcloses, so the report must name them (and
 * their caller) as the ones that loaded and unloaded the plugin.
 */
#include <dlfcn.h>
#include <stdio.h>

#define KEEP __attribute__((noinline, noclone))

KEEP void *load_plugin(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		fprintf(stderr, "%s\n", dlerror());
	return h;
}

KEEP int unload_plugin(void *h)
{
	return dlclose(h);
}
