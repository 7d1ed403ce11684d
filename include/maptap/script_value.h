/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/script_value.h -- values of the SystemTap script language, the
 * growable string buffer the script runtime writes into, and the limits
 * stap lets a user set with -D.
 *
 * The language has three types (stap(1), "DATA TYPES" in the SystemTap
 * Language Reference): long (64-bit signed integer), string (bytes, no
 * NUL inside, at most MAXSTRINGLEN - 1 of them) and statistics
 * (aggregates, only as global variables or array values).
 */
#ifndef MAPTAP_SCRIPT_VALUE_H
#define MAPTAP_SCRIPT_VALUE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

struct maptap_script_stat;

/* The type of a value.  MAPTAP_SCRIPT_ANY is not a value type: it is the
 * wildcard "*" in an array slice (arr[*, 5]) and is accepted only where a
 * docstring says so. */
enum maptap_script_type {
	MAPTAP_SCRIPT_LONG = 0,
	MAPTAP_SCRIPT_STRING,
	MAPTAP_SCRIPT_STATS,
	MAPTAP_SCRIPT_ANY,
};

/* One value.  A string is S.P[0..S.LEN), NUL-terminated at S.LEN, and is
 * borrowed: whoever filled the struct says how long S.P stays valid.  A
 * stats value points to an aggregate owned by a map or by the caller. */
struct maptap_script_value {
	enum maptap_script_type type;
	union {
		int64_t l;
		struct {
			const char *p;
			size_t len;
		} s;
		const struct maptap_script_stat *stat;
	} u;
};

/* A long value. */
static inline struct maptap_script_value maptap_script_long(int64_t l)
{
	struct maptap_script_value v = { MAPTAP_SCRIPT_LONG, { 0 } };

	v.u.l = l;
	return v;
}

/* A string value borrowing P[0..LEN), which must be NUL-terminated. */
static inline struct maptap_script_value
maptap_script_string(const char *p, size_t len)
{
	struct maptap_script_value v = { MAPTAP_SCRIPT_STRING, { 0 } };

	v.u.s.p = p;
	v.u.s.len = len;
	return v;
}

/* The slice wildcard "*". */
static inline struct maptap_script_value maptap_script_any(void)
{
	struct maptap_script_value v = { MAPTAP_SCRIPT_ANY, { 0 } };

	return v;
}

/* The name of TYPE as stap prints it in messages: "long", "string",
 * "stats" ("unknown" for ANY and out-of-range values).  Static storage. */
const char *maptap_script_type_name(enum maptap_script_type type);

/* The tunables of stap's runtime that a user sets with -D NAME=VALUE
 * (stap(1), "SAFETY AND SECURITY").  Plain data, copied freely. */
struct maptap_script_limits {
	/* MAXSTRINGLEN: size in bytes of a string buffer including its
	 * NUL, so strings hold at most maxstringlen - 1 bytes; longer
	 * results are silently truncated, as in stap.  Default 512. */
	size_t maxstringlen;
	/* MAXMAPENTRIES: entries an array may hold unless its declaration
	 * gives a size (global a[N]).  Default 2048. */
	size_t maxmapentries;
	/* MAXACTION: statements a probe handler may execute.  Default 1000.
	 * Counted by the translator's interpreter, kept here so all -D
	 * limits live in one place. */
	long maxaction;
	/* MAXERRORS: runtime errors tolerated before the script stops; 0
	 * (the default) means the first error stops it. */
	long maxerrors;
	/* HIST_ELISION: empty histogram rows kept before and after a run of
	 * empty rows that is elided with "~"; negative disables elision.
	 * Default 2 (stap runtime/stat-common.c). */
	int hist_elision;
};

/* Fill LIM with stap's defaults (above). */
void maptap_script_limits_default(struct maptap_script_limits *lim);

/* Set the limit NAME (e.g. "MAXSTRINGLEN") from the decimal text VALUE,
 * as -D NAME=VALUE does.  Returns 0; -ENOENT when NAME is not a limit
 * kept here (the caller may know it: stap passes unknown -D names on to
 * the C compiler); -EINVAL (LIM unchanged) when VALUE is missing or not
 * a whole number (decimal, 0x hex or 0 octal) in range: MAXSTRINGLEN >= 2,
 * MAXMAPENTRIES >= 1, MAXACTION >= 1, MAXERRORS >= 0, HIST_ELISION any
 * int. */
int maptap_script_limits_set(struct maptap_script_limits *lim,
			     const char *name, const char *value);

/* A growable byte buffer, always NUL-terminated once anything was put in
 * it.  Zero-initialize; release with maptap_script_buf_free().  Not
 * thread-safe.  The functions that append return 0 or -ENOMEM (the buffer
 * then keeps what it had). */
struct maptap_script_buf {
	char *s;		/* S[0..LEN), NUL at S[LEN]; NULL if unused */
	size_t len;		/* bytes */
	size_t cap;		/* bytes allocated */
};

/* Append P[0..N). */
int maptap_script_buf_add(struct maptap_script_buf *b, const char *p, size_t n);

/* Append the NUL-terminated string S. */
int maptap_script_buf_adds(struct maptap_script_buf *b, const char *s);

/* Append one byte C. */
int maptap_script_buf_addc(struct maptap_script_buf *b, char c);

/* Append C repeated N times. */
int maptap_script_buf_addrep(struct maptap_script_buf *b, char c, size_t n);

/* Append printf-style output. */
int maptap_script_buf_printf(struct maptap_script_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Make sure N more bytes (plus the NUL) fit without reallocating. */
int maptap_script_buf_reserve(struct maptap_script_buf *b, size_t n);

/* Cut the contents to at most LEN bytes (no-op when shorter).  Use with
 * maxstringlen - 1 to apply MAXSTRINGLEN to a string result. */
void maptap_script_buf_truncate(struct maptap_script_buf *b, size_t len);

/* Empty the buffer, keeping its memory; S becomes "" if allocated. */
void maptap_script_buf_clear(struct maptap_script_buf *b);

/* Free the memory and zero the struct. */
void maptap_script_buf_free(struct maptap_script_buf *b);

/* The contents as a NUL-terminated string: "" (static) when nothing was
 * ever added.  Valid until the next change to B. */
static inline const char *
maptap_script_buf_str(const struct maptap_script_buf *b)
{
	return b->s ? b->s : "";
}

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
