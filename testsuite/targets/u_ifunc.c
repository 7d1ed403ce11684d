/* SPDX-License-Identifier: GPL-2.0-or-later */
/* u_ifunc.c -- target of ifunc.py: IFUNC functions of libc and libm
 * (strlen, memcpy, cos) called a number of times the target knows,
 * directly (through the PLT) and through function pointers (whose value
 * the dynamic linker took from the IFUNC resolver).  Only the calls
 * between u_mark(1) and u_mark(0) are counted; nothing else runs there.
 *
 *   u_ifunc run N    N rounds of: strlen directly and through a
 *                    pointer, memcpy and cos through pointers; prints
 *                    "strlen 2N memcpy N cos N sum S", then "impl ADDR"
 *                    and "off OFF" (ADDR: the strlen the resolver chose,
 *                    OFF: its offset in libc, hex)
 *   u_ifunc wait N   calls each function once, prints "ready PID ADDR"
 *                    (ADDR: the strlen the resolver chose, hex), waits
 *                    for a line on stdin, then as run
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t (*volatile strlen_p)(const char *) = strlen;
static void *(*volatile memcpy_p)(void *, const void *, size_t) = memcpy;
static double (*volatile cos_p)(double) = cos;

__attribute__((noinline)) void u_mark(int on)
{
	__asm__ volatile("" : : "r"(on) : "memory");
}

static long rounds(int n, char *buf)
{
	char dst[64];
	long sum = 0;
	int i;

	u_mark(1);
	for (i = 0; i < n; i++) {
		sum += (long)strlen(buf + (i & 3));
		sum += (long)strlen_p(buf);
		memcpy_p(dst, buf, (size_t)(i & 7) + 1);
		sum += dst[0];
		sum += (long)(cos_p((double)(i & 1)) * 2.0);
	}
	u_mark(0);
	return sum;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 100;
	char buf[64], line[16];
	Dl_info info;
	long sum;

	snprintf(buf, sizeof(buf), "ifunc-%s-%d", argv[1] ? argv[1] : "", n);
	if (argc > 1 && !strcmp(argv[1], "wait")) {
		sum = rounds(1, buf);
		printf("ready %d %llx\n", (int)getpid(),
		       (unsigned long long)(uintptr_t)strlen_p);
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	sum = rounds(n, buf);
	printf("strlen %d memcpy %d cos %d sum %ld\n", 2 * n, n, n, sum);
	printf("impl %llx\n", (unsigned long long)(uintptr_t)strlen_p);
	if (dladdr((void *)(uintptr_t)strlen_p, &info) && info.dli_fbase)
		printf("off %llx\n", (unsigned long long)
		       ((uintptr_t)strlen_p - (uintptr_t)info.dli_fbase));
	return 0;
}
