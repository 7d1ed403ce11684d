/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_forklive.c -- a process that keeps forking children that live on.
 *
 * Usage: t_forklive [SECONDS]
 * Prints "ready PID", then forks child after child until it reads a line
 * (or end of file) on stdin, or SECONDS (default 60) have passed.  A
 * child exits at once (status 0), or maps, protects, remaps and unmaps
 * memory a few times and exits (status 3), or lives 50 to 450 ms doing
 * that every 10 ms (status 7).  Between two forks the parent maps a bit
 * and waits 2 to 5 ms, reaping the children that have ended: some twenty
 * children live at a time.  So while maptap -x opens its perf event
 * groups on the parent, the parent forks children that inherit the
 * events opened so far, and the kernel swaps the contexts of a parent
 * and a child that are clones at a switch from one to the other
 * (perf_event_context_sched_out()): a group member opened after that
 * is refused (EINVAL, ENODEV).
 *
 * At the end the parent reaps every child and prints "bad children N"
 * (a child that ended with another status than its kind's): the output
 * does not depend on how many children it made.  A child whose parent is
 * gone ends too (PR_SET_PDEATHSIG, and a check of getppid()).  Exit
 * status 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "t_common.h"

#define PG 4096UL
#define MAX_KIDS 4096

static pid_t kid_pid[MAX_KIDS];
static int kid_want[MAX_KIDS];
static long bad;

static unsigned int rnd(unsigned int *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 16) & 0x7fff;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* N rounds of mmap, a write, mprotect, maybe mremap, munmap. */
static void churn(unsigned int *s, int n)
{
	while (n-- > 0) {
		size_t sz = (1 + rnd(s) % 16) * PG;
		char *p = mmap(NULL, sz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *q;

		if (p == MAP_FAILED)
			continue;
		p[0] = 1;
		if (sz > 2 * PG)
			mprotect(p + PG, PG, PROT_READ);
		if (rnd(s) % 2) {
			q = mremap(p, sz, 2 * sz, MREMAP_MAYMOVE);
			if (q != MAP_FAILED) {
				p = q;
				sz *= 2;
			}
		}
		munmap(p, sz);
	}
}

static void child(int kind, pid_t parent)
{
	unsigned int s = (unsigned int)getpid();
	long long end;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(9);
	if (kind == 0)
		_exit(0);
	if (kind == 1) {
		churn(&s, 5);
		_exit(3);
	}
	end = now_ms() + 50 + rnd(&s) % 400;
	while (now_ms() < end && getppid() == parent) {
		churn(&s, 3);
		usleep(10000);
	}
	_exit(7);
}

static void note(pid_t c, int st)
{
	int i;

	for (i = 0; i < MAX_KIDS; i++) {
		if (kid_pid[i] != c)
			continue;
		kid_pid[i] = 0;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != kid_want[i])
			bad++;
		return;
	}
	bad++;		/* not one of ours */
}

static void reap(int block)
{
	pid_t c;
	int st;

	while ((c = waitpid(-1, &st, block ? 0 : WNOHANG)) > 0)
		note(c, st);
}

static int slot(void)
{
	int i;

	for (i = 0; i < MAX_KIDS; i++)
		if (!kid_pid[i])
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	static const int want[] = { 0, 3, 7 };
	long long end = now_ms() + 1000LL * (argc > 1 ? atoi(argv[1]) : 60);
	pid_t parent = getpid();
	unsigned int s = (unsigned int)parent;
	struct pollfd in = { .fd = 0, .events = POLLIN };

	t_init();
	printf("ready %d\n", (int)parent);
	fflush(stdout);
	while (now_ms() < end) {
		int kind = rnd(&s) % 3, i = slot();
		pid_t c;

		if (i < 0) {
			reap(1);
			continue;
		}
		c = fork();
		if (c < 0 && errno != EAGAIN)
			t_die("fork");
		if (c == 0)
			child(kind, parent);
		if (c > 0) {
			kid_pid[i] = c;
			kid_want[i] = want[kind];
		}
		churn(&s, 2);
		/* The pause between two forks; a line or EOF ends it all. */
		if (poll(&in, 1, 2 + rnd(&s) % 4) > 0)
			break;
		reap(0);
	}
	reap(1);
	printf("bad children %ld\n", bad);
	return 0;
}
