/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_common.h -- helpers shared by the system tests' target programs.
 *
 * A target reports what it did as "KEY 0xSTART 0xEND" lines on stdout so
 * the test can check exact ranges, and copies /proc/self/maps to a file
 * just before it exits so the test can compare the replayed log with the
 * kernel's final word.  Neither may change the address space itself:
 * stdout gets a static buffer (no malloc), the copy uses only
 * open/read/write.
 */
#ifndef T_COMMON_H
#define T_COMMON_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char t_outbuf[1 << 16];

static inline void t_init(void)
{
	setvbuf(stdout, t_outbuf, _IOFBF, sizeof(t_outbuf));
}

static inline void t_report(const char *key, const void *lo, const void *hi)
{
	printf("%s 0x%llx 0x%llx\n", key, (unsigned long long)(uintptr_t)lo,
	       (unsigned long long)(uintptr_t)hi);
}

/* Copy /proc/self/maps to PATH (nothing when PATH is NULL). */
static inline void t_dump_maps(const char *path)
{
	static char buf[1 << 16];
	ssize_t n;
	int in, out;

	fflush(stdout);
	if (!path)
		return;
	in = open("/proc/self/maps", O_RDONLY);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0)
		_exit(120);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			_exit(121);
	close(in);
	close(out);
}

/* The state letter of task PID (a process or any thread: its
 * /proc/PID/stat, proc(5); comm may hold ')' so the last one ends it),
 * or 0 when it cannot be read. */
static inline char t_task_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static inline void t_die(const char *what)
{
	perror(what);
	fflush(stdout);
	_exit(122);
}

#endif
