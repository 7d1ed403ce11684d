/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report_priv.h -- private: the pieces of maptap/report.h.
 *
 * report_imap.c  the per-process interval map: byte ranges -> (site, class)
 * report_frames.c  which frames are allocation internals, site keys,
 *                  dlopen/dlclose detection, symbolizing frames
 * report.c       processes and the event rules
 * report_sites.c call sites and classes
 * report_index.c the hash index and growable arrays
 * report_print.c the text and JSON reports
 * (report_state.h: the state these share)
 */
#ifndef MAPTAP_REPORT_PRIV_H
#define MAPTAP_REPORT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <maptap/report.h>

/* ---- interval map (report_imap.c) ---- */

/* One node: [start, end) in bytes, all of it charged to SITE (an index
 * into the owning process's site table) with class CLS (an index into
 * the report's class table).  Nodes never overlap. */
struct rp_node {
	uint64_t start, end;
	uint32_t site, cls;
	uint32_t prio;
	struct rp_node *l, *r;
};

/* A treap keyed by start, with split and join.  BYTES is the sum of
 * every node's length.  FREE is a list of spare nodes (linked through
 * R): operations reserve what they may need before they change anything,
 * so an -ENOMEM leaves the map as it was. */
struct rp_map {
	struct rp_node *root;
	size_t n;
	uint64_t bytes;
	uint64_t rng;		/* xorshift64 state, never 0 */
	struct rp_node *free;
	size_t nfree;
	uint64_t flat_nodes;	/* nodes rp_map_fill() copied out, for the
				 * test that it stays within its range */
};

/* Receives each piece an operation takes out of the map: SITE lost
 * BYTES. */
typedef void (*rp_gone_fn)(void *arg, uint32_t site, uint64_t bytes);

void rp_map_init(struct rp_map *m, uint64_t seed);
void rp_map_free(struct rp_map *m);

/* [S, E) becomes (SITE, CLS), whatever was there (GONE hears of it).
 * Adjacent nodes with the same site and class are merged. */
int rp_map_assign(struct rp_map *m, uint64_t s, uint64_t e, uint32_t site,
		  uint32_t cls, rp_gone_fn gone, void *arg);

/* Unmap [S, E). */
int rp_map_erase(struct rp_map *m, uint64_t s, uint64_t e, rp_gone_fn gone,
		 void *arg);

/* Every mapped byte of [S, E) gets class CLS, keeping its site. */
int rp_map_reclass(struct rp_map *m, uint64_t s, uint64_t e, uint32_t cls);

/* Mapped bytes of [S, E) get class CLS keeping their site; unmapped
 * bytes of it become (SITE, CLS); *ADDED receives how many. */
int rp_map_fill(struct rp_map *m, uint64_t s, uint64_t e, uint32_t site,
		uint32_t cls, uint64_t *added);

/* The bytes of [OS, OE) go to [NS, NE) keeping their sites, with class
 * CLS.  Whatever was at [NS, NE) goes (GONE); a shorter destination drops
 * the old range's tail (GONE); a longer one charges its extra bytes to
 * SITE, *ADDED receives how many. */
int rp_map_move(struct rp_map *m, uint64_t os, uint64_t oe, uint64_t ns,
		uint64_t ne, uint32_t site, uint32_t cls, rp_gone_fn gone,
		void *arg, uint64_t *added);

/* DST (initialized, empty) becomes a copy of SRC with every site
 * replaced by SITE. */
int rp_map_copy(struct rp_map *dst, const struct rp_map *src, uint32_t site);

/* Call FN on every node in address order. */
void rp_map_walk(const struct rp_map *m,
		 void (*fn)(void *arg, const struct rp_node *n), void *arg);

/* ---- frames (report_frames.c) ---- */

/* True when a frame in module BASENAME (the file name of the module's
 * path, NULL: no module) at function SYMBOL (NULL: unresolved; a version
 * suffix "@..." is ignored) is the C library's or the loader's mapping or
 * allocation internals, which a call site skips. */
bool rp_frame_internal(const char *basename, const char *symbol);

/* True when module BASENAME is glibc's libc or dynamic loader. */
bool rp_module_is_libc(const char *basename);

/* RP_DL_OPEN_FAILED: an unload inside dlopen, not dlclose: the loader
 * unmapping a library it could not link. */
enum rp_dl_op { RP_DL_NONE = 0, RP_DL_OPEN, RP_DL_CLOSE, RP_DL_OPEN_FAILED };

/* Which dl operation function SYMBOL is part of (version suffix
 * ignored). */
enum rp_dl_op rp_symbol_dl_op(const char *symbol);

/* True when SYM (version and clone suffixes ignored) is NAME. */
bool rp_symbol_is(const char *sym, const char *name);

/* One frame, symbolized, with its strings owned (freed by
 * rp_frames_free()). */
struct rp_frame {
	uint64_t pc;
	char *symbol;		/* NULL: unresolved */
	uint64_t offset;	/* pc - symbol start (as stap prints it) */
	char *module;		/* module path; NULL: none */
	char *file;		/* source file; NULL: unknown */
	int line;
};

/* The file name part of PATH ("" for NULL). */
const char *rp_basename(const char *path);

/* Symbol of F (FUNC only, for the skip rule): *BASE gets the module's
 * basename or NULL, *SYM the symbol or NULL.  Strings are the module
 * layer's, valid until the next lookup. */
void rp_frame_quick(struct maptap_modules *m, pid_t pid,
		    const struct maptap_frame *f, const char **base,
		    const char **sym);

/* Symbolize F[0..N) into OUT[0..N) with file and line, copying every
 * string.  Returns 0 or -ENOMEM (OUT then freed and zeroed). */
int rp_frames_symbolize(struct maptap_modules *m, pid_t pid,
			const struct maptap_frame *f, unsigned n,
			struct rp_frame *out);
void rp_frames_free(struct rp_frame *f, unsigned n);

/* Index of the first of FRAMES[0..N) that names the call site (skipping
 * internals), and how many from there (*COUNT, at most K); when every
 * frame is internal, the outermost K. */
unsigned rp_site_start(struct maptap_modules *m, pid_t pid,
		       const struct maptap_frame *frames, unsigned n,
		       unsigned k, unsigned *count);

#endif
