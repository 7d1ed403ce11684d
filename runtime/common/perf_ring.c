/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* perf_ring.c -- reading one perf_event_open(2) ring (perf_ring.h). */
#include <config.h>

#include "perf_ring.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int mt_perf_ring_map(struct mt_perf_ring *r, int fd, size_t pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	memset(r, 0, sizeof(*r));
	r->map_len = (1 + pages) * page;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, 0);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return -errno;
	}
	r->size = (uint64_t)pages * page;
	return 0;
}

void mt_perf_ring_unmap(struct mt_perf_ring *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	r->map = NULL;
	free(r->rec);
	r->rec = NULL;
	r->rec_cap = 0;
}

void mt_perf_ring_begin(struct mt_perf_ring *r)
{
	struct perf_event_mmap_page *mp = r->map;

	r->head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	r->tail = mp->data_tail;
}

static const uint8_t *data_of(const struct mt_perf_ring *r)
{
	return (const uint8_t *)r->map + (r->map_len - r->size);
}

const struct perf_event_header *mt_perf_ring_peek(struct mt_perf_ring *r)
{
	const uint8_t *data = data_of(r);
	struct perf_event_header h;
	uint64_t off = r->tail % r->size;
	size_t a;

	r->cur = 0;
	if (r->head - r->tail < sizeof(h))
		return NULL;
	if (off + sizeof(h) <= r->size) {
		memcpy(&h, data + off, sizeof(h));
	} else {
		a = (size_t)(r->size - off);
		memcpy(&h, data + off, a);
		memcpy((uint8_t *)&h + a, data, sizeof(h) - a);
	}
	if (h.size < sizeof(h) || h.size > r->head - r->tail) {
		r->corrupt++;
		r->tail = r->head;	/* a corrupt ring: give it all back */
		return NULL;
	}
	r->cur = h.size;
	if (off + h.size <= r->size)
		return (const struct perf_event_header *)(data + off);
	if (r->rec_cap < h.size) {
		uint8_t *b = realloc(r->rec, h.size);

		if (!b) {
			r->cur = 0;
			r->corrupt++;
			r->tail = r->head;	/* cannot read it */
			return NULL;
		}
		r->rec = b;
		r->rec_cap = h.size;
	}
	a = (size_t)(r->size - off);
	memcpy(r->rec, data + off, a);
	memcpy(r->rec + a, data, h.size - a);
	return (const struct perf_event_header *)r->rec;
}

void mt_perf_ring_next(struct mt_perf_ring *r)
{
	r->tail += r->cur;
	r->cur = 0;
}

void mt_perf_ring_end(struct mt_perf_ring *r)
{
	struct perf_event_mmap_page *mp = r->map;

	__atomic_store_n(&mp->data_tail, r->tail, __ATOMIC_RELEASE);
}
