/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap.h -- Test Anything Protocol output for maptap's C unit tests.
 *
 * Every unit test prints TAP (https://testanything.org, version 12) so that
 * automake's tap-driver.sh counts each case.  Not thread-safe: a test
 * program reports from one thread.  State lives in this file's one static
 * counter block because a test program is one process with one plan.
 */
#ifndef MAPTAP_TESTSUITE_TAP_H
#define MAPTAP_TESTSUITE_TAP_H

#include <stdbool.h>

/* Report one case: "ok N - NAME" when COND holds, else "not ok N - NAME".
 * Returns COND so callers can stop a dependent sequence early. */
bool tap_ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Report one skipped case with REASON ("ok N # SKIP REASON"). */
void tap_skip(const char *reason, ...)
	__attribute__((format(printf, 1, 2)));

/* Print a diagnostic line ("# ...") that the driver shows but not counts. */
void tap_diag(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Compare two strings; on mismatch print both as diagnostics. */
bool tap_str_eq(const char *got, const char *want, const char *name);

/* Compare two integers; on mismatch print both as diagnostics. */
bool tap_int_eq(long long got, long long want, const char *name);

/* Print the plan "1..N" for the cases reported so far and return the exit
 * status for main(): 0 if every case passed, 1 otherwise. */
int tap_done(void);

#endif
