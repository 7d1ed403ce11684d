/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_untraced.c -- a CLONE_VM|CLONE_UNTRACED child that maps memory, as
 * LeakSanitizer's StopTheWorld tracer thread does.
 *
 * Usage: t_untraced
 * The child maps 3 pages (in the parent's mm) and exits 0, or with the
 * errno of the failed mmap.  The parent waits for it, prints
 * "child-area 0xSTART 0xEND", and exits with the child's status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "t_common.h"

static char *area;

static int child(void *arg)
{
	char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)arg;
	if (p == MAP_FAILED)
		return errno;
	area = p;
	return 0;
}

int main(void)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	int status;
	pid_t pid;

	t_init();
	pid = clone(child, stack + sizeof(stack),
		    CLONE_VM | CLONE_UNTRACED | SIGCHLD, NULL);
	if (pid < 0)
		t_die("clone");
	if (waitpid(pid, &status, 0) != pid)
		t_die("waitpid");
	if (area)
		t_report("child-area", area, area + 3 * 4096);
	/* One more mapping call, so --verify compares after the child's. */
	if (mprotect(stack, 4096, PROT_READ | PROT_WRITE) && errno != EINVAL)
		t_die("mprotect");
	munmap(mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
	       4096);
	fflush(stdout);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}
