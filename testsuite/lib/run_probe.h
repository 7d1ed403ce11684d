/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run_probe.h -- test support: run a script's first probe handler in the
 * process context of a test's stopped thread, without the driver.
 */
#ifndef MAPTAP_TEST_RUN_PROBE_H
#define MAPTAP_TEST_RUN_PROBE_H

#include <stdint.h>

struct tr_target;

/* Limits a test sets for the run; 0 leaves the translator's default. */
struct run_probe_limits {
	int64_t maxbacktrace;	/* -D MAXBACKTRACE, frames */
	int64_t maxaction;	/* -D MAXACTION, statements per handler */
};

/* Parse and elaborate SCRIPT (pass 1-2), then run its first probe's
 * handler once with TGT as its target context (borrowed).  Returns the
 * handler's output and error messages (malloc'd; NULL when memory ran
 * out), and sets *ERRORS to the handler's runtime errors, or -1 when the
 * script did not get that far. */
char *run_probe(const char *script, struct tr_target *tgt,
		const struct run_probe_limits *lim, long *errors);

#endif
