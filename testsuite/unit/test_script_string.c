/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_script_string.c -- string, conversion, time, random and
 * arithmetic built-ins with stap's semantics (tapset/string.stp and
 * friends, runtime/linux/string.c for the escapes). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <maptap/script_ctx.h>
#include <maptap/script_string.h>
#include "../lib/tap.h"

static struct maptap_script_ctx *ctx;
static struct maptap_script_buf out;

static void test_substr(void)
{
	const char *s = "hello world";
	size_t n = strlen(s);

	tap_int_eq(maptap_script_strlen(s, n), 11, "strlen counts bytes");
	tap_int_eq(maptap_script_strlen("\xc3\xa9", 2), 2, "strlen of UTF-8 e-acute is 2");
	maptap_script_substr(ctx, s, n, 6, 5, &out);
	tap_str_eq(out.s, "world", "substr(s, 6, 5)");
	maptap_script_substr(ctx, s, n, 6, 100, &out);
	tap_str_eq(out.s, "world", "substr past the end is cut");
	maptap_script_substr(ctx, s, n, 11, 1, &out);
	tap_str_eq(out.s, "", "substr at the end: \"\"");
	maptap_script_substr(ctx, s, n, -1, 3, &out);
	tap_str_eq(out.s, "", "substr from a negative start: \"\"");
	maptap_script_substr(ctx, s, n, 0, -2, &out);
	tap_str_eq(out.s, "", "substr with a negative length: \"\"");
	maptap_script_substr(ctx, s, n, 0, INT64_MAX, &out);
	tap_str_eq(out.s, s, "substr with a huge length");
}

static void test_search(void)
{
	int64_t v = -1;
	int rc;

	rc = maptap_script_stringat(ctx, "abc", 3, 1, &v);
	tap_ok(rc == 0 && v == 'b', "stringat(\"abc\", 1) is 'b'");
	rc = maptap_script_stringat(ctx, "\xff", 1, 0, &v);
	tap_ok(rc == 0 && v == 255, "stringat returns the byte unsigned");
	rc = maptap_script_stringat(ctx, "abc", 3, 3, &v);
	tap_ok(rc == -EINVAL &&
	       !strcmp(maptap_script_ctx_error(ctx)->msg, "Position out of bounds"),
	       "stringat past the end: \"Position out of bounds\"");
	tap_int_eq(maptap_script_isinstr("hello", "ell"), 1, "isinstr found");
	tap_int_eq(maptap_script_isinstr("hello", "elo"), 0, "isinstr not found");
	tap_int_eq(maptap_script_isinstr("hello", ""), 1, "isinstr of \"\"");
	tap_int_eq(maptap_script_strpos("hello", "l"), 2, "strpos first hit");
	tap_int_eq(maptap_script_strpos("hello", "z"), -1, "strpos miss is -1");
	tap_int_eq(maptap_script_isdigit("7up"), 1, "isdigit(\"7up\")");
	tap_int_eq(maptap_script_isdigit("up7"), 0, "isdigit(\"up7\")");
	tap_int_eq(maptap_script_isdigit(""), 0, "isdigit(\"\")");
}

static void test_replace_case(void)
{
	maptap_script_str_replace(ctx, "a.b.c", ".", "::", &out);
	tap_str_eq(out.s, "a::b::c", "str_replace every hit");
	maptap_script_str_replace(ctx, "aaa", "aa", "b", &out);
	tap_str_eq(out.s, "ba", "str_replace left to right, no overlap");
	maptap_script_str_replace(ctx, "abc", "", "x", &out);
	tap_str_eq(out.s, "abc", "str_replace of \"\" changes nothing");
	maptap_script_str_replace(ctx, "abc", "abc", "", &out);
	tap_str_eq(out.s, "", "str_replace to nothing");
	maptap_script_toupper(ctx, "MixEd 1-z", 9, &out);
	tap_str_eq(out.s, "MIXED 1-Z", "toupper");
	maptap_script_tolower(ctx, "MixEd 1-Z", 9, &out);
	tap_str_eq(out.s, "mixed 1-z", "tolower");
}

static int64_t strtol_of(const char *s, int64_t base)
{
	int64_t v = -999;

	maptap_script_strtol(ctx, s, base, &v);
	return v;
}

static void test_strtol(void)
{
	tap_int_eq(strtol_of("42", 10), 42, "strtol decimal");
	tap_int_eq(strtol_of("-42", 10), -42, "strtol negative");
	tap_int_eq(strtol_of("12abc", 10), 12, "strtol stops at a non-digit");
	tap_int_eq(strtol_of("0x1f", 0), 31, "base 0: 0x is hex");
	tap_int_eq(strtol_of("017", 0), 15, "base 0: leading 0 is octal");
	tap_int_eq(strtol_of("0x", 0), 0, "base 0: 0x without a digit is octal 0");
	tap_int_eq(strtol_of("ff", 16), 255, "base 16");
	tap_int_eq(strtol_of("0xff", 16), 255, "base 16 skips 0x");
	tap_int_eq(strtol_of("z", 36), 35, "base 36");
	tap_int_eq(strtol_of("101", 2), 5, "base 2");
	tap_int_eq(strtol_of(" 5", 10), 0, "no white space skipped");
	tap_int_eq(strtol_of("", 10), 0, "empty string is 0");
	tap_int_eq(strtol_of("18446744073709551615", 10), -1, "overflow wraps");
}

static void check_text(const char *in, size_t inlen, int64_t len, int quoted,
		       const char *want, const char *name)
{
	maptap_script_text_strn(ctx, in, inlen, len, quoted, &out);
	tap_str_eq(maptap_script_buf_str(&out), want, name);
}

static void test_text(void)
{
	const char *s = "a\n\"\\\t\x01\x7f";

	check_text(s, strlen(s), 0, 0, "a\\n\\\"\\\\\\t\\001\\177",
		   "text_str: C escapes and octal");
	check_text("\xc3\xa9t\xc3\xa9", 5, 0, 0, "\\u00e9t\\u00e9",
		   "text_str: UTF-8 as \\u");
	check_text("\xf0\x9f\x98\x80", 4, 0, 0, "\\U0001f600",
		   "text_str: astral plane as \\U");
	check_text("\xff\xc3(", 3, 0, 0, "\\377\\303(",
		   "text_str: invalid UTF-8 bytes as octal");
	check_text("\xc0\x80", 2, 0, 0, "\\300\\200",
		   "text_str: overlong encoding stays bytes");
	check_text("ab\ncd", 5, 3, 0, "ab", "text_strn: no partial escape");
	check_text("abc", 3, 0, 1, "\"abc\"", "string_quoted");
	check_text("abcdefgh", 8, 6, 1, "\"a\"...",
		   "text_strn quoted and cut: \"...\" ends at the limit");
	check_text("abc", 3, 5, 1, "\"abc\"", "quoted exactly fitting");
	check_text("", 0, 0, 1, "\"\"", "string_quoted of \"\"");
}

static void test_tokenize(void)
{
	maptap_script_tokenize(ctx, "  one, two,,three ", " ,", &out);
	tap_str_eq(out.s, "one", "tokenize: first token");
	maptap_script_tokenize(ctx, "", " ,", &out);
	tap_str_eq(out.s, "two", "tokenize: next, empty tokens skipped");
	maptap_script_tokenize(ctx, "", " ,", &out);
	tap_str_eq(out.s, "three", "tokenize: third");
	maptap_script_tokenize(ctx, "", " ,", &out);
	tap_str_eq(out.s, "", "tokenize: exhausted");
	maptap_script_tokenize(ctx, "", " ,", &out);
	tap_str_eq(out.s, "", "tokenize: stays exhausted");
	maptap_script_tokenize(ctx, "x:y", ":", &out);
	tap_str_eq(out.s, "x", "tokenize: a new string restarts");
	maptap_script_tokenize(ctx, "", "", &out);
	tap_str_eq(out.s, "y", "tokenize: empty delimiter returns the rest");
}

static void test_time(void)
{
	int64_t s, ms, us, ns;

	maptap_script_ctime(ctx, 0, &out);
	tap_str_eq(out.s, "Thu Jan  1 00:00:00 1970", "ctime(0)");
	maptap_script_ctime(ctx, 1000000000, &out);
	tap_str_eq(out.s, "Sun Sep  9 01:46:40 2001", "ctime(1e9)");
	maptap_script_ctime(ctx, -1, &out);
	tap_str_eq(out.s, "Wed Dec 31 23:59:59 1969", "ctime(-1)");
	maptap_script_ctime(ctx, INT64_MAX, &out);
	tap_str_eq(out.s, "<invalid time>", "ctime of an absurd time");
	s = maptap_script_gettimeofday_s();
	ms = maptap_script_gettimeofday_ms();
	us = maptap_script_gettimeofday_us();
	ns = maptap_script_gettimeofday_ns();
	tap_ok(s > 1500000000 && ms / 1000 >= s && us / 1000 >= ms &&
	       ns / 1000 >= us && ms / 1000 - s < 5,
	       "gettimeofday_s/ms/us/ns agree and move forward");
}

static void test_random(void)
{
	int seen[4] = { 0 }, i, bad = 0;
	int64_t v;

	for (i = 0; i < 1000; i++) {
		if (maptap_script_randint(ctx, 4, &v) || v < 0 || v > 3)
			bad++;
		else
			seen[v]++;
	}
	tap_ok(!bad && seen[0] > 150 && seen[1] > 150 && seen[2] > 150 &&
	       seen[3] > 150, "randint(4): 1000 draws spread over 0..3");
	tap_int_eq(maptap_script_randint(ctx, 0, &v), -EINVAL, "randint(0) refused");
	tap_int_eq(maptap_script_randint(ctx, 1048577, &v), -EINVAL,
		   "randint above 1048576 refused");
}

static void test_arith(void)
{
	int64_t v = 0;
	int rc;

	rc = maptap_script_div(ctx, 7, 0, &v);
	tap_ok(rc == -EDOM &&
	       !strcmp(maptap_script_ctx_error(ctx)->msg, "division by 0"),
	       "7 / 0: \"division by 0\"");
	rc = maptap_script_mod(ctx, 7, 0, &v);
	tap_int_eq(rc, -EDOM, "7 %% 0 is the same error");
	maptap_script_div(ctx, -7, 2, &v);
	tap_int_eq(v, -3, "-7 / 2 truncates");
	maptap_script_mod(ctx, -7, 2, &v);
	tap_int_eq(v, -1, "-7 %% 2 keeps the sign");
	maptap_script_div(ctx, INT64_MIN, -1, &v);
	tap_int_eq(v, INT64_MIN, "INT64_MIN / -1 wraps, no trap");
	maptap_script_mod(ctx, INT64_MIN, -1, &v);
	tap_int_eq(v, 0, "INT64_MIN %% -1 is 0");
}

static void test_maxstringlen(void)
{
	struct maptap_script_limits lim;
	struct maptap_script_ctx *small;

	maptap_script_limits_default(&lim);
	lim.maxstringlen = 8;
	maptap_script_ctx_new(&lim, 1, &small);
	maptap_script_concat(small, "abcde", 5, "fghij", 5, &out);
	tap_str_eq(out.s, "abcdefg", "concat cut to MAXSTRINGLEN - 1");
	maptap_script_str_replace(small, "aaaa", "a", "xyz", &out);
	tap_str_eq(out.s, "xyzxyzx", "str_replace cut to MAXSTRINGLEN - 1");
	maptap_script_substr(small, "0123456789", 10, 1, 100, &out);
	tap_str_eq(out.s, "1234567", "substr cut to MAXSTRINGLEN - 1");
	maptap_script_text_strn(small, "\n\n\n\n", 4, 0, 0, &out);
	tap_str_eq(out.s, "\\n\\n\\n", "text_str: 7 bytes hold three escapes");
	maptap_script_concat(ctx, "ab", 2, "cd", 2, &out);
	tap_str_eq(out.s, "abcd", "concat");
	maptap_script_ctx_free(small);
}

int main(void)
{
	maptap_script_ctx_new(NULL, 12345, &ctx);
	test_substr();
	test_search();
	test_replace_case();
	test_strtol();
	test_text();
	test_tokenize();
	test_time();
	test_random();
	test_arith();
	test_maxstringlen();
	maptap_script_buf_free(&out);
	maptap_script_ctx_free(ctx);
	return tap_done();
}
