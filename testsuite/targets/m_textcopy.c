/* SPDX-License-Identifier: GPL-2.0-or-later */
/* m_textcopy.c -- target of the module tests: replaces its own text
 * mapping by an anonymous copy (m_copy_over() of m_copier.c, linked in as
 * a shared library), then proves the copy runs and prints the addresses
 * of its own symbols, "text START END" of the copied range, and "ready".
 * Output lines: "sym main NAME ADDR", "text START END". */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int m_copy_over(void *start, size_t len);

int m_tc_data = 5;

__attribute__((noinline)) int m_tc_func(int x)
{
	return x * 3 + m_tc_data;
}

__attribute__((noinline)) int m_tc_other(int x)
{
	return m_tc_func(x) - 1;
}

/* The r-x mapping of /proc/self/maps that holds ADDR. */
static int text_range(uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
	char line[512], perms[8];
	unsigned long a, b;
	FILE *f = fopen("/proc/self/maps", "r");
	int found = -1;

	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) != 3)
			continue;
		if (addr >= a && addr < b && strcmp(perms, "r-xp") == 0) {
			*lo = a;
			*hi = b;
			found = 0;
		}
	}
	fclose(f);
	return found;
}

int main(void)
{
	uintptr_t lo, hi;

	if (text_range((uintptr_t)m_tc_func, &lo, &hi) != 0 ||
	    m_copy_over((void *)lo, hi - lo) != 0) {
		fprintf(stderr, "m_textcopy: cannot copy the text\n");
		return 1;
	}
	if (m_tc_other(2) != 10)
		return 1;
	printf("sym main m_tc_func %p\n", (void *)m_tc_func);
	printf("sym main m_tc_other %p\n", (void *)m_tc_other);
	printf("sym main main %p\n", (void *)main);
	printf("sym main m_tc_data %p\n", (void *)&m_tc_data);
	printf("text %#lx %#lx\n", (unsigned long)lo, (unsigned long)hi);
	printf("ready\n");
	fflush(stdout);
	return getchar() == EOF ? 0 : 0;
}
