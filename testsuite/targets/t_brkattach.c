/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_brkattach.c -- a process whose first brk(2) under a tracer shrinks
 * its heap.
 *
 * Usage: t_brkattach MAPS_FILE
 * Grows its heap by 8 pages, prints "ready PID" and waits for a line on
 * stdin (the tracer is attached by then); then shrinks the heap by 3
 * pages, grows it by 1 and shrinks it by 2, prints each break as
 * "brk N 0xOLD 0xNEW", and writes its maps to MAPS_FILE.  In perf mode
 * the break before the first call is known to no record: the log must
 * unmap the 3 pages all the same.
 */
#define _GNU_SOURCE
#include <unistd.h>

#include "t_common.h"

#define PG 4096L

static int n;

/* Move the break by DELTA bytes and say so. */
static void move_brk(long delta)
{
	char *old = sbrk(0);

	if (brk(old + delta))
		t_die("brk");
	printf("brk%d 0x%llx 0x%llx\n", n++, (unsigned long long)(uintptr_t)old,
	       (unsigned long long)(uintptr_t)sbrk(0));
}

int main(int argc, char **argv)
{
	char c;

	t_init();
	if (argc != 2)
		return 2;
	if (sbrk(8 * PG) == (void *)-1)
		t_die("sbrk");
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	/* read(2): stdio's buffer for stdin could come from the heap */
	if (read(0, &c, 1) != 1)
		return 3;
	move_brk(-3 * PG);
	move_brk(PG);
	move_brk(-2 * PG);
	t_dump_maps(argv[1]);
	return 0;
}
