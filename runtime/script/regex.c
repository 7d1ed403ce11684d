/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* regex.c -- =~, !~, matched() and ngroups() on POSIX extended regular
 * expressions, compiled once per pattern and cached in the context. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "ctx_priv.h"

struct regex_entry {
	struct regex_entry *next;
	uint64_t hash;
	regex_t re;
	char pattern[];
};

#define RX_INITIAL_BUCKETS 16

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static int rx_grow(struct maptap_script_ctx *ctx)
{
	size_t n = ctx->rx_buckets ? (ctx->rx_mask + 1) * 2 :
				     RX_INITIAL_BUCKETS;
	struct regex_entry **b = calloc(n, sizeof(*b)), *e, *next;
	size_t i;

	if (!b)
		return -ENOMEM;
	for (i = 0; ctx->rx_buckets && i <= ctx->rx_mask; i++) {
		for (e = ctx->rx_buckets[i]; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	}
	free(ctx->rx_buckets);
	ctx->rx_buckets = b;
	ctx->rx_mask = n - 1;
	return 0;
}

static int compile(struct maptap_script_ctx *ctx, const char *pattern,
		   uint64_t hash, struct regex_entry **out)
{
	size_t len = strlen(pattern);
	struct regex_entry *e = malloc(sizeof(*e) + len + 1);
	char msg[256];
	int rc;

	if (!e)
		return -ENOMEM;
	rc = regcomp(&e->re, pattern, REG_EXTENDED);
	if (rc) {
		regerror(rc, &e->re, msg, sizeof(msg));
		free(e);
		return maptap_script_error_set(&ctx->err, MAPTAP_SCRIPT_E_REGEX,
					       "regex error: %s", msg);
	}
	memcpy(e->pattern, pattern, len + 1);
	e->hash = hash;
	*out = e;
	return 0;
}

static int lookup(struct maptap_script_ctx *ctx, const char *pattern,
		  struct regex_entry **out)
{
	uint64_t h = hash_str(pattern);
	struct regex_entry *e;
	int rc;

	if (ctx->rx_buckets) {
		for (e = ctx->rx_buckets[h & ctx->rx_mask]; e; e = e->next) {
			if (e->hash == h && !strcmp(e->pattern, pattern)) {
				*out = e;
				return 0;
			}
		}
	}
	if ((!ctx->rx_buckets || ctx->rx_count > ctx->rx_mask) && rx_grow(ctx))
		goto nomem;
	rc = compile(ctx, pattern, h, &e);
	if (rc == -ENOMEM)
		goto nomem;
	if (rc)
		return rc;
	e->next = ctx->rx_buckets[h & ctx->rx_mask];
	ctx->rx_buckets[h & ctx->rx_mask] = e;
	ctx->rx_count++;
	*out = e;
	return 0;
nomem:
	return maptap_script_error_set(&ctx->err, MAPTAP_SCRIPT_E_NOMEM,
				       "out of memory");
}

void maptap_script_regex_cache_free(struct maptap_script_ctx *ctx)
{
	struct regex_entry *e, *next;
	size_t i;

	for (i = 0; ctx->rx_buckets && i <= ctx->rx_mask; i++) {
		for (e = ctx->rx_buckets[i]; e; e = next) {
			next = e->next;
			regfree(&e->re);
			free(e);
		}
	}
	free(ctx->rx_buckets);
	ctx->rx_buckets = NULL;
	ctx->rx_count = 0;
}

int maptap_script_regex_check(struct maptap_script_ctx *ctx,
			      const char *pattern)
{
	struct regex_entry *e;

	return lookup(ctx, pattern, &e);
}

/* Keep a copy of STR so matched(n) can cut groups out of it later. */
static int keep_subject(struct maptap_script_ctx *ctx, const char *str)
{
	size_t len = strlen(str) + 1;
	char *s = ctx->m_str;

	if (len > ctx->m_cap) {
		s = realloc(s, len);
		if (!s)
			return -ENOMEM;
		ctx->m_str = s;
		ctx->m_cap = len;
	}
	memcpy(s, str, len);
	return 0;
}

int maptap_script_regex_match(struct maptap_script_ctx *ctx, const char *str,
			      const char *pattern)
{
	regmatch_t groups[MAPTAP_SCRIPT_REGEX_MAX_GROUPS];
	struct regex_entry *e;
	size_t n;
	int rc;

	rc = lookup(ctx, pattern, &e);
	if (rc)
		return rc;
	n = e->re.re_nsub + 1;
	if (n > MAPTAP_SCRIPT_REGEX_MAX_GROUPS)
		n = MAPTAP_SCRIPT_REGEX_MAX_GROUPS;
	if (regexec(&e->re, str, n, groups, 0)) {
		ctx->m_ngroups = 0;
		return 0;
	}
	if (keep_subject(ctx, str))
		return maptap_script_error_set(&ctx->err, MAPTAP_SCRIPT_E_NOMEM,
					       "out of memory");
	memcpy(ctx->m_groups, groups, n * sizeof(groups[0]));
	ctx->m_ngroups = (int)n;
	return 1;
}

int maptap_script_regex_matched(struct maptap_script_ctx *ctx, int64_t n,
				struct maptap_script_buf *out)
{
	regmatch_t *g;

	maptap_script_buf_clear(out);
	if (ctx->m_ngroups == 0)
		return maptap_script_error_set(&ctx->err, MAPTAP_SCRIPT_E_ARG,
			"matched(%" PRId64 ") without a successful match", n);
	if (n < 0 || n >= ctx->m_ngroups)
		return maptap_script_error_set(&ctx->err, MAPTAP_SCRIPT_E_ARG,
			"matched(%" PRId64 ") out of range: the last match "
			"has %d groups", n, ctx->m_ngroups);
	g = &ctx->m_groups[n];
	if (g->rm_so < 0)
		return 0;
	if (maptap_script_buf_add(out, ctx->m_str + g->rm_so,
				  g->rm_eo - g->rm_so))
		return maptap_script_error_set(&ctx->err, MAPTAP_SCRIPT_E_NOMEM,
					       "out of memory");
	return 0;
}

int64_t maptap_script_regex_ngroups(struct maptap_script_ctx *ctx)
{
	return ctx->m_ngroups;
}
