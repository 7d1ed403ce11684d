/* SPDX-License-Identifier: GPL-2.0-or-later */
/* build_target.c -- compile a test target at test time (build_target.h). */
#include "build_target.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

int tap_build_target(char *dir_template, const char *src, const char *name,
		     const char *flags, const char *libs, char *out,
		     size_t out_size)
{
	const char *cc = getenv("CC"), *top = getenv("top_srcdir");
	char cmd[4 * PATH_MAX];
	int n;

	if (!top || !mkdtemp(dir_template))
		return -1;
	n = snprintf(out, out_size, "%s/%s", dir_template, name);
	if (n < 0 || (size_t)n >= out_size)
		return -1;
	n = snprintf(cmd, sizeof(cmd),
		     "%s %s -o '%s' '%s/testsuite/targets/%s' %s",
		     cc && *cc ? cc : "cc", flags, out, top, src, libs);
	if (n < 0 || (size_t)n >= sizeof(cmd))
		return -1;
	return system(cmd) == 0 ? 0 : -1;
}
