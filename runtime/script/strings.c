/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* strings.c -- stap's string built-ins (tapset/string.stp,
 * tapset/tokenize.stp) and the "." operator.  Strings are bytes; every
 * string result is cut to MAXSTRINGLEN - 1 bytes as stap's fixed-size
 * buffers cut it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ctx_priv.h"
#include <maptap/script_string.h>

static int nomem(struct maptap_script_ctx *ctx)
{
	return maptap_script_error_set(&ctx->err, MAPTAP_SCRIPT_E_NOMEM,
				       "out of memory");
}

/* OUT = P[0..LEN) cut to MAXSTRINGLEN - 1. */
static int set_result(struct maptap_script_ctx *ctx, const char *p, size_t len,
		      struct maptap_script_buf *out)
{
	if (len > ctx_maxlen(ctx))
		len = ctx_maxlen(ctx);
	maptap_script_buf_clear(out);
	if (maptap_script_buf_add(out, p, len))
		return nomem(ctx);
	return 0;
}

int64_t maptap_script_strlen(const char *s, size_t len)
{
	(void)s;
	return (int64_t)len;
}

int maptap_script_substr(struct maptap_script_ctx *ctx, const char *s,
			 size_t len, int64_t start, int64_t length,
			 struct maptap_script_buf *out)
{
	size_t n;

	if (start < 0 || (uint64_t)start >= len || length <= 0)
		return set_result(ctx, "", 0, out);
	n = len - start;
	if ((uint64_t)length < n)
		n = length;
	return set_result(ctx, s + start, n, out);
}

int maptap_script_stringat(struct maptap_script_ctx *ctx, const char *s,
			   size_t len, int64_t pos, int64_t *out)
{
	*out = 0;
	if (pos < 0 || (uint64_t)pos >= len)
		return maptap_script_error_set(&ctx->err, MAPTAP_SCRIPT_E_ARG,
					       "Position out of bounds");
	*out = (unsigned char)s[pos];
	return 0;
}

int64_t maptap_script_isinstr(const char *s1, const char *s2)
{
	return strstr(s1, s2) != NULL;
}

int64_t maptap_script_strpos(const char *s1, const char *s2)
{
	const char *p = strstr(s1, s2);

	return p ? p - s1 : -1;
}

int maptap_script_str_replace(struct maptap_script_ctx *ctx, const char *prnt,
			      const char *srch, const char *rplc,
			      struct maptap_script_buf *out)
{
	size_t slen = strlen(srch), rlen = strlen(rplc);
	const char *p = prnt, *hit;

	maptap_script_buf_clear(out);
	if (slen == 0)
		return set_result(ctx, prnt, strlen(prnt), out);
	while ((hit = strstr(p, srch))) {
		if (maptap_script_buf_add(out, p, hit - p) ||
		    maptap_script_buf_add(out, rplc, rlen))
			return nomem(ctx);
		p = hit + slen;
		if (out->len > ctx_maxlen(ctx))
			break;
	}
	if (maptap_script_buf_adds(out, p))
		return nomem(ctx);
	maptap_script_buf_truncate(out, ctx_maxlen(ctx));
	return 0;
}

static unsigned digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

static int is_xdigit(char c)
{
	return digit_value(c) < 16;
}

/* The kernel's simple_strtoull() after the sign. */
static uint64_t parse_unsigned(const char *s, unsigned base)
{
	uint64_t v = 0;

	if (base == 0) {
		if (s[0] == '0')
			base = (s[1] | 0x20) == 'x' && is_xdigit(s[2]) ?
			       16 : 8;
		else
			base = 10;
	}
	if (base == 16 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	for (; *s && digit_value(*s) < base; s++)
		v = v * base + digit_value(*s);
	return v;
}

int maptap_script_strtol(struct maptap_script_ctx *ctx, const char *s,
			 int64_t base, int64_t *out)
{
	unsigned b = (unsigned)base;

	(void)ctx;
	if (*s == '-')
		*out = (int64_t)(0 - parse_unsigned(s + 1, b));
	else
		*out = (int64_t)parse_unsigned(s, b);
	return 0;
}

int64_t maptap_script_isdigit(const char *s)
{
	return s[0] >= '0' && s[0] <= '9';
}

static int map_case(struct maptap_script_ctx *ctx, const char *s, size_t len,
		    struct maptap_script_buf *out, char from, char to)
{
	size_t i;
	int rc = set_result(ctx, s, len, out);

	if (rc)
		return rc;
	for (i = 0; i < out->len; i++)
		if (out->s[i] >= from && out->s[i] <= from + 25)
			out->s[i] += to - from;
	return 0;
}

int maptap_script_toupper(struct maptap_script_ctx *ctx, const char *s,
			  size_t len, struct maptap_script_buf *out)
{
	return map_case(ctx, s, len, out, 'a', 'A');
}

int maptap_script_tolower(struct maptap_script_ctx *ctx, const char *s,
			  size_t len, struct maptap_script_buf *out)
{
	return map_case(ctx, s, len, out, 'A', 'a');
}

/* The next non-empty token of ctx->tok_rest, as strsep() in a loop. */
static int next_token(struct maptap_script_ctx *ctx, const char *delim,
		      struct maptap_script_buf *out)
{
	char *tok;

	maptap_script_buf_clear(out);
	while (ctx->tok_rest) {
		size_t n = strcspn(ctx->tok_rest, delim);

		tok = ctx->tok_rest;
		ctx->tok_rest = tok[n] ? tok + n + 1 : NULL;
		if (n)
			return set_result(ctx, tok, n, out);
	}
	return 0;
}

int maptap_script_tokenize(struct maptap_script_ctx *ctx, const char *input,
			   const char *delim, struct maptap_script_buf *out)
{
	if (input[0]) {
		size_t len = strlen(input);
		char *copy;

		if (len > ctx_maxlen(ctx))
			len = ctx_maxlen(ctx);
		copy = malloc(len + 1);
		if (!copy)
			return nomem(ctx);
		memcpy(copy, input, len);
		copy[len] = '\0';
		free(ctx->tok_str);
		ctx->tok_str = copy;
		ctx->tok_rest = copy;
	}
	return next_token(ctx, delim, out);
}

int maptap_script_concat(struct maptap_script_ctx *ctx, const char *a,
			 size_t alen, const char *b, size_t blen,
			 struct maptap_script_buf *out)
{
	size_t max = ctx_maxlen(ctx);

	if (alen > max)
		alen = max;
	if (blen > max - alen)
		blen = max - alen;
	maptap_script_buf_clear(out);
	if (maptap_script_buf_reserve(out, alen + blen) ||
	    maptap_script_buf_add(out, a, alen) ||
	    maptap_script_buf_add(out, b, blen))
		return nomem(ctx);
	return 0;
}
