/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ctx_priv.h -- the layout of struct maptap_script_ctx, shared by the
 * built-ins that keep state in it.  Private to runtime/script/. */
#ifndef MAPTAP_RUNTIME_SCRIPT_CTX_PRIV_H
#define MAPTAP_RUNTIME_SCRIPT_CTX_PRIV_H

#include <regex.h>
#include <stdint.h>
#include <maptap/script_ctx.h>
#include <maptap/script_regex.h>

struct regex_entry;

struct maptap_script_ctx {
	struct maptap_script_limits lim;
	struct maptap_script_error err;

	/* tokenize(): a private copy of the string and the rest of it */
	char *tok_str;
	char *tok_rest;		/* NULL once exhausted */

	/* randint(): xorshift64* state, never 0 */
	uint64_t rng;

	/* =~: compiled patterns by text (regex.c) */
	struct regex_entry **rx_buckets;
	size_t rx_mask;
	size_t rx_count;

	/* matched(n): a copy of the last matched string and its groups */
	char *m_str;
	size_t m_cap;
	regmatch_t m_groups[MAPTAP_SCRIPT_REGEX_MAX_GROUPS];
	int m_ngroups;		/* 0: no successful match */
};

/* Free the regex cache (regex.c). */
void maptap_script_regex_cache_free(struct maptap_script_ctx *ctx)
	__attribute__((visibility("hidden")));

/* MAXSTRINGLEN - 1: the longest string a built-in returns. */
static inline size_t ctx_maxlen(const struct maptap_script_ctx *ctx)
{
	return ctx->lim.maxstringlen - 1;
}

#endif
