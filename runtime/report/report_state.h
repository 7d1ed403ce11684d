/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report_state.h -- private: the state of a report, shared by report.c
 * (processes and the event rules), report_sites.c (sites and classes),
 * report_index.c (hash index, arrays) and report_print.c (printing).
 */
#ifndef MAPTAP_REPORT_STATE_H
#define MAPTAP_REPORT_STATE_H

#include "report_priv.h"
#include "../common/hash.h"

/* Pseudo sites: the first site ids of every process. */
enum rp_what {
	RP_W_BEFORE_ATTACH = 0,
	RP_W_EXECVE,
	RP_W_INHERITED,
	RP_W_NO_STACK,
	RP_W_KERNEL,
	RP_W_CALL,		/* every id from here is a call site */
};

/* The names of enum rp_what, as JSON's "what" has them. */
const char *rp_what_name(unsigned what);

struct rp_site {
	uint64_t live;		/* bytes */
	uint64_t peak;		/* bytes */
	uint64_t maps;		/* charging events */
	/* Its bytes at the process's latest peak, kept lazily: LIVE was
	 * still that value unless AT_PEAK_GEN is the process's PEAK_GEN
	 * (then AT_PEAK holds it, saved at the first change after that
	 * peak).  rp_site_at_peak() reads it. */
	uint64_t at_peak;
	uint64_t at_peak_gen;
	uint64_t hash;
	unsigned what;		/* enum rp_what */
	unsigned nframes;
	struct rp_frame *frames;	/* [nframes]: the key is their pcs */
};

/* Open addressing from a hash to an index (slot: index + 1; 0: free). */
struct rp_ix {
	uint32_t *slot;
	size_t cap;		/* a power of two, or 0 */
	size_t n;
};

struct rp_dl {
	enum rp_dl_op op;
	uint64_t time_ns;
	pid_t tid;
	char *path;
	unsigned nframes;
	struct rp_frame *frames;
};

struct rp_proc {
	pid_t pid;
	char *exe;		/* NULL: unknown */
	struct rp_map map;
	struct rp_site *sites;
	size_t nsites, sites_cap;
	struct rp_ix site_ix;
	uint64_t peak, peak_ns;	/* bytes; CLOCK_MONOTONIC ns */
	uint64_t peak_gen;	/* new peaks so far */
	bool exited;		/* the last thread exited: frozen */
	bool detached;
	bool execd;		/* its image was replaced by an exec: frozen;
				 * a new record holds what came after */
	char *exec_path;	/* EXECD: the new image's path (NULL:
				 * unknown) */
	bool incomplete;	/* an event could not be accounted */
	int status;
	unsigned snap_site;	/* where the next snapshot MAPs go */
	uint64_t loads_at_start;
	struct rp_dl *dl;
	size_t ndl, dl_cap;
};

/* A class: a module's segment kind (MODULE true: NAME is the path), or
 * an anonymous name ("[heap]", "[anon]", ...). */
struct rp_class {
	char *key;		/* what the table hashes */
	const char *name;	/* inside KEY */
	bool module;
	bool anon;		/* the program's anonymous copy of a segment */
	enum maptap_segment_kind kind;
};

/* A process that shares the address space of another (a vfork child, a
 * clone(CLONE_VM) without CLONE_THREAD) until it execs or exits: its
 * range events are charged to OWNER's record. */
struct rp_share {
	pid_t pid;
	pid_t owner;		/* never itself a sharing pid */
};

struct maptap_report {
	struct maptap_modules *m;
	struct maptap_report_opts opts;
	struct rp_proc **procs;	/* in the order first seen */
	size_t nprocs, procs_cap;
	struct rp_ix pid_ix;	/* pid -> its latest record */
	struct rp_class *cls;
	size_t ncls, cls_cap;
	struct rp_ix cls_ix;
	uint64_t first_ns;	/* time of the first event; 0: none yet */
	struct rp_share *share;	/* few at once: a vfork child lives until
				 * its exec */
	size_t nshare, share_cap;
};

/* Bytes site S of P held at P's peak. */
static inline uint64_t rp_site_at_peak(const struct rp_proc *p,
				       const struct rp_site *s)
{
	return s->at_peak_gen == p->peak_gen ? s->at_peak : s->live;
}

/* ---- report_index.c ---- */

uint64_t rp_hash_bytes(const void *p, size_t n);

/* Does entry IDX of the caller's array (CTX) match KEY?  Its hash? */
typedef bool (*rp_ix_match_fn)(const void *ctx, uint32_t idx,
			       const void *key);
typedef uint64_t (*rp_ix_hash_fn)(const void *ctx, uint32_t idx);

/* The index whose entry matches KEY (hash H), or -1. */
long rp_ix_find(const struct rp_ix *ix, uint64_t h, rp_ix_match_fn match,
		const void *ctx, const void *key);

/* Add IDX (hash H); HASH_OF rehashes the others when the table grows.
 * Returns 0 or -ENOMEM (IX unchanged). */
int rp_ix_add(struct rp_ix *ix, uint64_t h, uint32_t idx,
	      rp_ix_hash_fn hash_of, const void *ctx);

/* Point the entry matching KEY (it must exist) at IDX. */
void rp_ix_set(struct rp_ix *ix, uint64_t h, rp_ix_match_fn match,
	       const void *ctx, const void *key, uint32_t idx);

/* Make *P (of *CAP elements of ELEM bytes) hold NEED.  0 or -ENOMEM. */
int rp_grow(void **p, size_t *cap, size_t need, size_t elem);

/* ---- report_sites.c ---- */

/* What names a site: pseudo site WHAT with no frames, or RP_W_CALL with
 * F[0..N). */
struct rp_site_key {
	unsigned what;
	unsigned n;
	const struct maptap_frame *f;
};

/* The class of the new state of range event EV: its id, or -ENOMEM. */
long rp_class_of(struct maptap_report *r, const struct maptap_event *ev);

/* The site of K in P, made (and its frames symbolized) when new: its
 * id, or -ENOMEM. */
long rp_site_get(struct maptap_report *r, struct rp_proc *p,
		 const struct rp_site_key *k);

/* Whether range event EV is an exec's own (its syscall execve or
 * execveat): charged to the exec's pseudo site, with no stack. */
bool rp_event_of_exec(const struct maptap_event *ev);

/* The site charging event EV goes to, from its stack FRAMES[0..N): its
 * id, or -ENOMEM. */
long rp_site_for(struct maptap_report *r, struct rp_proc *p,
		 const struct maptap_event *ev,
		 const struct maptap_frame *frames, unsigned n);

#endif
