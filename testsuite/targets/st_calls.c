/* SPDX-License-Identifier: GPL-2.0-or-later */
/* st_calls.c -- the target of syscalls_tapset.py: known memory calls
 * between two close(-77) markers, at fixed addresses so the tapsets'
 * argstr and retstr lines can be compared exactly.
 *
 * Usage: st_calls REPORT FILE.  Writes "brk N" (the break before the
 * calls) and "fd N" (the descriptor FILE got: the test's own may be
 * inherited) to REPORT, maps FILE (created, one page) and unlinks it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define BASE 0x200000000UL

static void marker(void)
{
	syscall(SYS_close, -77);
}

/* The process calls: a name, a child that ends with exit(7), an exec
 * that fails. */
static void procs(void)
{
	char *args[] = { "st", "x y", NULL };
	char *env[] = { "A=1", NULL };
	pid_t child;

	prctl(PR_SET_NAME, "st-worker");
	child = fork();
	if (child == 0)
		syscall(SYS_exit, 7);
	waitpid(child, NULL, 0);
	syscall(SYS_execve, "/nonexistent/st_calls", args, env);
}

int main(int argc, char **argv)
{
	unsigned long cur;
	FILE *rep;
	int fd;

	if (argc < 3)
		return 2;
	rep = fopen(argv[1], "w");
	if (!rep)
		return 2;
	cur = syscall(SYS_brk, 0);

	marker();
	syscall(SYS_mmap, BASE, 8192, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1L, 0);
	fd = syscall(SYS_openat, AT_FDCWD, argv[2],
		     O_RDWR | O_CREAT | O_TRUNC, 0640);
	syscall(SYS_openat, AT_FDCWD, "/nonexistent/st_calls", O_RDONLY);
	if (fd < 0 || ftruncate(fd, 4096) < 0)
		return 3;
	syscall(SYS_mmap, BASE + 0x10000, 4096, PROT_READ, MAP_SHARED |
		MAP_FIXED, fd, 0);
	syscall(SYS_mprotect, BASE, 4096, PROT_READ | PROT_EXEC);
	syscall(SYS_mprotect, BASE, 4096, 0x10);
	syscall(SYS_mremap, BASE + 0x10000, 4096, 8192, 0, 0);
	syscall(SYS_munmap, BASE + 1, 4096);
	syscall(SYS_munmap, BASE, 8192);
	syscall(SYS_munmap, BASE + 0x10000, 4096);
	syscall(SYS_brk, cur + 8192);
	syscall(SYS_brk, cur);
	procs();
	marker();
	fprintf(rep, "brk %lu\nfd %d\n", cur, fd);
	fclose(rep);
	close(fd);
	unlink(argv[2]);
	return 0;
}
