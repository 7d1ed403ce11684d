/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/script_regex.h -- the =~ and !~ operators and matched(n) of the
 * SystemTap script language.
 *
 * stap compiles regular expressions to DFAs at translation time and
 * accepts POSIX extended syntax (SystemTap Language Reference, "Regular
 * expression matching"); maptap uses POSIX regcomp(3)/regexec(3) with
 * REG_EXTENDED and keeps every compiled pattern in a cache owned by the
 * context, so a probe handler compiles each pattern once.  The groups of
 * the last successful match are kept in the context for matched(n) and
 * ngroups().  Not thread-safe per context.
 */
#ifndef MAPTAP_SCRIPT_REGEX_H
#define MAPTAP_SCRIPT_REGEX_H

#include <stdint.h>
#include <maptap/script_ctx.h>
#include <maptap/script_value.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

/* Most groups kept for matched(n), group 0 (the whole match) included. */
#define MAPTAP_SCRIPT_REGEX_MAX_GROUPS 10

/* Compile PATTERN into CTX's cache without matching (the translator's
 * pass-2 check).  Returns 0; -EINVAL with the context's error set to
 * "regex error: <regerror(3) text>" when PATTERN does not compile;
 * -ENOMEM. */
int maptap_script_regex_check(struct maptap_script_ctx *ctx,
			      const char *pattern);

/* STR =~ PATTERN: returns 1 on a match, 0 on none (STR !~ PATTERN is the
 * negation); -EINVAL / -ENOMEM as regex_check().  A match replaces the
 * groups matched(n) reads; a failed match clears them. */
int maptap_script_regex_match(struct maptap_script_ctx *ctx, const char *str,
			      const char *pattern);

/* matched(n): group N of the last successful match (0: the whole match)
 * into OUT ("" when the group did not participate).  Returns 0; -EINVAL
 * with the context's error set ("matched(N) without a successful match",
 * "matched(N) out of range: ...") when there was no successful match or
 * N is not a group of the pattern (maptap's wording: stap's differs
 * between versions); -ENOMEM. */
int maptap_script_regex_matched(struct maptap_script_ctx *ctx, int64_t n,
				struct maptap_script_buf *out);

/* ngroups(): groups of the last successful match, group 0 included; 0
 * when there was none. */
int64_t maptap_script_regex_ngroups(struct maptap_script_ctx *ctx);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
