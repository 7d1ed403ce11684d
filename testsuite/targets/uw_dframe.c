/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uw_dframe.c -- a call chain for the .debug_frame tests: main -> a ->
 * b -> c -> raise(SIGSTOP).  Built with -g -O2 -fomit-frame-pointer
 * -fno-asynchronous-unwind-tables, so its only CFI is in .debug_frame
 * and no frame pointer helps.  Each function keeps locals on the stack
 * (the CFA is %rsp plus a frame size, not a fixed 8) and values live
 * across its call (callee-saved registers are pushed and must be
 * restored for the caller's frame).  Each uses its callee's result, so
 * no call becomes a tail call; noinline/noclone keep the names.
 */
#include <signal.h>

#define KEEP __attribute__((noinline, noclone))

volatile int u_sink;

KEEP int c(int x)
{
	volatile char pad[200];

	pad[x & 127] = (char)x;
	raise(SIGSTOP);
	return pad[x & 127] + u_sink;
}

KEEP int b(int x)
{
	volatile long pad[40];
	int keep = x * 7 + u_sink;

	pad[x & 31] = x;
	return c(x + 1) + keep + (int)pad[x & 31];
}

KEEP int a(int x)
{
	volatile int pad[64];
	int keep = x * 5 + u_sink, more = x ^ u_sink;

	pad[x & 63] = x;
	return b(x + 1) * 3 + keep + more + pad[x & 63];
}

int main(void)
{
	return a(u_sink) == 12345;
}
