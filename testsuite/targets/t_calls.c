/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_calls.c -- the less common calls that can change the address space.
 *
 * Usage: t_calls CALL MAPS_OUT
 * Each CALL sets up an area, prints "KEY 0xSTART 0xEND" for the ranges
 * the test checks, saves its maps and exits 0 (or 77 when this kernel or
 * machine lacks the call):
 *   dontunmap  mremap(MREMAP_DONTUNMAP): moved, the old range stays mapped
 *   partial    mprotect over a hole: fails with ENOMEM after changing the
 *              part before the hole
 *   noreplace  MAP_FIXED_NOREPLACE onto a mapping: EEXIST, no change
 *   silent     madvise, mlock, munlock: VMAs split, nothing visible changes
 *   shm        shmat, shmdt
 *   aio        io_setup, io_destroy (the [aio] mapping)
 *   remap      remap_file_pages
 *   pkey       pkey_mprotect with the default key
 *   mseal      mseal (Linux 6.10)
 *   placed     mmaps whose place only the kernel knows until they return
 *              (issue 16: a lone thread's mmap takes no exit stop, its
 *              mapping is found at the next stop): a hint that fills a
 *              hole and merges with both sides ("area"), a
 *              MAP_FIXED_NOREPLACE into free space ("noreplace"), an
 *              mmap that fails with EBADF (a file's: not deferred) and
 *              anonymous ones with ENOMEM (too long for any gap;
 *              refused by RLIMIT_AS with 20 gaps that could hold it), one
 *              followed by a fork ("forked"), by a signal ("signalled"),
 *              and one right before the process exits ("last")
 *   attached   a child maps 7 pages (no exit stop: found at its next
 *              stop), saves its maps to MAPS_OUT.child and waits; the
 *              parent PTRACE_ATTACHes it (maptap lets it go), detaches
 *              and kills it
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/aio_abi.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <signal.h>

#include "t_common.h"

#define PG 4096UL

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef SYS_mseal
#define SYS_mseal 462
#endif

static char *map_anon(size_t pages, int prot)
{
	char *p = mmap(NULL, pages * PG, prot, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		t_die("mmap");
	return p;
}

static int dontunmap(void)
{
	char *p = map_anon(4, PROT_READ | PROT_WRITE), *q;

	memset(p, 3, 4 * PG);
	t_report("old", p, p + 4 * PG);
	q = mremap(p, 4 * PG, 4 * PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP);
	if (q == MAP_FAILED)
		return errno == EINVAL ? 77 : 1;
	t_report("new", q, q + 4 * PG);
	return q[0] == 3 ? 0 : 1;
}

static int partial(void)
{
	char *p = map_anon(6, PROT_READ | PROT_WRITE);

	if (munmap(p + 2 * PG, PG))
		t_die("munmap");
	t_report("area", p, p + 6 * PG);
	if (mprotect(p, 6 * PG, PROT_READ) == 0 || errno != ENOMEM)
		return 1;
	t_report("changed", p, p + 2 * PG);
	return 0;
}

static int noreplace(void)
{
	char *p = map_anon(4, PROT_READ | PROT_WRITE), *q;

	t_report("area", p, p + 4 * PG);
	q = mmap(p + PG, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED_NOREPLACE, -1, 0);
	return q == MAP_FAILED && errno == EEXIST ? 0 : 1;
}

static int silent(void)
{
	char *p = map_anon(8, PROT_READ | PROT_WRITE);

	memset(p, 1, 8 * PG);
	t_report("area", p, p + 8 * PG);
	if (madvise(p + PG, PG, MADV_DONTNEED) ||
	    madvise(p + 3 * PG, PG, MADV_DONTFORK) ||
	    mlock(p + 5 * PG, PG) || munlock(p + 5 * PG, PG))
		return 1;
	return 0;
}

static int shm(void)
{
	int id = shmget(IPC_PRIVATE, 3 * PG, IPC_CREAT | 0600);
	char *p;

	if (id < 0)
		return errno == ENOSYS ? 77 : 1;
	p = shmat(id, NULL, 0);
	shmctl(id, IPC_RMID, NULL);
	if (p == (char *)-1)
		return 1;
	t_report("attached", p, p + 3 * PG);
	if (shmdt(p))
		return 1;
	return 0;
}

static int aio(void)
{
	aio_context_t ctx = 0;

	if (syscall(SYS_io_setup, 8, &ctx))
		return errno == ENOSYS ? 77 : 1;
	printf("ctx %llu\n", (unsigned long long)ctx);
	if (syscall(SYS_io_destroy, ctx))
		return 1;
	return 0;
}

static int remap(const char *dir)
{
	char path[4096], page[PG];
	char *p;
	int fd, i;

	snprintf(path, sizeof(path), "%s.data", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 1;
	for (i = 0; i < 4; i++) {
		memset(page, 'a' + i, sizeof(page));
		if (write(fd, page, PG) != (ssize_t)PG)
			return 1;
	}
	p = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return 1;
	t_report("area", p, p + 4 * PG);
	/* Page 1 of the mapping now shows page 3 of the file. */
	if (remap_file_pages(p + PG, PG, 0, 3, 0))
		return errno == ENOSYS ? 77 : 1;
	t_report("remapped", p + PG, p + 2 * PG);
	return p[PG] == 'd' ? 0 : 1;
}

static int pkey(void)
{
	char *p = map_anon(4, PROT_READ | PROT_WRITE);

	t_report("area", p, p + 4 * PG);
	if (syscall(SYS_pkey_mprotect, p + PG, 2 * PG, PROT_READ, 0))
		return errno == ENOSYS || errno == EINVAL ? 77 : 1;
	t_report("protected", p + PG, p + 3 * PG);
	return 0;
}

static int seal(void)
{
	char *p = map_anon(4, PROT_READ | PROT_WRITE);

	t_report("area", p, p + 4 * PG);
	if (syscall(SYS_mseal, p + PG, PG, 0))
		return errno == ENOSYS || errno == EPERM ? 77 : 1;
	if (mprotect(p + PG, PG, PROT_READ) == 0 || errno != EPERM)
		return 1;
	return 0;
}

static void on_usr1(int sig)
{
	(void)sig;
}

static int placed(void)
{
	char *p = map_anon(3, PROT_READ | PROT_WRITE), *q;
	struct rlimit as, lim;
	int status, i, e;
	pid_t child;

	t_report("area", p, p + 3 * PG);
	if (munmap(p + PG, PG))
		return 1;
	/* The hole's own address as a hint: placed there, the three pages
	 * are one VMA again. */
	q = mmap(p + PG, PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q != p + PG)
		return 1;
	q = map_anon(20, PROT_NONE);
	if (munmap(q, 20 * PG))
		return 1;
	q = mmap(q + 4 * PG, 2 * PG, PROT_READ,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (q == MAP_FAILED)
		return errno == EINVAL ? 77 : 1;
	t_report("noreplace", q, q + 2 * PG);
	if (mmap(NULL, PG, PROT_READ, MAP_PRIVATE, -1, 0) != MAP_FAILED ||
	    errno != EBADF)
		return 1;
	if (mmap(NULL, (1UL << 47) - 2 * PG, PROT_READ,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED ||
	    errno != ENOMEM)
		return 1;
	/* 20 one-page gaps, then a one-page mmap refused by RLIMIT_AS:
	 * every gap could have held it (more than the search reads
	 * before it reads the whole mm). */
	q = map_anon(41, PROT_READ);
	for (i = 1; i < 41; i += 2)
		if (munmap(q + i * PG, PG))
			return 1;
	if (getrlimit(RLIMIT_AS, &as) != 0)
		return 1;
	lim = as;
	lim.rlim_cur = 0;
	if (setrlimit(RLIMIT_AS, &lim) != 0)
		return 1;
	errno = 0;
	q = mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	e = errno;
	if (setrlimit(RLIMIT_AS, &as) != 0 || q != MAP_FAILED || e != ENOMEM)
		return 1;
	q = map_anon(1, PROT_READ);
	t_report("forked", q, q + PG);
	fflush(stdout);
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0)
		_exit(0);
	if (waitpid(child, &status, 0) != child)
		return 1;
	q = map_anon(2, PROT_READ);
	t_report("signalled", q, q + 2 * PG);
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	q = map_anon(1, PROT_READ | PROT_WRITE);
	t_report("last", q, q + PG);
	return 0;
}

static int attached(const char *maps)
{
	char path[4096], c;
	int pfd[2], st;
	pid_t child;

	snprintf(path, sizeof(path), "%s.child", maps);
	if (pipe(pfd))
		return 1;
	fflush(stdout);
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		char *q = map_anon(7, PROT_READ | PROT_WRITE);

		t_report("mapped", q, q + 7 * PG);
		t_dump_maps(path);
		if (write(pfd[1], "k", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	if (read(pfd[0], &c, 1) != 1 ||
	    ptrace(PTRACE_ATTACH, child, 0L, 0L) != 0 ||
	    waitpid(child, &st, 0) != child)
		return 1;
	ptrace(PTRACE_DETACH, child, 0L, 0L);
	kill(child, SIGKILL);
	waitpid(child, &st, 0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 2 ? argv[1] : "";
	int r;

	t_init();
	if (strcmp(what, "dontunmap") == 0)
		r = dontunmap();
	else if (strcmp(what, "partial") == 0)
		r = partial();
	else if (strcmp(what, "noreplace") == 0)
		r = noreplace();
	else if (strcmp(what, "silent") == 0)
		r = silent();
	else if (strcmp(what, "shm") == 0)
		r = shm();
	else if (strcmp(what, "aio") == 0)
		r = aio();
	else if (strcmp(what, "remap") == 0)
		r = remap(argv[2]);
	else if (strcmp(what, "pkey") == 0)
		r = pkey();
	else if (strcmp(what, "mseal") == 0)
		r = seal();
	else if (strcmp(what, "placed") == 0)
		r = placed();
	else if (strcmp(what, "attached") == 0)
		r = attached(argv[2]);
	else
		return 2;
	t_dump_maps(argv[2]);
	_exit(r);
}
