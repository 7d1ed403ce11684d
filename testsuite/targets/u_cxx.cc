/* SPDX-License-Identifier: GPL-2.0-or-later */
// u_cxx.cc -- a C++ exception thrown through a function with a return
// probe (uprobes.py): u_throw() throws N times, u_after() returns x + 1.
#include <cstdio>
#include <cstdlib>

__attribute__((noinline)) void u_throw(long x)
{
	if (x >= 0)
		throw x;
}

__attribute__((noinline)) long u_after(long x)
{
	return x + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, s = 0;

	for (long i = 0; i < n; i++) {
		try {
			u_throw(i);
		} catch (long e) {
			s += e;
		}
		s += u_after(i);
	}
	printf("cxx %ld\n", s);
	return 0;
}
