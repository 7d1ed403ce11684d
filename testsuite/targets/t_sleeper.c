/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_sleeper.c -- a program that makes no system call but one sleep of
 * SECONDS (default 30) and its exit: no C library, no loader, so after
 * its exec a tracer sees no stop until it ends.  Built with
 * -nostdlib -static (test_blockwait.c).  x86-64 only.
 */
#include <stddef.h>

struct ts {
	long sec, nsec;
};

static long sys2(long nr, long a, long b)
{
	long r;

	__asm__ volatile ("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b)
			  : "rcx", "r11", "memory");
	return r;
}

void __attribute__((noreturn, used)) t_main(long *sp)
{
	struct ts t = { 30, 0 };
	char **argv = (char **)(sp + 1);
	const char *p;

	if (*sp > 1)
		for (t.sec = 0, p = argv[1]; *p >= '0' && *p <= '9'; p++)
			t.sec = t.sec * 10 + (*p - '0');
	sys2(35 /* nanosleep */, (long)&t, 0);
	for (;;)
		sys2(231 /* exit_group */, 0, 0);
}

__asm__(".globl _start\n_start:\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n"
	"\tcall t_main\n");
