/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/script_string.h -- the built-in string, conversion, time and
 * random functions of the SystemTap script language that need no traced
 * process (stap's tapset/string.stp, tapset/conversions.stp,
 * tapset/tokenize.stp, tapset/ctime.stp, tapset/random.stp, and the
 * gettimeofday_* functions).
 *
 * Strings are bytes, as in stap: lengths and positions count bytes, not
 * characters.  Functions returning a string append it to a caller's
 * struct maptap_script_buf after clearing it, and cut it to the
 * context's MAXSTRINGLEN - 1 bytes, as stap's fixed-size string buffers
 * do.  Functions that can fail record stap's message in
 * maptap_script_ctx_error(CTX) and return a negative errno.  Every
 * function needs a context only for its limits or state; none keeps
 * global state.  An OUT buffer must not hold any of the input strings
 * (they may not alias).  Not thread-safe per context.
 */
#ifndef MAPTAP_SCRIPT_STRING_H
#define MAPTAP_SCRIPT_STRING_H

#include <stddef.h>
#include <stdint.h>
#include <maptap/script_ctx.h>
#include <maptap/script_value.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

/* strlen(s): bytes in S (S[0..LEN) is the string). */
int64_t maptap_script_strlen(const char *s, size_t len);

/* substr(str, start, length): the LENGTH bytes of STR from byte START
 * (0-based), fewer when STR ends first; "" when START is outside STR or
 * LENGTH <= 0.  Returns 0 or -ENOMEM. */
int maptap_script_substr(struct maptap_script_ctx *ctx, const char *s,
			 size_t len, int64_t start, int64_t length,
			 struct maptap_script_buf *out);

/* stringat(str, pos): the byte at POS as an unsigned value.  Returns 0
 * and *OUT; -EINVAL with the error "Position out of bounds" when POS is
 * outside STR (stap >= 2.3). */
int maptap_script_stringat(struct maptap_script_ctx *ctx, const char *s,
			   size_t len, int64_t pos, int64_t *out);

/* isinstr(s1, s2): 1 when S2 occurs in S1 (always for S2 ""), else 0. */
int64_t maptap_script_isinstr(const char *s1, const char *s2);

/* strpos(s1, s2): byte index of the first S2 in S1, or -1; 0 for S2 "". */
int64_t maptap_script_strpos(const char *s1, const char *s2);

/* str_replace(prnt, srch, rplc): PRNT with every non-overlapping SRCH,
 * left to right, replaced by RPLC; PRNT unchanged when SRCH is "".
 * Returns 0 or -ENOMEM. */
int maptap_script_str_replace(struct maptap_script_ctx *ctx, const char *prnt,
			      const char *srch, const char *rplc,
			      struct maptap_script_buf *out);

/* strtol(str, base): the number at the start of STR in BASE, as the
 * kernel's simple_strtol() that stap calls: an optional '-', then for
 * BASE 0 "0x" + hex digit means hex, a leading "0" octal, else decimal;
 * BASE 16 also skips a "0x"; digits are read until the first byte that
 * is not a digit below BASE (letters are 10..35); 0 when there is none;
 * no white space is skipped; overflow wraps; no base is an error.
 * Returns 0 and *OUT. */
int maptap_script_strtol(struct maptap_script_ctx *ctx, const char *s,
			 int64_t base, int64_t *out);

/* isdigit(str): 1 when the first byte of STR is '0'..'9', else 0. */
int64_t maptap_script_isdigit(const char *s);

/* toupper(s) / tolower(s): S with ASCII letters converted.  Return 0 or
 * -ENOMEM. */
int maptap_script_toupper(struct maptap_script_ctx *ctx, const char *s,
			  size_t len, struct maptap_script_buf *out);
int maptap_script_tolower(struct maptap_script_ctx *ctx, const char *s,
			  size_t len, struct maptap_script_buf *out);

/* text_strn(input, len, quoted) -- and text_str(s) as
 * text_strn(s, 0, 0), string_quoted(s) as text_strn(s, 0, 1): INPUT
 * with bytes that are not printable ASCII escaped as stap's runtime does
 * (runtime/linux/string.c, _stp_text_str): \a \b \f \n \r \t \v \" \\,
 * valid UTF-8 sequences as \uXXXX or \UXXXXXXXX, any other byte as \ooo.
 * The result holds at most LEN bytes (LEN <= 0 or above MAXSTRINGLEN - 1:
 * MAXSTRINGLEN - 1), never a partial escape; QUOTED puts it between
 * double quotes and, when INPUT did not fit, ends it with "\"..." .
 * Returns 0 or -ENOMEM. */
int maptap_script_text_strn(struct maptap_script_ctx *ctx, const char *s,
			    size_t slen, int64_t len, int quoted,
			    struct maptap_script_buf *out);

/* The quoted text of a buffer, as stap's user_buffer_quoted() and
 * kernel_buffer_quoted() give it (_stp_text_str() with its buffer flag):
 * like text_strn(S, LEN, 1) over all SLEN bytes of S, except that a NUL
 * byte is escaped as \000 and does not end the input.  Returns 0 or
 * -ENOMEM. */
int maptap_script_text_buffer(struct maptap_script_ctx *ctx, const char *s,
			      size_t slen, int64_t len,
			      struct maptap_script_buf *out);

/* tokenize(input, delim): stap's stateful tokenizer, its state kept in
 * CTX.  A non-empty INPUT starts a new string (copied); INPUT "" goes on
 * with the stored one.  Returns the next non-empty token separated by any
 * byte of DELIM (via OUT), or "" when none is left.  Returns 0 or
 * -ENOMEM. */
int maptap_script_tokenize(struct maptap_script_ctx *ctx, const char *input,
			   const char *delim, struct maptap_script_buf *out);

/* ctime(epochsecs): the UTC time EPOCHSECS seconds after 1970 in the
 * form "Wed Jun 30 21:49:08 1993" (asctime()'s layout without its
 * newline, day of month padded with a space, as stap's tapset/ctime.stp);
 * "<invalid time>" when the year does not fit gmtime_r(3).  Returns 0 or
 * -ENOMEM. */
int maptap_script_ctime(struct maptap_script_ctx *ctx, int64_t epochsecs,
			struct maptap_script_buf *out);

/* gettimeofday_s/ms/us/ns(): wall-clock time since the epoch in seconds,
 * milliseconds, microseconds or nanoseconds (CLOCK_REALTIME). */
int64_t maptap_script_gettimeofday_s(void);
int64_t maptap_script_gettimeofday_ms(void);
int64_t maptap_script_gettimeofday_us(void);
int64_t maptap_script_gettimeofday_ns(void);

/* randint(n): a uniformly distributed integer in [0, N) from CTX's
 * generator (xorshift64*, seeded by maptap_script_ctx_new()).  Returns 0
 * and *OUT; -EINVAL with "randint: range N out of bounds (1..1048576)"
 * when N is outside 1..1048576, stap's limit (tapset/random.stp). */
int maptap_script_randint(struct maptap_script_ctx *ctx, int64_t n,
			  int64_t *out);

/* Integer division and remainder with stap's runtime error: -EDOM with
 * "division by 0" when B is 0.  INT64_MIN / -1 gives INT64_MIN (and % 0),
 * where C would trap. */
int maptap_script_div(struct maptap_script_ctx *ctx, int64_t a, int64_t b,
		      int64_t *out);
int maptap_script_mod(struct maptap_script_ctx *ctx, int64_t a, int64_t b,
		      int64_t *out);

/* Concatenate A and B (the "." operator) into OUT, cut to MAXSTRINGLEN -
 * 1 bytes.  OUT may not alias A or B.  Returns 0 or -ENOMEM. */
int maptap_script_concat(struct maptap_script_ctx *ctx, const char *a,
			 size_t alen, const char *b, size_t blen,
			 struct maptap_script_buf *out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
