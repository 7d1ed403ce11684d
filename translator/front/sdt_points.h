/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sdt_points.h -- pass 2 for SDT markers: process("PATH").mark("NAME")
 * and process("PATH").provider("P").mark("NAME") (docs/probes.md).
 */
#ifndef TR_SDT_POINTS_H
#define TR_SDT_POINTS_H

#include <stdint.h>

#include <maptap/sdt.h>

#include "ast.h"
#include "unit.h"

/* One marker a probe was made for (tr_dprobe.sdt), in the session's
 * arena. */
struct tr_sdt {
	const char *provider, *name;
	const char *args;		/* the descriptors as written */
	uint64_t semaphore;		/* ELF vaddr; 0: none */
	int nargs;
	uint32_t bad;			/* maptap_sdt_note.bad */
	struct maptap_sdt_arg arg[MAPTAP_SDT_MAX_ARGS];
};

/* Called for each marker matched: NAME is its probe point (what pp()
 * says), PC the nop's ELF vaddr. */
typedef void (*tr_sdt_push_fn)(void *ctx, const char *name, uint64_t pc,
			       const struct tr_sdt *m);

/* If component AT of PP is .mark("NAME") or .provider("P") followed by
 * .mark("NAME") (globs), and nothing follows, call PUSH for each marker
 * of the ELF file MODULE that matches, with QUAL (the process("..")
 * part) at the front of its name; returns true then (also when none
 * matched).  False: PP is not a marker point. */
bool tr_sdt_match(struct tr_session *s, const struct tr_probe_point *pp,
		  int at, const char *module, const char *qual,
		  tr_sdt_push_fn push, void *ctx);

#endif
