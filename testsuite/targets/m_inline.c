/* SPDX-License-Identifier: GPL-2.0-or-later */
/* m_inline.c -- target of the source-line tests: a function inlined into
 * another (built with -O2 -g), so that addresses of the caller lie in
 * inlined code.  Prints "sym main NAME ADDR" for the caller, then
 * "ready", and waits for a line on stdin. */
#include <stdio.h>

volatile int m_in_sink;

static inline __attribute__((always_inline)) int m_in_leaf(int x)
{
	m_in_sink = x * 7;
	return m_in_sink + 1;
}

__attribute__((noinline)) int m_in_caller(int x)
{
	int r = m_in_leaf(x);

	m_in_sink = r;
	return m_in_leaf(r) + 2;
}

int main(void)
{
	char line[16];

	printf("sym main m_in_caller %p\n", (void *)m_in_caller);
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return m_in_caller(line[0]) == 0;
}
