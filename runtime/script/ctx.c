/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ctx.c -- the per-script state of the built-ins. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "ctx_priv.h"

int maptap_script_ctx_new(const struct maptap_script_limits *lim,
			  uint64_t seed, struct maptap_script_ctx **out)
{
	struct maptap_script_ctx *ctx = calloc(1, sizeof(*ctx));
	struct timespec ts;

	if (!ctx)
		return -ENOMEM;
	if (lim)
		ctx->lim = *lim;
	else
		maptap_script_limits_default(&ctx->lim);
	if (!seed) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
		       ((uint64_t)getpid() << 40);
	}
	ctx->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
	*out = ctx;
	return 0;
}

void maptap_script_ctx_free(struct maptap_script_ctx *ctx)
{
	if (!ctx)
		return;
	maptap_script_regex_cache_free(ctx);
	free(ctx->tok_str);
	free(ctx->m_str);
	free(ctx);
}

struct maptap_script_limits *
maptap_script_ctx_limits(struct maptap_script_ctx *ctx)
{
	return &ctx->lim;
}

struct maptap_script_error *
maptap_script_ctx_error(struct maptap_script_ctx *ctx)
{
	return &ctx->err;
}
