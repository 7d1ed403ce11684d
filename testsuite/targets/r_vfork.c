/* SPDX-License-Identifier: GPL-2.0-or-later */
/* r_vfork.c -- a vfork child's maps are its parent's (report.py).
 * "exit": the child maps 4 MiB in vfork_map() and _exits; "exec": it
 * maps 4 MiB, then execs ARGV[2] (no arguments).  Either way the 4 MiB
 * stay in the parent's address space, which the parent sees as
 * "total N" at its end ("peak N" is the same moment: it maps nothing
 * after) and "child N" (the child's range, seen by the parent).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "t_common.h"
#include "r_maps.h"

#define KEEP __attribute__((noinline, noclone))
#define MIB (1024 * 1024)

static void *child_range;

/* Runs in the vfork child, on the parent's memory: only mmap and a
 * store, as vfork(2) allows. */
KEEP void vfork_map(void)
{
	child_range = mmap(NULL, 4 * MIB, PROT_READ,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

int main(int argc, char **argv)
{
	bool exec = argc > 2 && strcmp(argv[1], "exec") == 0;
	uint64_t child, total;
	pid_t pid;
	int st;

	t_init();
	pid = vfork();
	if (pid < 0)
		t_die("vfork");
	if (pid == 0) {
		vfork_map();
		if (exec)
			execl(argv[2], argv[2], (char *)NULL);
		_exit(child_range == MAP_FAILED ? 1 : 0);
	}
	if (waitpid(pid, &st, 0) != pid || st != 0 ||
	    child_range == MAP_FAILED)
		return 1;
	child = r_mapped(child_range, 4 * MIB);
	total = r_total();
	printf("child %llu\ntotal %llu\nchild_pid %d\n",
	       (unsigned long long)child, (unsigned long long)total,
	       (int)pid);
	return 0;
}
