/* SPDX-License-Identifier: GPL-2.0-or-later */
/* r_exec.c -- one pid, two program images (report.py): maps 16 MiB in
 * big_map(), prints the whole address space it sees then as "peak N"
 * (its largest moment: nothing is mapped after), and execs ARGV[1]. */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "t_common.h"
#include "r_maps.h"

#define KEEP __attribute__((noinline, noclone))
#define MIB (1024 * 1024)

KEEP void *big_map(void)
{
	return mmap(NULL, 16 * MIB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
}

int main(int argc, char **argv)
{
	uint64_t peak;

	if (argc != 2)
		return 2;
	t_init();
	if (big_map() == MAP_FAILED)
		t_die("mmap");
	peak = r_total();
	printf("peak %llu\n", (unsigned long long)peak);
	fflush(stdout);
	execl(argv[1], argv[1], (char *)NULL);
	return 1;
}
