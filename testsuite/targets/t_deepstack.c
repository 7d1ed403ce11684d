/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_deepstack.c -- grows the main stack ([stack]) by recursing, with no
 * system call that maps memory, then exits: stackgrow.py's target.
 *
 * Usage: t_deepstack MAPS KIB [wait], or t_deepstack MAPS gd.  With "wait" it prints "ready PID"
 * and waits for a line on stdin first (for -x).  Then it prints the
 * [stack] VMA ("before 0xLO 0xHI"), recurses KIB KiB deeper than it is,
 * touching every page on the way, prints [stack] again ("after 0xLO
 * 0xHI"), copies /proc/self/maps to MAPS and exits.  Between the
 * recursion and the exit it only reads and writes with static buffers
 * (t_common.h), so nothing but the page faults of the recursion changes
 * the address space, and no mapping call gives a tracer a stop at which
 * to look.
 *
 * "gd" plants a change no tracer can see: a MAP_GROWSDOWN mapping
 * ("gd 0xLO 0xHI", with 4 MiB free below it) grows by one page when the
 * page below it is touched ("grown 0xLO 0xHI"), a page fault like the
 * main stack's growth, but of a VMA maps does not mark [stack].  A
 * --verify that checks the whole map at the exit finds it.
 */
#include <string.h>
#include <sys/mman.h>

#include "t_common.h"

#define FRAME 4000

/* [stack] of /proc/self/maps as "KEY 0xLO 0xHI" on stdout. */
static void print_stack(const char *key)
{
	static char maps[1 << 16];
	size_t len = 0;
	ssize_t n;
	char *line;
	int fd = open("/proc/self/maps", O_RDONLY);

	if (fd < 0)
		t_die("open");
	while (len < sizeof(maps) - 1 &&
	       (n = read(fd, maps + len, sizeof(maps) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	maps[len] = 0;
	for (line = strtok(maps, "\n"); line; line = strtok(NULL, "\n"))
		if (strstr(line, "[stack]")) {
			unsigned long long lo, hi;

			if (sscanf(line, "%llx-%llx", &lo, &hi) == 2)
				printf("%s 0x%llx 0x%llx\n", key, lo, hi);
		}
	fflush(stdout);
}

static int recurse(int n)
{
	volatile char pad[FRAME];

	pad[0] = (char)n;
	pad[FRAME - 1] = (char)n;
	if (n <= 0)
		return pad[0];
	return recurse(n - 1) + pad[FRAME - 1];
}

static int plant_growsdown(const char *maps)
{
	size_t len = 64 * 1024, hole = 4 << 20;
	char *p = mmap(NULL, hole + len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || munmap(p, hole))
		return 3;
	p = mmap(p + hole, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		 MAP_ANONYMOUS | MAP_FIXED | MAP_GROWSDOWN, -1, 0);
	if (p == MAP_FAILED)
		return 3;
	t_report("gd", p, p + len);
	fflush(stdout);
	((volatile char *)p)[-1] = 1;	/* the kernel grows it */
	t_report("grown", p - 4096, p + len);
	t_dump_maps(maps);
	_exit(0);
}

int main(int argc, char **argv)
{
	char line[16];

	if (argc < 3)
		return 2;
	t_init();
	if (!strcmp(argv[2], "gd"))
		return plant_growsdown(argv[1]);
	if (argc > 3 && !strcmp(argv[3], "wait")) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 3;
	}
	print_stack("before");
	recurse(atoi(argv[2]) * 1024 / FRAME);
	print_stack("after");
	t_dump_maps(argv[1]);
	_exit(0);
}
