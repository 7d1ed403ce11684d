/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap.c -- TAP output for the C unit tests; see tap.h. */
#include "tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static struct {
	int n;
	int failed;
} tap;

bool tap_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	tap.n++;
	if (!cond)
		tap.failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap.n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

void tap_skip(const char *reason, ...)
{
	va_list ap;

	tap.n++;
	printf("ok %d # SKIP ", tap.n);
	va_start(ap, reason);
	vprintf(reason, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

bool tap_str_eq(const char *got, const char *want, const char *name)
{
	bool same = got && want ? strcmp(got, want) == 0 : got == want;

	if (!tap_ok(same, "%s", name)) {
		tap_diag("got:  %s", got ? got : "(null)");
		tap_diag("want: %s", want ? want : "(null)");
	}
	return same;
}

bool tap_int_eq(long long got, long long want, const char *name)
{
	if (!tap_ok(got == want, "%s", name)) {
		tap_diag("got:  %lld", got);
		tap_diag("want: %lld", want);
		return false;
	}
	return true;
}

int tap_done(void)
{
	printf("1..%d\n", tap.n);
	fflush(stdout);
	return tap.failed ? 1 : 0;
}
