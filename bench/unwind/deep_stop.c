/* SPDX-License-Identifier: GPL-2.0-or-later */
/* deep_stop.c -- the benchmark's target: 40 frames of recursion, then
 * SIGSTOP, so that a backtrace of depth 20 has 20 real frames to walk
 * (libc's raise and pthread_kill, then recursion).  Built with $CC -O2
 * at run time.
 */
#include <signal.h>

volatile int sink;

__attribute__((noinline)) int rec(int depth)
{
	if (depth == 0)
		raise(SIGSTOP);
	else
		sink += rec(depth - 1);
	return sink + 1;
}

int main(void)
{
	return rec(40) == 12345;
}
