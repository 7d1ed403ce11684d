/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rusage.c -- run a command and print the CPU time and peak RSS the
 * kernel charged it (wait4(2)'s rusage): "USER_US SYS_US MAXRSS_KB".
 *
 * /usr/bin/time rounds CPU time to 10 ms, the size of what
 * startup.sh measures; the rusage fields are microseconds.  The command's
 * own output goes to /dev/null; its exit status is this program's.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static long us(const struct timeval *tv)
{
	return tv->tv_sec * 1000000L + tv->tv_usec;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	int status, fd;
	pid_t pid;

	if (argc < 2) {
		fputs("usage: rusage COMMAND [ARG...]\n", stderr);
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("rusage: fork");
		return 2;
	}
	if (pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("rusage: wait4");
		return 2;
	}
	printf("%ld %ld %ld\n", us(&ru.ru_utime), us(&ru.ru_stime),
	       ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
