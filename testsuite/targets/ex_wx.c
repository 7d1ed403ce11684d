/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ex_wx.c -- the target of examples.py's W^X audit case: memory made
 * executable after it was writable (anonymous and file-backed), an RWX
 * mapping, and nothing else unusual.  Fixed addresses so the audit's
 * lines are known.
 *
 * Usage: ex_wx FILE (a file of at least one page to map).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BASE ((char *)0x300000000UL)

int main(int argc, char **argv)
{
	int prot_rw = PROT_READ | PROT_WRITE;
	int fixed = MAP_PRIVATE | MAP_FIXED_NOREPLACE;
	char *p;
	int fd;

	if (argc < 2)
		return 2;
	/* JIT style: write code, then flip the page to read+execute. */
	p = mmap(BASE, 4096, prot_rw, fixed | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 3;
	memset(p, 0xc3, 4096);
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC))
		return 3;
	/* Writable and executable at once. */
	if (mmap(BASE + 0x10000, 4096, prot_rw | PROT_EXEC,
		 fixed | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
		return 3;
	/* A file's private copy patched, then made executable. */
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 3;
	p = mmap(BASE + 0x20000, 4096, prot_rw, fixed, fd, 0);
	if (p == MAP_FAILED || mprotect(p, 4096, PROT_READ | PROT_EXEC))
		return 3;
	/* Read-only and executable from the start: not a finding. */
	if (mmap(BASE + 0x30000, 4096, PROT_READ | PROT_EXEC, fixed, fd, 0) ==
	    MAP_FAILED)
		return 3;
	close(fd);
	return 0;
}
