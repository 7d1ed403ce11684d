/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_dontfork.c -- fork children of a process with MADV_DONTFORK pages.
 *
 * Usage: t_dontfork MAPS_FILE [wait]
 * Maps 6 pages and marks the second MADV_DONTFORK; marks a page of its
 * own, moves it with mremap (the mark goes with it) and grows it in
 * place (the new part is marked too); unmaps a marked page and maps a
 * new one there (not marked); marks 3 pages with a hole in the middle
 * (the call fails with ENOMEM, the two pages are marked all the same,
 * madvise(2)).  Then forks a child that writes its
 * /proc/self/maps to MAPS_FILE.PID and exits at once (before a tracer
 * that reads late can look at it), takes the mark off the second page
 * (MADV_DOFORK), forks a second such child, and writes its own maps to
 * MAPS_FILE.  Each log replayed must give its process's file: the
 * first child lacks the marked pages, the second only the moved one.
 * With "wait" it prints "ready PID" once every page is marked and waits
 * for a line on stdin (an attach) before the first fork: a tracer that
 * came later knows of no madvise call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_common.h"

#define PG 4096UL

static void child_dump(const char *maps)
{
	pid_t k = fork();
	char f[512];

	if (k < 0)
		t_die("fork");
	if (k == 0) {
		snprintf(f, sizeof(f), "%s.%d", maps, (int)getpid());
		t_dump_maps(f);
		_exit(0);
	}
	waitpid(k, NULL, 0);
}

int main(int argc, char **argv)
{
	char *p, *q, *dst, *r, *z;

	if (argc < 2)
		return 2;
	t_init();
	p = mmap(NULL, 6 * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	q = mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dst = mmap(NULL, 4 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (p == MAP_FAILED || q == MAP_FAILED || dst == MAP_FAILED)
		t_die("mmap");
	if (madvise(p + PG, PG, MADV_DONTFORK) ||
	    madvise(q, PG, MADV_DONTFORK) ||
	    madvise(p + 4 * PG, PG, MADV_DONTFORK))
		t_die("madvise");
	/* the mark moves with q, and covers what it grows by */
	q = mremap(q, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, dst + PG);
	if (q == MAP_FAILED)
		t_die("mremap move");
	if (munmap(dst + 2 * PG, 2 * PG))
		t_die("munmap");
	if (mremap(q, PG, 2 * PG, 0) == MAP_FAILED)
		t_die("mremap grow");
	/* a new mapping where a marked page was is not marked */
	r = mmap(p + 4 * PG, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED, -1, 0);
	if (r == MAP_FAILED)
		t_die("mmap fixed");
	z = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (z == MAP_FAILED || munmap(z + PG, PG))
		t_die("mmap z");
	if (madvise(z, 3 * PG, MADV_DONTFORK) == 0 || errno != ENOMEM)
		t_die("madvise over a hole did not fail with ENOMEM");
	if (argc > 2 && strcmp(argv[2], "wait") == 0) {
		char line[16];

		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			t_die("stdin");
	}
	child_dump(argv[1]);
	if (madvise(p + PG, PG, MADV_DOFORK))
		t_die("madvise");
	child_dump(argv[1]);
	t_dump_maps(argv[1]);
	return 0;
}
