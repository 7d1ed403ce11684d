/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mm_priv.h -- private: struct maptap_mm, and what mm.c (the model) and
 * mm_diff.c (turning a refresh into events) share. */
#ifndef MAPTAP_MM_PRIV_H
#define MAPTAP_MM_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <maptap/mm.h>

#include "mm_tree.h"

/* Piece kinds beyond enum maptap_event_kind. */
#define MM_PIECE_SAME	(-1)	/* unchanged: no event */
#define MM_PIECE_SKIP	(-2)	/* folded into a MOVE */

/* An elementary piece: [lo, hi) on which both the old state (OLD, a model
 * node's VMA, NULL where unmapped) and the new one (NEW, an entry of the
 * caller's array) are constant. */
struct mm_piece {
	uint64_t lo, hi;
	const struct maptap_vma *old;
	const struct maptap_vma *new;
	int kind;
	unsigned range;		/* which refreshed range it lies in */
};

struct mm_range {
	uint64_t lo, hi;
};

/* Buffers kept between updates so that a steady stream of refreshes does
 * not call malloc() for bookkeeping. */
struct mm_scratch {
	const struct maptap_vma **old;
	size_t old_cap;
	struct mm_piece *pieces;
	size_t n_pieces, pieces_cap;
	struct maptap_event *ev;
	size_t n_ev, ev_cap;
	struct mm_piece *specs;	/* nodes to build: old = source VMA */
	size_t specs_cap;
	struct mm_node **nodes;
	size_t nodes_cap;
};

struct maptap_mm {
	struct mm_tree tree;
	struct mm_scratch s;
};

/* Grow *P (an array of ELEM-byte items with capacity *CAP) to hold NEED
 * items.  0 or -ENOMEM (*P unchanged). */
int mm_reserve(void **p, size_t *cap, size_t need, size_t elem);

/* Equal states of the address-space function: A at address AA and B at
 * address BA (same perms, same name, same backing).  Either may be an
 * extrapolation past its VMA's end, which is how continuity is tested. */
bool mm_state_eq(const struct maptap_vma *a, uint64_t aa,
		 const struct maptap_vma *b, uint64_t ba);

/* Same backing at AA / BA (dev, inode, offset for files; anon = anon). */
bool mm_backing_eq(const struct maptap_vma *a, uint64_t aa,
		   const struct maptap_vma *b, uint64_t ba);

/* A's state over [LO, HI): A with start, end and (for a file) offset
 * moved. */
struct maptap_vma mm_vma_at(const struct maptap_vma *a, uint64_t lo,
			    uint64_t hi);

/* Cut [LO, HI) into elementary pieces of OLD[0..NO) (pointers) against
 * NEW[0..NN) (both sorted, non-overlapping) and the extra cut points
 * CUTS[0..NC) (sorted); call FN for every piece where either is mapped.
 * Stops on FN's non-zero return and passes it back. */
int mm_sweep(uint64_t lo, uint64_t hi,
	     const struct maptap_vma *const *old, size_t no,
	     const struct maptap_vma *new, size_t nn,
	     const uint64_t *cuts, size_t nc,
	     int (*fn)(uint64_t lo, uint64_t hi, const struct maptap_vma *o,
		       const struct maptap_vma *n, void *arg),
	     void *arg);

/* Compute the events of replacing the model's view of the ranges
 * R[0..NR) (sorted, disjoint, non-adjacent) by NEW[0..N) into mm->s.ev
 * (names pointing into the model's nodes and into NEW).  Does not change
 * the model.  0 or -ENOMEM. */
int mm_diff(struct maptap_mm *mm, const struct mm_range *r, size_t nr,
	    const struct maptap_vma *new, size_t n,
	    const struct maptap_mm_hint *hint);

/* Index of the first entry of NEW[0..N) whose end is above ADDR. */
size_t mm_first_after(const struct maptap_vma *new, size_t n, uint64_t addr);

#endif
