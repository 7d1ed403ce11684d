/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_maps.c -- one address-space change per run, with exact ranges.
 *
 * Usage: t_maps SCENARIO MAPS_OUT [LIB]
 * Prints "KEY 0xSTART 0xEND" for every range the test checks, then copies
 * /proc/self/maps to MAPS_OUT and exits without running exit handlers.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "t_common.h"

#define PG 4096UL

static char *map_anon(size_t pages, int prot)
{
	char *p = mmap(NULL, pages * PG, prot, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		t_die("mmap");
	return p;
}

static void do_dlopen(const char *lib)
{
	int (*work)(int);
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		_exit(123);
	}
	work = (int (*)(int))dlsym(h, "t_lib_work");
	if (!work || work(100) == 0)
		_exit(124);
	if (dlclose(h))
		_exit(125);
}

/* Map one anonymous page with MAP_FIXED over the library's text, at the
 * page holding t_lib_work. */
static void do_fixed(const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL), *fn, *p;
	char *page;

	if (!h)
		_exit(123);
	fn = dlsym(h, "t_lib_work");
	if (!fn)
		_exit(124);
	page = (char *)((uintptr_t)fn & ~(PG - 1));
	p = mmap(page, PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p != page)
		t_die("mmap MAP_FIXED");
	t_report("fixed", page, page + PG);
}

static void do_munmap(void)
{
	char *p = map_anon(8, PROT_READ | PROT_WRITE);

	t_report("mapped", p, p + 8 * PG);
	if (munmap(p + 2 * PG, 3 * PG))
		t_die("munmap");
	t_report("unmapped", p + 2 * PG, p + 5 * PG);
}

static void do_mprotect(void)
{
	char *p = map_anon(8, PROT_READ | PROT_WRITE);

	memset(p, 1, 8 * PG);
	t_report("mapped", p, p + 8 * PG);
	if (mprotect(p + 3 * PG, 3 * PG, PROT_READ))
		t_die("mprotect");
	t_report("protected", p + 3 * PG, p + 6 * PG);
}

/* Reserve 16 pages, keep 4, then grow them in place to 12 (no
 * MREMAP_MAYMOVE: it must stay) and shrink them to 6. */
static void do_grow(void)
{
	char *p = map_anon(16, PROT_NONE), *q;

	if (munmap(p + 4 * PG, 12 * PG))
		t_die("munmap");
	t_report("mapped", p, p + 4 * PG);
	q = mremap(p, 4 * PG, 12 * PG, 0);
	if (q != p)
		t_die("mremap grow");
	t_report("grown", p, p + 12 * PG);
	q = mremap(p, 12 * PG, 6 * PG, 0);
	if (q != p)
		t_die("mremap shrink");
	t_report("shrunk", p, p + 6 * PG);
}

/* Move 4 pages to a place that was reserved and released for it. */
static void do_move(void)
{
	char *p = map_anon(4, PROT_READ | PROT_WRITE), *dst, *q;

	memset(p, 2, 4 * PG);
	dst = map_anon(4, PROT_NONE);
	if (munmap(dst, 4 * PG))
		t_die("munmap");
	t_report("from", p, p + 4 * PG);
	q = mremap(p, 4 * PG, 4 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	if (q != dst || q[4 * PG - 1] != 2)
		t_die("mremap move");
	t_report("to", dst, dst + 4 * PG);
}

static void do_brk(void)
{
	char *cur, *grown, *shrunk;

	free(malloc(100));	/* make sure there is a heap */
	cur = (char *)syscall(SYS_brk, 0);
	grown = (char *)syscall(SYS_brk, cur + 64 * PG);
	if (grown != cur + 64 * PG)
		t_die("brk grow");
	shrunk = (char *)syscall(SYS_brk, cur + 32 * PG);
	if (shrunk != cur + 32 * PG)
		t_die("brk shrink");
	t_report("brk", cur, grown);
	t_report("brk-shrunk", grown, shrunk);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	t_init();
	if (strcmp(what, "dlopen") == 0 && argc > 3)
		do_dlopen(argv[3]);
	else if (strcmp(what, "fixed") == 0 && argc > 3)
		do_fixed(argv[3]);
	else if (strcmp(what, "munmap") == 0)
		do_munmap();
	else if (strcmp(what, "mprotect") == 0)
		do_mprotect();
	else if (strcmp(what, "grow") == 0)
		do_grow();
	else if (strcmp(what, "move") == 0)
		do_move();
	else if (strcmp(what, "brk") == 0)
		do_brk();
	else
		return 2;
	t_dump_maps(argc > 2 ? argv[2] : NULL);
	_exit(0);
}
