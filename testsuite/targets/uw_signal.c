/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uw_signal.c -- a stop inside a signal handler, for the unwinder's
 * tests: main -> a -> raise(SIGUSR1), whose handler calls h_inner ->
 * raise(SIGSTOP).  The walk must cross the signal frame (glibc's
 * __restore_rt) back into raise and then a and main.  With the argument
 * "alt" the handler runs on an alternate signal stack (sigaltstack(2)),
 * so the stack pointer jumps at the signal frame.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define KEEP __attribute__((noinline, noclone))

volatile int u_sink;

KEEP int h_inner(int x)
{
	raise(SIGSTOP);
	return x + u_sink;
}

KEEP void handler(int sig)
{
	u_sink += h_inner(sig);
}

KEEP int a(int x)
{
	raise(SIGUSR1);
	return x + u_sink + 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	stack_t ss;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	if (argc > 1 && strcmp(argv[1], "alt") == 0) {
		ss.ss_sp = malloc(65536);
		ss.ss_size = 65536;
		ss.ss_flags = 0;
		if (!ss.ss_sp || sigaltstack(&ss, NULL) != 0)
			return 2;
		sa.sa_flags = SA_ONSTACK;
	}
	sigaction(SIGUSR1, &sa, NULL);
	return a(u_sink) == 12345;
}
