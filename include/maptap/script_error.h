/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/script_error.h -- a runtime error of a SystemTap-language script.
 *
 * stap reports a runtime error as "ERROR: MSG near FILE:LINE:COL ..."; the
 * script runtime library produces MSG (the same words stap's runtime and
 * generated code use, e.g. "division by 0"), the translator adds the
 * source position and the probe point.  Every function of the script
 * runtime that can raise a script error takes a struct maptap_script_error
 * and returns a negative errno; the errno says the class (what the C
 * caller branches on), the struct says the message (what the user reads).
 * Functions write the struct only when they fail, so a caller on a hot
 * path need not clear it (about 512 bytes) before each call.
 */
#ifndef MAPTAP_SCRIPT_ERROR_H
#define MAPTAP_SCRIPT_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

/* Longest message kept, in bytes including the NUL; longer ones are
 * truncated.  stap's own messages are short (MAXSTRINGLEN at most). */
#define MAPTAP_SCRIPT_ERRMSG_MAX 512

/* The class of a script runtime error.  The translator maps all of them
 * to stap's error model (error probes, skip end probes, exit status 1);
 * MAPTAP_SCRIPT_E_NONE means "no error". */
enum maptap_script_errcode {
	MAPTAP_SCRIPT_E_NONE = 0,
	MAPTAP_SCRIPT_E_DIVZERO,	/* "division by 0": -EDOM */
	MAPTAP_SCRIPT_E_OVERFLOW,	/* MAXMAPENTRIES reached: -E2BIG */
	MAPTAP_SCRIPT_E_EMPTY_AGG,	/* @min of nothing etc.: -ENODATA */
	MAPTAP_SCRIPT_E_FORMAT,	/* bad printf format or args: -EINVAL */
	MAPTAP_SCRIPT_E_ARG,	/* built-in arg out of range: -EINVAL */
	MAPTAP_SCRIPT_E_REGEX,	/* pattern did not compile: -EINVAL */
	MAPTAP_SCRIPT_E_MEMORY,	/* %m/%M memory unreadable: -EFAULT */
	MAPTAP_SCRIPT_E_NOMEM,	/* host allocation failed: -ENOMEM */
};

/* One error: a class and stap's message text, without "ERROR: " and
 * without position.  Zero-initialize (or maptap_script_error_clear()) to
 * mean "no error".  Not thread-safe; owned by the caller, usually one per
 * probe-handler context. */
struct maptap_script_error {
	enum maptap_script_errcode code;
	char msg[MAPTAP_SCRIPT_ERRMSG_MAX];
};

/* Reset ERR to "no error". */
void maptap_script_error_clear(struct maptap_script_error *err);

/* Record an error of class CODE with a printf-style message in ERR (ERR
 * may be NULL: then nothing is recorded).  Returns the negative errno
 * that belongs to CODE (see the enum), so that callers can write
 * "return maptap_script_error_set(err, ...);". */
int maptap_script_error_set(struct maptap_script_error *err,
			    enum maptap_script_errcode code,
			    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The negative errno that belongs to CODE (0 for MAPTAP_SCRIPT_E_NONE). */
int maptap_script_errcode_errno(enum maptap_script_errcode code);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
