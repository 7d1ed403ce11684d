/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_steps.c -- a few mapping calls in a known order, for test_errors.c:
 *
 *   mmap A (5 pages, rw)   munmap of B (3 pages, mapped before A)
 *   mprotect A's first page read-only   mmap C (2 pages)   munmap C
 *
 * Each length is the test's key to its call.  Prints "a LO HI" and
 * "b LO HI" (hex) so the test can find the areas in the events (B is
 * read-only, so that the kernel does not merge it with A); with
 * "fork" as argv[1], a child that exits at once is forked first.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096

/* PROT: B is read-only, so that the kernel does not merge it with A. */
static char *map(size_t pages, int prot)
{
	char *p = mmap(NULL, pages * PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		_exit(100);
	if (prot & PROT_WRITE)
		p[0] = 1;
	return p;
}

int main(int argc, char **argv)
{
	char *a, *b, *c;

	if (argc > 1 && !strcmp(argv[1], "fork")) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid < 0 || waitpid(pid, NULL, 0) != pid)
			return 101;
	}
	b = map(3, PROT_READ);
	a = map(5, PROT_READ | PROT_WRITE);
	printf("a %lx %lx\nb %lx %lx\n", (unsigned long)a,
	       (unsigned long)(a + 5 * PAGE), (unsigned long)b,
	       (unsigned long)(b + 3 * PAGE));
	fflush(stdout);
	munmap(b, 3 * PAGE);
	mprotect(a, PAGE, PROT_READ);
	c = map(2, PROT_READ | PROT_WRITE);
	munmap(c, 2 * PAGE);
	return 7;
}
