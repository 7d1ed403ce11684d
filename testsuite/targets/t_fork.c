/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_fork.c -- fork, vfork+exec and posix_spawn.
 *
 * Usage: t_fork MODE MAPS_OUT [wait]
 *   fork   fork a child that maps an area and saves its maps to
 *          MAPS_OUT.child; the parent waits, maps an area of its own
 *   vfork  vfork a child that execs "t_fork leaf MAPS_OUT.child"
 *   spawn  the same through posix_spawn(3)
 *   leaf   map an area, save the maps to MAPS_OUT, exit 0
 * The parent prints "child PID" and "parent PID", and saves its maps to
 * MAPS_OUT after the child ended; it exits with the child's status.
 * With "wait" it first prints "ready PID" and waits for a line on stdin.
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "t_common.h"

extern char **environ;

static void map_area(const char *key)
{
	char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		t_die("mmap");
	t_report(key, p, p + 3 * 4096);
}

int main(int argc, char **argv)
{
	char child_maps[4096];
	char *leaf[] = { argv[0], "leaf", child_maps, NULL };
	int status = 0;
	pid_t pid;

	if (argc < 3)
		return 2;
	t_init();
	snprintf(child_maps, sizeof(child_maps), "%s.child", argv[2]);
	if (strcmp(argv[1], "leaf") == 0) {
		map_area("leaf-area");
		t_dump_maps(argv[2]);
		_exit(0);
	}
	if (argc > 3 && strcmp(argv[3], "wait") == 0) {
		char line[16];

		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (read(0, line, sizeof(line)) <= 0)
			return 3;
	}
	printf("parent %d\n", (int)getpid());
	fflush(stdout);
	if (strcmp(argv[1], "fork") == 0) {
		pid = fork();
		if (pid == 0) {
			map_area("child-area");
			t_dump_maps(child_maps);
			_exit(0);
		}
	} else if (strcmp(argv[1], "vfork") == 0) {
		pid = vfork();
		if (pid == 0) {
			execv("/proc/self/exe", leaf);
			_exit(127);
		}
	} else if (strcmp(argv[1], "spawn") == 0) {
		int err = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, leaf,
				      environ);
		if (err)
			return 3;
	} else {
		return 2;
	}
	if (pid < 0)
		t_die("fork");
	if (waitpid(pid, &status, 0) != pid)
		t_die("waitpid");
	printf("child %d\n", (int)pid);
	map_area("parent-area");
	t_dump_maps(argv[2]);
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 100);
}
