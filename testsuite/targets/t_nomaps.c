/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_nomaps.c -- an LD_PRELOAD shim for maptap itself (attach.py): its
 * open(2) of /proc/$MT_NOMAPS_PID/maps fails with EACCES, as it does for
 * root on a process of another user namespace's init (a sandbox's pid 1)
 * while perf_event_open(2) on it succeeds.  Without $MT_NOMAPS_PID it
 * changes nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int refused(const char *path)
{
	const char *pid = getenv("MT_NOMAPS_PID");
	char want[64];

	if (!pid)
		return 0;
	snprintf(want, sizeof(want), "/proc/%s/maps", pid);
	return !strcmp(path, want);
}

#define SHIM_OPEN(name)							\
int name(const char *path, int flags, ...)				\
{									\
	static int (*real)(const char *, int, ...);			\
	mode_t mode = 0;						\
	va_list ap;							\
									\
	va_start(ap, flags);						\
	if (flags & (O_CREAT | O_TMPFILE))				\
		mode = va_arg(ap, mode_t);				\
	va_end(ap);							\
	if (refused(path)) {						\
		errno = EACCES;						\
		return -1;						\
	}								\
	if (!real)							\
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, \
							      #name);	\
	return real(path, flags, mode);					\
}

SHIM_OPEN(open)
SHIM_OPEN(open64)
