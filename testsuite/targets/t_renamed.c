/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_renamed.c -- map a file, then rename it and unlink it while it is
 * mapped, with mapping calls in between (each makes maptap read maps,
 * and --verify compare): the kernel prints the new name, then
 * "(deleted)", with no system call that touched the mapping.
 * Usage: t_renamed DIR */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static void touch_maps(void)
{
	void *q = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (q == MAP_FAILED)
		exit(2);
	munmap(q, 4096);
}

int main(int argc, char **argv)
{
	char a[4096], b[4096];
	void *p;
	int fd;

	if (argc < 2)
		return 2;
	snprintf(a, sizeof(a), "%s/renamed-a", argv[1]);
	snprintf(b, sizeof(b), "%s/renamed-b", argv[1]);
	fd = open(a, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 8192) != 0)
		return 2;
	p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 2;
	if (rename(a, b) != 0)
		return 2;
	touch_maps();
	mprotect(p, 4096, PROT_NONE);	/* an event on the renamed file */
	if (unlink(b) != 0)
		return 2;
	touch_maps();
	mprotect(p, 4096, PROT_READ);	/* and on the deleted one */
	touch_maps();
	printf("mapped %p\n", p);
	return 0;
}
