/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_script_regex.c -- =~, matched(n), ngroups() and the pattern cache. */
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <maptap/script_ctx.h>
#include <maptap/script_regex.h>
#include "../lib/tap.h"

int main(void)
{
	struct maptap_script_buf b = { 0 };
	struct maptap_script_ctx *ctx;
	const char *re = "([a-z]+)=([0-9]+)(x)?";
	int i, ok = 1;

	maptap_script_ctx_new(NULL, 1, &ctx);
	tap_int_eq(maptap_script_regex_match(ctx, "key: pid=1234;", re), 1,
		   "=~ finds a match anywhere in the string");
	tap_int_eq(maptap_script_regex_ngroups(ctx), 4, "ngroups counts group 0");
	maptap_script_regex_matched(ctx, 0, &b);
	tap_str_eq(b.s, "pid=1234", "matched(0) is the whole match");
	maptap_script_regex_matched(ctx, 1, &b);
	tap_str_eq(b.s, "pid", "matched(1)");
	maptap_script_regex_matched(ctx, 2, &b);
	tap_str_eq(b.s, "1234", "matched(2)");
	maptap_script_regex_matched(ctx, 3, &b);
	tap_str_eq(maptap_script_buf_str(&b), "", "an unused group is \"\"");
	tap_int_eq(maptap_script_regex_matched(ctx, 4, &b), -EINVAL,
		   "matched(4) is out of range");
	tap_int_eq(maptap_script_regex_match(ctx, "no digits", re), 0, "no match");
	tap_int_eq(maptap_script_regex_ngroups(ctx), 0, "a failed match clears groups");
	tap_int_eq(maptap_script_regex_matched(ctx, 0, &b), -EINVAL,
		   "matched() after a failed match is an error");
	tap_int_eq(maptap_script_regex_match(ctx, "abc", "^a.c$"), 1, "anchors");
	tap_int_eq(maptap_script_regex_match(ctx, "abcd", "^a.c$"), 0, "anchors refuse");
	tap_int_eq(maptap_script_regex_match(ctx, "x", "a|x"), 1, "alternation (ERE)");
	tap_int_eq(maptap_script_regex_check(ctx, "(unclosed"), -EINVAL,
		   "a bad pattern is refused");
	tap_ok(!strncmp(maptap_script_ctx_error(ctx)->msg, "regex error: ", 13),
	       "with \"regex error: ...\" (%s)", maptap_script_ctx_error(ctx)->msg);
	/* many patterns: the cache grows and keeps answering right */
	for (i = 0; i < 200; i++) {
		char pat[32], str[32];

		snprintf(pat, sizeof(pat), "^p%d$", i);
		snprintf(str, sizeof(str), "p%d", i);
		if (maptap_script_regex_match(ctx, str, pat) != 1 ||
		    maptap_script_regex_match(ctx, "p", pat) != 0)
			ok = 0;
	}
	for (i = 0; i < 200; i++) {
		char pat[32], str[32];

		snprintf(pat, sizeof(pat), "^p%d$", i);
		snprintf(str, sizeof(str), "p%d", i);
		if (maptap_script_regex_match(ctx, str, pat) != 1)
			ok = 0;
	}
	tap_ok(ok, "200 cached patterns match again");
	maptap_script_buf_free(&b);
	maptap_script_ctx_free(ctx);
	return tap_done();
}
