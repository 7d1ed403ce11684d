/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* value.c -- type names, -D limits and the growable string buffer. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <maptap/script_value.h>

const char *maptap_script_type_name(enum maptap_script_type type)
{
	switch (type) {
	case MAPTAP_SCRIPT_LONG:
		return "long";
	case MAPTAP_SCRIPT_STRING:
		return "string";
	case MAPTAP_SCRIPT_STATS:
		return "stats";
	case MAPTAP_SCRIPT_ANY:
		break;
	}
	return "unknown";
}

void maptap_script_limits_default(struct maptap_script_limits *lim)
{
	/* stap(1), "SAFETY AND SECURITY", and runtime/stat-common.c */
	lim->maxstringlen = 512;
	lim->maxmapentries = 2048;
	lim->maxaction = 1000;
	lim->maxerrors = 0;
	lim->hist_elision = 2;
}

static int parse_long(const char *value, long min, long *out)
{
	char *end;
	long v;

	if (!value || !*value)
		return -EINVAL;
	errno = 0;
	v = strtol(value, &end, 0);
	if (errno || *end || v < min)
		return -EINVAL;
	*out = v;
	return 0;
}

int maptap_script_limits_set(struct maptap_script_limits *lim,
			     const char *name, const char *value)
{
	long v;
	int rc;

	if (!strcmp(name, "MAXSTRINGLEN")) {
		rc = parse_long(value, 2, &v);
		if (!rc)
			lim->maxstringlen = v;
	} else if (!strcmp(name, "MAXMAPENTRIES")) {
		rc = parse_long(value, 1, &v);
		if (!rc)
			lim->maxmapentries = v;
	} else if (!strcmp(name, "MAXACTION")) {
		rc = parse_long(value, 1, &v);
		if (!rc)
			lim->maxaction = v;
	} else if (!strcmp(name, "MAXERRORS")) {
		rc = parse_long(value, 0, &v);
		if (!rc)
			lim->maxerrors = v;
	} else if (!strcmp(name, "HIST_ELISION")) {
		rc = parse_long(value, LONG_MIN, &v);
		if (!rc && (v < INT_MIN || v > INT_MAX))
			rc = -EINVAL;
		if (!rc)
			lim->hist_elision = v;
	} else {
		rc = -ENOENT;
	}
	return rc;
}

int maptap_script_buf_reserve(struct maptap_script_buf *b, size_t n)
{
	size_t need, cap;
	char *s;

	if (n > SIZE_MAX - b->len - 1)
		return -ENOMEM;
	need = b->len + n + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	s = realloc(b->s, cap);
	if (!s)
		return -ENOMEM;
	if (!b->s)
		s[0] = '\0';
	b->s = s;
	b->cap = cap;
	return 0;
}

int maptap_script_buf_add(struct maptap_script_buf *b, const char *p, size_t n)
{
	int rc = maptap_script_buf_reserve(b, n);

	if (rc)
		return rc;
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

int maptap_script_buf_adds(struct maptap_script_buf *b, const char *s)
{
	return maptap_script_buf_add(b, s, strlen(s));
}

int maptap_script_buf_addc(struct maptap_script_buf *b, char c)
{
	int rc = maptap_script_buf_reserve(b, 1);

	if (rc)
		return rc;
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
	return 0;
}

int maptap_script_buf_addrep(struct maptap_script_buf *b, char c, size_t n)
{
	int rc = maptap_script_buf_reserve(b, n);

	if (rc)
		return rc;
	memset(b->s + b->len, c, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

int maptap_script_buf_printf(struct maptap_script_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	rc = maptap_script_buf_reserve(b, n);
	if (rc)
		return rc;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
	return 0;
}

void maptap_script_buf_truncate(struct maptap_script_buf *b, size_t len)
{
	if (b->len <= len)
		return;
	b->len = len;
	b->s[len] = '\0';
}

void maptap_script_buf_clear(struct maptap_script_buf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

void maptap_script_buf_free(struct maptap_script_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = 0;
	b->cap = 0;
}
