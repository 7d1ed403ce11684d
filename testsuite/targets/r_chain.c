/* SPDX-License-Identifier: GPL-2.0-or-later */
/* r_chain.c -- known call chains for maptap --report (report.py).
 *
 *   main -> a -> b:  mmap 3 MiB, kept
 *   main -> c:       malloc 10 MiB (glibc mmaps it), kept
 *   main -> d:       mmap 8 MiB, munmap the middle 2 MiB: 6 MiB kept
 *   main -> e:       mmap 64 MiB, the address space's peak, then munmap
 *   main -> f:       mmap 2 pages of the file argv[1], kept
 *
 * It prints what it sees in /proc/self/maps as "KEY N" lines: the bytes
 * of each kept range ("b", "c", "d", "f") and the bytes of the whole
 * address space at its peak ("peak") and at its end ("final").  main first mallocs once in warm()
 * so that malloc's own start-up (the heap) is not charged to c.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>

#include "t_common.h"
#include "r_maps.h"

#define KEEP __attribute__((noinline, noclone))
#define MIB (1024 * 1024)

static uint64_t got_b, got_c, got_d, got_e, got_f, peak;

KEEP void *b(void)
{
	void *p = mmap(NULL, 3 * MIB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		t_die("mmap b");
	got_b = r_mapped(p, 3 * MIB);
	return p;
}

KEEP void *a(void)
{
	return b();
}

KEEP void *c(void)
{
	void *p = malloc(10 * MIB);
	uintptr_t lo;
	uint64_t len;

	if (!p)
		t_die("malloc c");
	r_malloc_chunk(p, &lo, &len);
	got_c = r_mapped((void *)lo, len);
	return p;
}

KEEP void d(void)
{
	char *p = mmap(NULL, 8 * MIB, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || munmap(p + 3 * MIB, 2 * MIB))
		t_die("mmap d");
	got_d = r_mapped(p, 8 * MIB);
}

KEEP void e(void)
{
	void *p = mmap(NULL, 64 * MIB, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		t_die("mmap e");
	peak = r_total();
	got_e = r_mapped(p, 64 * MIB);
	munmap(p, 64 * MIB);
}

KEEP void f(const char *path)
{
	int fd = open(path, O_RDONLY);
	void *p;

	if (fd < 0)
		t_die(path);
	p = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		t_die("mmap f");
	close(fd);
	got_f = r_mapped(p, 8192);
}

KEEP void warm(void)
{
	free(malloc(16));
}

int main(int argc, char **argv)
{
	t_init();
	if (argc != 2)
		return 2;
	warm();
	a();
	c();
	d();
	e();
	f(argv[1]);
	/* The static stdout buffer: printing maps nothing after this. */
	printf("final %llu\n", (unsigned long long)r_total());
	printf("b %llu\nc %llu\nd %llu\ne %llu\nf %llu\npeak %llu\n",
	       (unsigned long long)got_b, (unsigned long long)got_c,
	       (unsigned long long)got_d, (unsigned long long)got_e,
	       (unsigned long long)got_f, (unsigned long long)peak);
	return 0;
}
