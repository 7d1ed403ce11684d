/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/script_ctx.h -- the per-script state of the script runtime's
 * built-in functions.
 *
 * stap keeps some built-ins' state between calls: tokenize() remembers the
 * rest of its string, matched(n) the groups of the last =~, randint() a
 * generator.  maptap keeps none of it in globals: it all hangs off one
 * struct maptap_script_ctx that the caller (the interpreter, one per
 * running script) owns, together with the limits (-D) and the error of
 * the running handler.  Not thread-safe; two contexts are independent.
 */
#ifndef MAPTAP_SCRIPT_CTX_H
#define MAPTAP_SCRIPT_CTX_H

#include <stdint.h>
#include <maptap/script_error.h>
#include <maptap/script_value.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

struct maptap_script_ctx;

/* Create a context with limits LIM (copied; NULL: stap's defaults) and
 * the random generator seeded from SEED (0: from the clock and pid, as
 * stap seeds from the kernel's entropy; tests pass a fixed seed).
 * Returns 0 and *OUT, or -ENOMEM. */
int maptap_script_ctx_new(const struct maptap_script_limits *lim,
			  uint64_t seed, struct maptap_script_ctx **out);

/* Free CTX and everything it caches (NULL is fine). */
void maptap_script_ctx_free(struct maptap_script_ctx *ctx);

/* The context's limits (its copy; the caller may change them before the
 * script starts). */
struct maptap_script_limits *
maptap_script_ctx_limits(struct maptap_script_ctx *ctx);

/* The error the last failing built-in recorded.  The built-ins write
 * here; the interpreter reads it, reports it and clears it. */
struct maptap_script_error *
maptap_script_ctx_error(struct maptap_script_ctx *ctx);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
