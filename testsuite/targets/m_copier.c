/* SPDX-License-Identifier: GPL-2.0-or-later */
/* m_copier.c -- a shared library for m_textcopy: moves a range of
 * executable memory onto anonymous memory, as programs that put their
 * text on huge pages do.  It runs from the library, so the range it
 * replaces may be its caller's own text. */
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

/* Copy [START, START + LEN) aside, map anonymous memory over it with
 * MAP_FIXED, copy the bytes back and make it r-x again.  0 or -1. */
int m_copy_over(void *start, size_t len)
{
	void *tmp = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (tmp == MAP_FAILED)
		return -1;
	memcpy(tmp, start, len);
	if (mmap(start, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != start)
		return -1;
	memcpy(start, tmp, len);
	if (mprotect(start, len, PROT_READ | PROT_EXEC) != 0)
		return -1;
	return munmap(tmp, len);
}
