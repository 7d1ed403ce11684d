/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uw_chain.c -- a known call chain for the unwinder's tests: main -> a ->
 * b -> raise(SIGSTOP), where the tracer takes its backtrace.  Built at
 * test time with and without frame pointers and CFI.  Each function
 * uses its callee's result, so no call becomes a tail call (which would
 * drop a frame from the real stack); noinline/noclone keep the names.
 */
#include <signal.h>

#define KEEP __attribute__((noinline, noclone))

volatile int u_sink;

KEEP int b(int x)
{
	raise(SIGSTOP);
	return x + u_sink + 1;
}

KEEP int a(int x)
{
	return b(x + 1) * 3;
}

int main(void)
{
	return a(u_sink) == 12345;
}
