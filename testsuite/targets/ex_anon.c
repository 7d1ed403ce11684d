/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ex_anon.c -- the target of examples.py's anonymous-memory case.
 *
 * Usage: ex_anon none|map.  With "map": a 1024 KiB anonymous mapping,
 * named "ex-cache" with prctl(PR_SET_VMA) when the kernel can
 * (CONFIG_ANON_VMA_NAME), of which 256 KiB are unmapped again; so its
 * peak is 1024 KiB and its end 768 KiB more than with "none".  Prints
 * "named 1" when the name was set, "named 0" when the kernel refused.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

int main(int argc, char **argv)
{
	size_t len = 1024 * 1024;
	int named;
	char *p;

	if (argc < 2)
		return 2;
	if (strcmp(argv[1], "map"))
		return 0;
	p = mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return 3;
	named = prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)p, len,
		      (unsigned long)"ex-cache") == 0;
	if (munmap(p + len - 256 * 1024, 256 * 1024))
		return 3;
	printf("named %d\n", named);
	return 0;
}
