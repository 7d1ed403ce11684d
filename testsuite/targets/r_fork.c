/* SPDX-License-Identifier: GPL-2.0-or-later */
/* r_fork.c -- a fork child's report (report.py): the parent maps 4 MiB
 * in parent_map() and forks; the child maps 5 MiB in child_map() and
 * exits.  Each prints the bytes of its own range as "KEY N" ("parent",
 * "child") and the child's pid ("child_pid").
 */
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "t_common.h"
#include "r_maps.h"

#define KEEP __attribute__((noinline, noclone))
#define MIB (1024 * 1024)

KEEP uint64_t parent_map(void)
{
	void *p = mmap(NULL, 4 * MIB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		t_die("mmap parent");
	return r_mapped(p, 4 * MIB);
}

KEEP uint64_t child_map(void)
{
	void *p = mmap(NULL, 5 * MIB, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		t_die("mmap child");
	return r_mapped(p, 5 * MIB);
}

int main(void)
{
	uint64_t got;
	pid_t pid;
	int st;

	t_init();
	got = parent_map();
	printf("parent %llu\n", (unsigned long long)got);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		t_die("fork");
	if (pid == 0) {
		got = child_map();
		printf("child %llu\n", (unsigned long long)got);
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || st != 0)
		return 1;
	printf("child_pid %d\n", (int)pid);
	return 0;
}
