/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_clonevm.c -- children that share their parent's mm, and a thread.
 *
 * Usage: t_clonevm MODE
 *   vfork-exec  vfork(), the child execs this program ("execd"), which
 *               maps one page and exits 0
 *   vfork-exit  vfork(), the child _exit(0)s at once
 *   clone-vm    clone(CLONE_VM|SIGCHLD): a process of its own on the
 *               parent's mm; it maps one page and _exits
 *   thread      pthread_create: a thread that maps one page
 *   execd       (the vfork-exec child after its exec)
 *
 * Prints "child PID" for the new task and "area 0xSTART 0xEND" for the
 * page the child (or thread) mapped, "parent PID" for the caller.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void *map_page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void *area;

static int vm_child(void *arg)
{
	(void)arg;
	area = map_page();
	/* No stdio here: the parent's buffers are shared.  The parent
	 * prints AREA once the child is gone. */
	syscall(SYS_exit, area ? 0 : 1);
	return 0;
}

static void *thread_main(void *arg)
{
	(void)arg;
	area = map_page();
	return NULL;
}

static int reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, __WALL) != pid)
		return 2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 3;
}

static void print_area(void)
{
	printf("area 0x%lx 0x%lx\n", (unsigned long)area,
	       (unsigned long)area + 4096);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	pid_t pid;

	if (!strcmp(mode, "execd")) {
		area = map_page();
		print_area();
		return area ? 0 : 1;
	}
	printf("parent %d\n", (int)getpid());
	fflush(stdout);
	if (!strcmp(mode, "vfork-exec") || !strcmp(mode, "vfork-exit")) {
		pid = vfork();
		if (pid == 0) {
			if (!strcmp(mode, "vfork-exec"))
				execl("/proc/self/exe", argv[0], "execd",
				      (char *)NULL);
			_exit(strcmp(mode, "vfork-exit") ? 127 : 0);
		}
	} else if (!strcmp(mode, "clone-vm")) {
		static char stack[65536] __attribute__((aligned(16)));

		pid = clone(vm_child, stack + sizeof(stack),
			    CLONE_VM | SIGCHLD, NULL);
	} else if (!strcmp(mode, "thread")) {
		pthread_t t;

		if (pthread_create(&t, NULL, thread_main, NULL) != 0)
			return 4;
		pthread_join(t, NULL);
		print_area();
		return area ? 0 : 1;
	} else {
		return 5;
	}
	if (pid < 0)
		return 6;
	printf("child %d\n", (int)pid);
	if (reap(pid) != 0)
		return 7;
	if (!strcmp(mode, "clone-vm")) {
		print_area();
		munmap(area, 4096);
	}
	return 0;
}
