/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_eintr.c -- blocking calls that a ptrace interrupt would fail with
 * EINTR (signal(7): epoll_wait() and sigtimedwait() are not restarted
 * after a stop), made with SIGINT, SIGTERM and SIGHUP blocked.
 *
 * Usage: t_eintr
 * Prints "ready PID", then waits in epoll_wait() twice (1.5 s each, on
 * an empty epoll set) and in sigtimedwait() (1.5 s, for SIGUSR2), and
 * prints each result ("epoll 0", "sigtimedwait EAGAIN"; any EINTR is a
 * fault of the tracer).  Exits 0.  attach.py sends maptap a SIGTERM
 * during the first wait: maptap passes it on, the command blocks it, and
 * nothing else may reach the command.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

#include "t_common.h"

int main(void)
{
	struct timespec ts = { 1, 500000000 };
	struct epoll_event ev;
	sigset_t block, want;
	int ep, i, r;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, NULL);
	ep = epoll_create1(0);
	if (ep < 0)
		t_die("epoll_create1");
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (i = 0; i < 2; i++) {
		r = epoll_wait(ep, &ev, 1, 1500);
		printf("epoll %s\n", r < 0 ? strerror(errno) : "0");
		fflush(stdout);
	}
	sigemptyset(&want);
	sigaddset(&want, SIGUSR2);
	r = sigtimedwait(&want, NULL, &ts);
	printf("sigtimedwait %s\n", r < 0 && errno == EAGAIN ? "EAGAIN" :
	       r < 0 ? strerror(errno) : "signal");
	return 0;
}
