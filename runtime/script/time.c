/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* time.c -- ctime(), gettimeofday_*() and randint(). */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include "ctx_priv.h"
#include <maptap/script_string.h>

int maptap_script_ctime(struct maptap_script_ctx *ctx, int64_t epochsecs,
			struct maptap_script_buf *out)
{
	static const char days[7][4] = {
		"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"
	};
	static const char months[12][4] = {
		"Jan", "Feb", "Mar", "Apr", "May", "Jun",
		"Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
	};
	time_t t = (time_t)epochsecs;
	struct tm tm;
	int rc;

	maptap_script_buf_clear(out);
	if (!gmtime_r(&t, &tm))
		rc = maptap_script_buf_adds(out, "<invalid time>");
	else	/* asctime()'s layout without its newline, always UTC */
		rc = maptap_script_buf_printf(out, "%s %s%3d %.2d:%.2d:%.2d %d",
				days[tm.tm_wday], months[tm.tm_mon],
				tm.tm_mday, tm.tm_hour, tm.tm_min,
				tm.tm_sec, tm.tm_year + 1900);
	if (rc)
		return maptap_script_error_set(&ctx->err, MAPTAP_SCRIPT_E_NOMEM,
					       "out of memory");
	maptap_script_buf_truncate(out, ctx_maxlen(ctx));
	return 0;
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t maptap_script_gettimeofday_s(void)
{
	return realtime_ns() / 1000000000;
}

int64_t maptap_script_gettimeofday_ms(void)
{
	return realtime_ns() / 1000000;
}

int64_t maptap_script_gettimeofday_us(void)
{
	return realtime_ns() / 1000;
}

int64_t maptap_script_gettimeofday_ns(void)
{
	return realtime_ns();
}

/* xorshift64*: fast, full period, good enough for randint(). */
static uint64_t next_random(struct maptap_script_ctx *ctx)
{
	uint64_t x = ctx->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	ctx->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

int maptap_script_randint(struct maptap_script_ctx *ctx, int64_t n,
			  int64_t *out)
{
	uint64_t r, limit;

	*out = 0;
	if (n < 1 || n > 1048576)
		return maptap_script_error_set(&ctx->err, MAPTAP_SCRIPT_E_ARG,
				"randint: range %" PRId64
				" out of bounds (1..1048576)", n);
	/* reject the top partial block so every result is equally likely */
	limit = UINT64_MAX - UINT64_MAX % (uint64_t)n;
	do {
		r = next_random(ctx);
	} while (r >= limit);
	*out = (int64_t)(r % (uint64_t)n);
	return 0;
}
