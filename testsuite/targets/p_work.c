/* SPDX-License-Identifier: GPL-2.0-or-later */
/* p_work.c -- the three functions of profile.py's targets: f60, f30 and
 * f10 run the same loop 6, 3 and 1 times N iterations, so they take
 * 60 %, 30 % and 10 % of the CPU time the three take together.  Built
 * into the executable, as a linked library, and as a library that is
 * dlopen()ed and dlclose()d (p_spin.c). */
#include <stdint.h>

/* volatile: the loop is not folded away, at any -O */
static volatile uint64_t sink;

#define SPIN(n) do { \
	uint64_t i_, n_ = (n); \
	for (i_ = 0; i_ < n_; i_++) \
		sink += i_ * i_; \
} while (0)

__attribute__((noinline)) void f60(uint64_t n)
{
	SPIN(6 * n);
}

__attribute__((noinline)) void f30(uint64_t n)
{
	SPIN(3 * n);
}

__attribute__((noinline)) void f10(uint64_t n)
{
	SPIN(n);
}
