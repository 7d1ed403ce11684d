/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* arith.c -- division and remainder with stap's runtime error. */
#include "ctx_priv.h"
#include <maptap/script_string.h>

int maptap_script_div(struct maptap_script_ctx *ctx, int64_t a, int64_t b,
		      int64_t *out)
{
	if (b == 0)
		return maptap_script_error_set(&ctx->err,
					       MAPTAP_SCRIPT_E_DIVZERO,
					       "division by 0");
	/* INT64_MIN / -1 overflows (and traps on x86): wrap instead */
	*out = b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b;
	return 0;
}

int maptap_script_mod(struct maptap_script_ctx *ctx, int64_t a, int64_t b,
		      int64_t *out)
{
	if (b == 0)
		return maptap_script_error_set(&ctx->err,
					       MAPTAP_SCRIPT_E_DIVZERO,
					       "division by 0");
	*out = b == -1 ? 0 : a % b;
	return 0;
}
