/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ex_fork.c -- the target of examples.py's fork case: a forked child
 * that does not exec, and one whose image ends by exec.
 *
 * Usage: ex_fork DIR.  The parent maps 256 KiB of anonymous memory and
 * 512 KiB more marked MADV_DONTFORK (the kernel does not copy it into a
 * child: a child is not a copy of its parent's maps), then forks
 *   - a child that copies /proc/self/maps to DIR/PID.maps and exits;
 *   - a child that does the same and then execs /bin/true;
 * waiting for each, and copies its own maps last.  DIR/roles gets one
 * line per process: "fork PID", "exec PID", "parent PID".
 *
 * The copies use open/read/write and static buffers only, so nothing
 * maps memory or grows the stack between the copy and the exit (or the
 * exec).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static char buf[1 << 16];
static char path[4096];
static const char *dir;

static void copy_maps(const char *role)
{
	int in, out, rf;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d.maps", dir, (int)getpid());
	in = open("/proc/self/maps", O_RDONLY);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0)
		_exit(3);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			_exit(3);
	close(in);
	close(out);
	snprintf(path, sizeof(path), "%s/roles", dir);
	rf = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	n = snprintf(buf, sizeof(buf), "%s %d\n", role, (int)getpid());
	if (rf < 0 || write(rf, buf, (size_t)n) != n)
		_exit(3);
	close(rf);
}

static int child(int do_exec)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		copy_maps(do_exec ? "exec" : "fork");
		if (do_exec)
			execl("/bin/true", "true", (char *)NULL);
		_exit(do_exec ? 4 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	char *keep, *nofork;

	if (argc < 2)
		return 2;
	dir = argv[1];
	keep = mmap(0, 256 * 1024, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	nofork = mmap(0, 512 * 1024, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (keep == MAP_FAILED || nofork == MAP_FAILED ||
	    madvise(nofork, 512 * 1024, MADV_DONTFORK))
		return 3;
	memset(keep, 1, 256 * 1024);
	if (child(0) || child(1))
		return 5;
	copy_maps("parent");
	return 0;
}
