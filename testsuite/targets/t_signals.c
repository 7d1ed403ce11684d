/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_signals.c -- count the SIGUSR1s it receives and check who sent them.
 *
 * Usage: t_signals N SENDER_PID
 * Prints "ready PID", then for each SIGUSR1 "got K CODE FROM" where CODE
 * is si_code (SI_USER is 0) and FROM si_pid; the test sends the next one
 * only after reading that line, so none can merge with another.  After N
 * it raises SIGUSR2 to itself (handled too) and exits with N + 10.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>

#include "t_common.h"

static volatile sig_atomic_t count, usr2, last_code, last_pid;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	last_code = si->si_code;
	last_pid = si->si_pid;
	count++;
}

static void on_usr2(int sig)
{
	(void)sig;
	usr2 = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	sigset_t block, old;
	int n, seen = 0;

	if (argc < 3)
		return 2;
	t_init();
	n = atoi(argv[1]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGUSR2, on_usr2);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (seen < n) {
		while (count == seen)
			sigsuspend(&old);
		seen = count;
		printf("got %d %d %d\n", seen, (int)last_code, (int)last_pid);
		fflush(stdout);
	}
	raise(SIGUSR2);
	printf("usr2 %d\n", (int)usr2);
	fflush(stdout);
	(void)argv;
	return n + 10;
}
