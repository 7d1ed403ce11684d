/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* perf_ring.h -- private: reading one perf_event_open(2) ring buffer.
 *
 * Shared by the sampling profiler (runtime/profile/) and the tracer's
 * perf event source (runtime/tracer/perf_source.c).  The ring is the
 * one perf_event_open(2) describes under "MMAP layout": a metadata page
 * (struct perf_event_mmap_page) followed by 2^n data pages.  The kernel
 * advances data_head after writing records; the reader loads it with
 * acquire ordering, reads the records in [data_tail, data_head) and
 * stores the new data_tail with release ordering, which gives the space
 * back to the kernel.  A record that wraps around the end of the data
 * area is copied out whole.  Not thread-safe: one reader per ring.
 */
#ifndef MAPTAP_RUNTIME_PERF_RING_H
#define MAPTAP_RUNTIME_PERF_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_event_header;

struct mt_perf_ring {
	void *map;		/* metadata page + data pages; NULL unmapped */
	size_t map_len;
	uint64_t size;		/* bytes of data area */
	uint64_t head;		/* data_head at the last mt_perf_ring_begin() */
	uint64_t tail;		/* next record to read */
	uint16_t cur;		/* size of the record peeked, 0 none */
	uint8_t *rec;		/* a wrapped record, copied out */
	size_t rec_cap;
	uint64_t corrupt;	/* times a bad header made us drop the rest */
};

/* Map the ring of perf event FD: PAGES data pages (a power of two) after
 * the metadata page.  Returns 0 or -errno of mmap(2) (-EPERM when the
 * locked-memory limit, perf_event_mlock_kb, is reached). */
int mt_perf_ring_map(struct mt_perf_ring *r, int fd, size_t pages);

/* Unmap R (no-op when unmapped) and free its copy buffer. */
void mt_perf_ring_unmap(struct mt_perf_ring *r);

/* Take the kernel's data_head: records written up to now may be read. */
void mt_perf_ring_begin(struct mt_perf_ring *r);

/* The next unread record up to the head taken by mt_perf_ring_begin(),
 * without consuming it, or NULL when none is left.  The pointer is valid
 * until mt_perf_ring_next() or mt_perf_ring_end(). */
const struct perf_event_header *mt_perf_ring_peek(struct mt_perf_ring *r);

/* Consume the record mt_perf_ring_peek() returned. */
void mt_perf_ring_next(struct mt_perf_ring *r);

/* Give what was read back to the kernel (store data_tail). */
void mt_perf_ring_end(struct mt_perf_ring *r);

#endif
