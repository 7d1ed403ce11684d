/* SPDX-License-Identifier: GPL-2.0-or-later */
/* demo-child.c -- exec'd by demo: a new program image that maps one more
 * file and exits with status 0. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void)
{
	int fd = open("/etc/hostname", O_RDONLY);
	void *p;

	fprintf(stderr, "demo-child[%d]: map /etc/hostname, then exit 0\n",
		(int)getpid());
	if (fd >= 0) {
		p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED)
			munmap(p, 4096);
		close(fd);
	}
	return 0;
}
