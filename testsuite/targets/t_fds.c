/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_fds.c -- print the file descriptors this process was started with
 * ("fds: 0 1 2"), so a test can compare a traced run with an untraced
 * one: a descriptor maptap opened for itself must never reach the
 * command it launches. */
#include <fcntl.h>
#include <stdio.h>

int main(void)
{
	int fd;

	fputs("fds:", stdout);
	for (fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			printf(" %d", fd);
	putchar('\n');
	return 0;
}
