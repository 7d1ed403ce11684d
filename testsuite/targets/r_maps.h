/* SPDX-License-Identifier: GPL-2.0-or-later */
/* r_maps.h -- what the targets of the report tests (report.py) know of
 * their own address space: /proc/self/maps read with open/read into a
 * static buffer, so that looking maps nothing (no malloc, no stdio) and
 * the numbers are those of the moment they are taken.
 */
#ifndef R_MAPS_H
#define R_MAPS_H

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static char r_maps_buf[1 << 20];

/* Read /proc/self/maps into r_maps_buf, NUL-terminated; exits 123 when
 * it cannot. */
static inline void r_maps_read(void)
{
	size_t len = 0;
	ssize_t n;
	int fd = open("/proc/self/maps", O_RDONLY);

	if (fd < 0)
		_exit(123);
	while ((n = read(fd, r_maps_buf + len,
			 sizeof(r_maps_buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (n < 0 || len == sizeof(r_maps_buf) - 1)
		_exit(123);
	r_maps_buf[len] = '\0';
}

/* Bytes of the VMAs of the last r_maps_read() that lie in [LO, HI):
 * what the process has mapped of a range it made, whether or not the
 * kernel merged the range with a neighbour. */
static inline uint64_t r_maps_bytes_in(uintptr_t lo, uintptr_t hi)
{
	const char *p = r_maps_buf;
	uint64_t sum = 0, s, e;
	char *end;

	while (*p) {
		s = strtoull(p, &end, 16);
		e = strtoull(end + 1, &end, 16);
		if (s < lo)
			s = lo;
		if (e > hi)
			e = hi;
		if (s < e)
			sum += e - s;
		while (*end && *end != '\n')
			end++;
		p = *end ? end + 1 : end;
	}
	return sum;
}

/* Bytes of [LO, HI) that are mapped now. */
static inline uint64_t r_mapped(const void *lo, uint64_t len)
{
	r_maps_read();
	return r_maps_bytes_in((uintptr_t)lo, (uintptr_t)lo + len);
}

/* Bytes mapped in the whole address space now. */
static inline uint64_t r_total(void)
{
	r_maps_read();
	return r_maps_bytes_in(0, UINTPTR_MAX);
}

/* The range of the chunk glibc's malloc mapped for P, a block it
 * served with mmap: the chunk header before P holds the offset of the
 * mapping's start (prev_size) and its size with the IS_MMAPPED bit
 * (glibc malloc/malloc.c, "mmapped chunks"). */
static inline void r_malloc_chunk(const void *p, uintptr_t *lo, uint64_t *len)
{
	const size_t *h = (const size_t *)p - 2;

	*lo = (uintptr_t)h - h[0];
	*len = h[0] + (h[1] & ~(size_t)7);
	if (!(h[1] & 2))
		_exit(124);	/* not mmapped: the test's premise broke */
}

#endif
