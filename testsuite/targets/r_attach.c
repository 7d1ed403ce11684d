/* SPDX-License-Identifier: GPL-2.0-or-later */
/* r_attach.c -- a target that maptap -x attaches to and detaches from
 * (report.py): it prints "ready PID" and waits for a line on stdin,
 * then maps 7 MiB in late_map(), prints "late N" (the bytes it sees)
 * and waits for a second line before it exits 0, so that maptap can be
 * stopped while it still runs.
 */
#include <stdio.h>
#include <sys/mman.h>

#include "t_common.h"
#include "r_maps.h"

#define KEEP __attribute__((noinline, noclone))
#define MIB (1024 * 1024)

KEEP uint64_t late_map(void)
{
	void *p = mmap(NULL, 7 * MIB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		t_die("mmap late");
	return r_mapped(p, 7 * MIB);
}

/* One line from stdin with read(2): stdio's stdin buffer would be a
 * malloc. */
static void wait_line(void)
{
	char ch;

	while (read(0, &ch, 1) == 1 && ch != '\n')
		;
}

int main(void)
{
	uint64_t got;

	t_init();
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	wait_line();
	got = late_map();
	printf("late %llu\n", (unsigned long long)got);
	fflush(stdout);
	wait_line();
	return 0;
}
