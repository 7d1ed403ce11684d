/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_script_value.c -- the string buffer, -D limits, type names and
 * the error type. */
#include <errno.h>
#include <string.h>
#include <maptap/script_error.h>
#include <maptap/script_value.h>
#include "../lib/tap.h"

static void test_buf(void)
{
	struct maptap_script_buf b = { 0 };
	int i, rc = 0;

	tap_str_eq(maptap_script_buf_str(&b), "", "an unused buffer reads as \"\"");
	maptap_script_buf_adds(&b, "ab");
	maptap_script_buf_addc(&b, 'c');
	maptap_script_buf_addrep(&b, '-', 3);
	maptap_script_buf_printf(&b, "%d|%s", 42, "x");
	tap_str_eq(b.s, "abc---42|x", "add, addc, addrep, printf");
	tap_int_eq(b.len, 10, "length in bytes");
	maptap_script_buf_truncate(&b, 3);
	tap_str_eq(b.s, "abc", "truncate");
	maptap_script_buf_truncate(&b, 30);
	tap_str_eq(b.s, "abc", "truncate longer is a no-op");
	maptap_script_buf_add(&b, "\0z", 2);
	tap_ok(b.len == 5 && b.s[3] == '\0' && b.s[4] == 'z' && b.s[5] == '\0',
	       "bytes with a NUL inside, still terminated");
	maptap_script_buf_clear(&b);
	for (i = 0; i < 10000 && !rc; i++)
		rc = maptap_script_buf_printf(&b, "%04d", i);
	tap_ok(!rc && b.len == 40000 && !memcmp(b.s + 39996, "9999", 4),
	       "grows to 40000 bytes");
	maptap_script_buf_free(&b);
	tap_ok(!b.s && !b.len && !b.cap, "free zeroes the buffer");
}

static void test_limits(void)
{
	struct maptap_script_limits lim;

	maptap_script_limits_default(&lim);
	tap_ok(lim.maxstringlen == 512 && lim.maxmapentries == 2048 &&
	       lim.maxaction == 1000 && lim.maxerrors == 0 &&
	       lim.hist_elision == 2, "stap's defaults");
	tap_int_eq(maptap_script_limits_set(&lim, "MAXSTRINGLEN", "100"), 0,
		   "-DMAXSTRINGLEN=100");
	tap_int_eq(lim.maxstringlen, 100, "applied");
	tap_int_eq(maptap_script_limits_set(&lim, "MAXMAPENTRIES", "0x10"), 0,
		   "-DMAXMAPENTRIES=0x10");
	tap_int_eq(lim.maxmapentries, 16, "hex accepted");
	tap_int_eq(maptap_script_limits_set(&lim, "HIST_ELISION", "-1"), 0,
		   "-DHIST_ELISION=-1");
	tap_int_eq(lim.hist_elision, -1, "negative elision kept");
	tap_int_eq(maptap_script_limits_set(&lim, "MAXACTION", "0"), -EINVAL,
		   "MAXACTION=0 refused");
	tap_int_eq(maptap_script_limits_set(&lim, "MAXSTRINGLEN", "12x"), -EINVAL,
		   "garbage refused");
	tap_int_eq(maptap_script_limits_set(&lim, "MAXERRORS", NULL), -EINVAL,
		   "a missing value refused");
	tap_int_eq(maptap_script_limits_set(&lim, "STP_NO_OVERLOAD", "1"), -ENOENT,
		   "unknown names are the caller's");
	tap_int_eq(lim.maxstringlen, 100, "failed sets change nothing");
}

static void test_error(void)
{
	struct maptap_script_error err;
	char big[1000];

	tap_int_eq(maptap_script_error_set(&err, MAPTAP_SCRIPT_E_DIVZERO,
					   "division by %d", 0), -EDOM,
		   "division class is -EDOM");
	tap_str_eq(err.msg, "division by 0", "formatted message");
	tap_int_eq(maptap_script_error_set(NULL, MAPTAP_SCRIPT_E_OVERFLOW, "x"),
		   -E2BIG, "NULL error still gives the errno");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	maptap_script_error_set(&err, MAPTAP_SCRIPT_E_ARG, "%s", big);
	tap_int_eq(strlen(err.msg), MAPTAP_SCRIPT_ERRMSG_MAX - 1, "long messages cut");
	maptap_script_error_clear(&err);
	tap_ok(err.code == MAPTAP_SCRIPT_E_NONE && !err.msg[0], "clear");
	tap_str_eq(maptap_script_type_name(MAPTAP_SCRIPT_STRING), "string", "type name");
	tap_str_eq(maptap_script_type_name(MAPTAP_SCRIPT_STATS), "stats", "stats name");
}

int main(void)
{
	test_buf();
	test_limits();
	test_error();
	return tap_done();
}
