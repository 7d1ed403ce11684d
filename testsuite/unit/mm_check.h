/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mm_check.h -- test helpers for the mm model: a page-granular reference
 * of the address-space function, an event log, and the replay check.
 *
 * The reference is deliberately naive (one slot per page) so that it is
 * obviously right; tests compare the model and its events against it.
 */
#ifndef MAPTAP_TEST_MM_CHECK_H
#define MAPTAP_TEST_MM_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <maptap/mm.h>

#define PG ((uint64_t)4096)

struct ref_page {
	bool mapped;
	uint32_t perms;
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	uint64_t off;		/* file offset at this page (files only) */
	char name[96];
};

struct ref {
	uint64_t base;		/* bytes */
	size_t npages;
	struct ref_page *p;
};

void ref_init(struct ref *r, uint64_t base, size_t npages);
void ref_free(struct ref *r);
void ref_copy(struct ref *dst, const struct ref *src);
/* Pages [LO, HI) (bytes) take V's state (V may start elsewhere). */
void ref_set(struct ref *r, const struct maptap_vma *v, uint64_t lo,
	     uint64_t hi);
void ref_clear(struct ref *r, uint64_t lo, uint64_t hi);
/* The function of VMAs V[0..N) over the whole reference. */
void ref_from(struct ref *r, const struct maptap_vma *v, size_t n);
bool ref_page_eq(const struct ref_page *a, const struct ref_page *b);
/* Equal everywhere; on a difference prints a diagnostic naming WHAT. */
bool ref_eq(const struct ref *a, const struct ref *b, const char *what);
/* The state of the page at ADDR, or NULL out of range. */
const struct ref_page *ref_at(const struct ref *r, uint64_t addr);

/* Events as delivered, names copied. */
struct evlog {
	struct maptap_event *ev;
	size_t n, cap;
	int stop_after;		/* return 1 after that many events; 0: never */
};

int evlog_fn(const struct maptap_event *ev, void *arg);
void evlog_clear(struct evlog *l);
void evlog_free(struct evlog *l);

/* Replay LOG onto OLD and check it gives NEW; check that no MAP, UNMAP,
 * PROTECT, RENAME or REPLACE event covers a page that did not change
 * (REPLACE may, inside FRESH), that the event's states match the pages,
 * that events are in address order and maximal.  Returns true when all
 * hold; prints diagnostics (not TAP lines) otherwise. */
bool check_events(const struct ref *old, const struct ref *new,
		  const struct evlog *log, const struct maptap_mm_hint *hint);

/* The reference as VMAs (maximal runs of continuous pages) into BUF. */
void ref_to_vmas(const struct ref *r, struct maptap_vma_buf *buf);

/* Collect MM's VMAs (copies with names) into a buffer. */
void mm_to_buf(const struct maptap_mm *mm, struct maptap_vma_buf *buf);

const char *kind_name(int kind);

#endif
