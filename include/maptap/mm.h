/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/mm.h -- the model of one address space (mm) and its diff.
 *
 * The model holds the VMAs of one mm as last read from the kernel.  A
 * refresh hands it the kernel's VMAs for a range that a system call
 * touched; the model replaces that range and reports, as events, how the
 * address-space function changed there (see maptap/event.h).  Updates are
 * O(log n + k) for k VMAs in the range, so a process with 60,000 VMAs
 * costs no more per call than one with 100.
 *
 * Not thread-safe: one owner (the tracer's session) at a time.
 */
#ifndef MAPTAP_MM_H
#define MAPTAP_MM_H

#include <maptap/event.h>
#include <maptap/vma.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

struct maptap_mm;

/* A new, empty model.  Returns NULL on ENOMEM. */
struct maptap_mm *maptap_mm_new(void);

/* A deep copy of MM (for fork: the child starts with the parent's VMAs).
 * Returns NULL on ENOMEM. */
struct maptap_mm *maptap_mm_copy(const struct maptap_mm *mm);

/* Free MM (NULL allowed). */
void maptap_mm_free(struct maptap_mm *mm);

/* Number of VMAs in the model. */
size_t maptap_mm_count(const struct maptap_mm *mm);

/* The VMA containing ADDR, or NULL.  The pointer stays valid until the next
 * change to MM. */
const struct maptap_vma *maptap_mm_find(const struct maptap_mm *mm,
					uint64_t addr);

/* The hole of MM around ADDR (bytes): when no VMA contains ADDR, the
 * largest [*LO, *HI) holding it with no VMA in it -- *LO the end of the
 * VMA below (0 if none), *HI the start of the VMA above (UINT64_MAX if
 * none) -- and true; false, *LO and *HI untouched, when a VMA contains
 * ADDR.  O(log n) expected; reads MM only (safe beside other readers). */
bool maptap_mm_gap(const struct maptap_mm *mm, uint64_t addr, uint64_t *lo,
		   uint64_t *hi);

/* Call FN(vma, ARG) for every VMA intersecting [LO, HI) in address order;
 * stops early and returns FN's value when it is non-zero; else 0. */
int maptap_mm_foreach(const struct maptap_mm *mm, uint64_t lo, uint64_t hi,
		      int (*fn)(const struct maptap_vma *vma, void *arg),
		      void *arg);

/* What the caller knows about the change, to name events the way a user
 * reads them.  All addresses in bytes. */
struct maptap_mm_hint {
	pid_t pid, tid;		/* copied into each event */
	uint64_t time_ns;	/* copied into each event */
	int syscall_nr;		/* -1 for a resync */
	const char *syscall;	/* NULL for a resync */
	/* [fresh_lo, fresh_hi): a range the call filled with new backing
	 * (a successful mmap, shmat, map_shadow_stack): pieces there that were
	 * mapped before are REPLACE even when the function looks the same
	 * (MAP_FIXED anonymous over anonymous).  Empty when lo == hi. */
	uint64_t fresh_lo, fresh_hi;
	/* Pieces where a mapping extends or is cut in place are GROW/SHRINK
	 * rather than MAP/UNMAP (brk, mremap in place, stack growth). */
	bool in_place;
	/* A move (mremap that returned a new address): the range
	 * [move_old, move_old + move_old_len) went to
	 * [move_new, move_new + move_new_len).  Both ranges must be inside the
	 * refreshed ranges; they yield one MOVE event instead of UNMAP+MAP.
	 * No move when move_new_len == 0. */
	uint64_t move_old, move_old_len, move_new, move_new_len;
	bool snapshot;		/* mark MAP events as snapshot */
};

/* Replace the model's view of [LO, HI) (bytes, page aligned) with the
 * kernel's VMAs VMAS[0..N) (address order; they may extend outside [LO, HI)
 * and are clipped to it; a gap between them is unmapped memory).  Emits to
 * FN, in address order, one event per maximal changed piece, naming it with
 * HINT.  Returns 0, FN's non-zero value (the model is still updated), or
 * -ENOMEM (model unchanged), -EINVAL (VMAS unsorted, overlapping or with an
 * empty VMA, or LO > HI; model unchanged).  HINT may be NULL (a resync:
 * syscall_nr -1), FN may be NULL (no events, e.g. to load a snapshot).
 * The rules that name and cut events are in docs/model.md.  Cost:
 * O(log n + k) for k VMAs in the range (~2 us at 60,000 VMAs). */
int maptap_mm_update(struct maptap_mm *mm, uint64_t lo, uint64_t hi,
		     const struct maptap_vma *vmas, size_t n,
		     const struct maptap_mm_hint *hint,
		     maptap_event_fn fn, void *arg);

/* As maptap_mm_update() for two ranges refreshed by one call (mremap's old
 * and new range), so that a move is one event.  The ranges must not
 * overlap; VMAS covers both. */
int maptap_mm_update2(struct maptap_mm *mm, uint64_t lo1, uint64_t hi1,
		      uint64_t lo2, uint64_t hi2,
		      const struct maptap_vma *vmas, size_t n,
		      const struct maptap_mm_hint *hint,
		      maptap_event_fn fn, void *arg);

/* Compare MM with a full read ACTUAL[0..N) as address-space functions
 * (splits and merges are not differences).  Calls REPORT once per
 * differing piece with the model's state (MODEL, NULL where unmapped) and
 * the kernel's (KERNEL, NULL where unmapped) over [LO, HI); REPORT may be
 * NULL.  ACTUAL must be sorted and non-overlapping (as a full read is).
 * Returns the number of differing pieces (0: the model is right), or
 * SIZE_MAX when it cannot allocate its scratch array. */
size_t maptap_mm_verify(const struct maptap_mm *mm,
			const struct maptap_vma *actual, size_t n,
			void (*report)(uint64_t lo, uint64_t hi,
				       const struct maptap_vma *model,
				       const struct maptap_vma *kernel,
				       void *arg),
			void *arg);

/* As maptap_mm_verify() over [LO, HI) only: ACTUAL[0..N) is a read of at
 * least that range (sorted, non-overlapping; VMAs reaching outside it are
 * clipped, as a range read returns them whole).  The model outside the
 * range is not looked at.  Cost O(log n + k) for k VMAs in the range, so
 * a check of the range one call touched does not depend on the size of
 * the address space (--verify per event at 60,000 VMAs; docs/tracer.md).
 * Returns as maptap_mm_verify(); 0 for an empty range.  Not thread-safe
 * against a concurrent update of MM. */
size_t maptap_mm_verify_range(const struct maptap_mm *mm, uint64_t lo,
			      uint64_t hi, const struct maptap_vma *actual,
			      size_t n,
			      void (*report)(uint64_t lo, uint64_t hi,
					     const struct maptap_vma *model,
					     const struct maptap_vma *kernel,
					     void *arg),
			      void *arg);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
