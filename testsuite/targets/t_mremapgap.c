/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_mremapgap.c -- mremap(2) moves of a source range that is not one
 * VMA (Linux 6.17 and later: mm/mremap.c, remap_move()).
 *
 * Usage: t_mremapgap MAPS_FILE
 * Maps a source of 8 pages and a target of 8 PROT_NONE pages.  Unmaps
 * source pages 1-3 and moves source pages 0-3 (one page and a hole)
 * onto target pages 0-3 with MREMAP_FIXED: only the page is moved, and
 * target pages 1-3, facing the hole, keep their PROT_NONE mapping.
 * Then makes source pages 4-7 three VMAs (page 5 read-only) and moves
 * them onto target pages 4-7.  Prints "moved" or, where the kernel
 * refuses such moves (EFAULT before 6.17), "refused ERRNO"; writes its
 * /proc/self/maps to MAPS_FILE and exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "t_common.h"

#define PG 4096UL

int main(int argc, char **argv)
{
	char *src, *dst, *r;

	if (argc != 2)
		t_die("usage: t_mremapgap MAPS_FILE");
	src = mmap(NULL, 8 * PG, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dst = mmap(NULL, 8 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (src == MAP_FAILED || dst == MAP_FAILED)
		t_die("mmap");
	if (munmap(src + PG, 3 * PG) ||
	    mprotect(src + 5 * PG, PG, PROT_READ))
		t_die("munmap/mprotect");
	r = mremap(src, 4 * PG, 4 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	if (r == MAP_FAILED) {
		printf("refused %d\n", errno);
	} else {
		r = mremap(src + 4 * PG, 4 * PG, 4 * PG,
			   MREMAP_MAYMOVE | MREMAP_FIXED, dst + 4 * PG);
		if (r == MAP_FAILED)
			t_die("mremap of three VMAs");
		printf("moved\n");
	}
	fflush(stdout);
	t_dump_maps(argv[1]);
	return 0;
}
