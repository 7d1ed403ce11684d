/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_script_stat.c -- aggregates and histogram printing.
 *
 * Expected histograms follow the layout of stap's runtime
 * (runtime/stat-common.c): "value |" + 50 dashes + " count", rows of
 * "<value> |<bar><count>" where the count ends in column
 * val_space + 2 + 50 + 1 + cnt_space, and "~" rows for elided runs.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <maptap/script_stat.h>
#include "../lib/tap.h"

static const char HEADER5[] =
	"value |-------------------------------------------------- count\n";

/* One row: LABEL (already right-aligned), BARS '@', then COUNT right-
 * aligned so the line ends at the same column for every row. */
static void row(char *out, const char *label, int bars, long count,
		int cnt_space)
{
	char num[32];
	int n = snprintf(num, sizeof(num), "%ld", count);

	out += strlen(out);
	out += sprintf(out, "%s |", label);
	memset(out, '@', bars);
	out += bars;
	memset(out, ' ', 50 - bars + 1 + cnt_space - n);
	out += 50 - bars + 1 + cnt_space - n;
	sprintf(out, "%s\n", num);
}

static struct maptap_script_stat *make(enum maptap_script_hist_type h,
				       int64_t start, int64_t stop,
				       int64_t interval, int shift)
{
	struct maptap_script_stat_desc d = {
		.hist = h, .start = start, .stop = stop,
		.interval = interval, .bit_shift = shift,
	};
	struct maptap_script_stat *st = NULL;
	struct maptap_script_error err;

	if (maptap_script_stat_new(&d, &st, &err))
		tap_diag("stat_new: %s", err.msg);
	return st;
}

static int64_t get(struct maptap_script_stat *st, enum maptap_script_stat_op op)
{
	struct maptap_script_error err;
	int64_t v = -999;

	if (maptap_script_stat_get(st, op, &v, &err))
		tap_diag("%s: %s", maptap_script_stat_op_name(op), err.msg);
	return v;
}

static void test_basic(void)
{
	struct maptap_script_stat *st = make(MAPTAP_SCRIPT_HIST_NONE, 0, 0, 0, 0);
	static const int64_t v[] = { 5, -3, 10, 7 };
	size_t i;

	for (i = 0; i < 4; i++)
		maptap_script_stat_add(st, v[i]);
	tap_int_eq(get(st, MAPTAP_SCRIPT_STAT_COUNT), 4, "@count");
	tap_int_eq(get(st, MAPTAP_SCRIPT_STAT_SUM), 19, "@sum");
	tap_int_eq(get(st, MAPTAP_SCRIPT_STAT_MIN), -3, "@min");
	tap_int_eq(get(st, MAPTAP_SCRIPT_STAT_MAX), 10, "@max");
	tap_int_eq(get(st, MAPTAP_SCRIPT_STAT_AVG), 4, "@avg truncates 19/4");
	maptap_script_stat_clear(st);
	maptap_script_stat_add(st, -7);
	maptap_script_stat_add(st, 0);
	tap_int_eq(get(st, MAPTAP_SCRIPT_STAT_AVG), -3,
		   "@avg truncates toward zero (-7/2)");
	tap_int_eq(maptap_script_stat_nbuckets(st), 0, "no histogram buckets");
	maptap_script_stat_free(st);
}

static void test_empty(void)
{
	struct maptap_script_stat *st = make(MAPTAP_SCRIPT_HIST_LOG, 0, 0, 0, 0);
	struct maptap_script_buf b = { 0 };
	struct maptap_script_error err;
	int64_t v = 0;
	int op, rc;

	tap_int_eq(get(st, MAPTAP_SCRIPT_STAT_COUNT), 0, "@count of empty is 0");
	tap_int_eq(get(st, MAPTAP_SCRIPT_STAT_SUM), 0, "@sum of empty is 0");
	for (op = MAPTAP_SCRIPT_STAT_MIN; op <= MAPTAP_SCRIPT_STAT_VARIANCE; op++) {
		maptap_script_error_clear(&err);
		rc = maptap_script_stat_get(st, op, &v, &err);
		tap_ok(rc == -ENODATA && !strcmp(err.msg, "empty aggregate") &&
		       err.code == MAPTAP_SCRIPT_E_EMPTY_AGG,
		       "%s of empty: \"empty aggregate\"",
		       maptap_script_stat_op_name(op));
	}
	rc = maptap_script_stat_print_hist(st, 2, &b, &err);
	tap_ok(rc == -ENODATA && !strcmp(err.msg, "empty aggregate"),
	       "printing an empty histogram is \"empty aggregate\"");
	maptap_script_buf_free(&b);
	maptap_script_stat_free(st);
}

static void test_variance(void)
{
	struct maptap_script_stat *st = make(MAPTAP_SCRIPT_HIST_NONE, 0, 0, 0, 0);
	double mean = 0, m2 = 0;
	int64_t got;
	int i;

	maptap_script_stat_add(st, 42);
	tap_int_eq(get(st, MAPTAP_SCRIPT_STAT_VARIANCE), 0, "variance of one value");
	maptap_script_stat_clear(st);
	maptap_script_stat_add(st, 10);
	maptap_script_stat_add(st, 20);
	tap_int_eq(get(st, MAPTAP_SCRIPT_STAT_VARIANCE), 50,
		   "sample variance of {10, 20}");
	/* integer Welford without a bit shift: the running mean sticks at
	 * 1, so {1,2,3,4} gives ((4*1) + 3*(14/3)) / 3 = 5, not 1.67 */
	maptap_script_stat_clear(st);
	for (i = 1; i <= 4; i++)
		maptap_script_stat_add(st, i);
	tap_int_eq(get(st, MAPTAP_SCRIPT_STAT_VARIANCE), 5,
		   "integer variance of {1,2,3,4}, bit shift 0");
	maptap_script_stat_free(st);

	/* with a bit shift the fixed point keeps the fraction: close to
	 * the exact sample variance of pseudo-random data */
	st = make(MAPTAP_SCRIPT_HIST_NONE, 0, 0, 0, 12);
	srand(7);
	for (i = 1; i <= 1000; i++) {
		int64_t x = rand() % 10000;
		double d = x - mean;

		mean += d / i;
		m2 += d * (x - mean);
		maptap_script_stat_add(st, x);
	}
	got = get(st, MAPTAP_SCRIPT_STAT_VARIANCE);
	tap_ok(fabs((double)got - m2 / 999) < 2 + m2 / 999 * 1e-6,
	       "variance with bit shift 12 is exact to the unit (%lld vs %.1f)",
	       (long long)got, m2 / 999);
	maptap_script_stat_free(st);
}

static void test_desc_check(void)
{
	struct maptap_script_stat_desc d = {
		.hist = MAPTAP_SCRIPT_HIST_LINEAR, .start = 0, .stop = 100,
		.interval = 0,
	};
	struct maptap_script_error err;

	tap_ok(maptap_script_stat_desc_check(&d, &err) == -EINVAL &&
	       !strcmp(err.msg, "histogram: interval cannot be zero."),
	       "interval 0 refused with stap's text");
	d.interval = 10;
	tap_int_eq(maptap_script_stat_desc_check(&d, &err), 13,
		   "0..100 step 10: 10 buckets + 3");
	d.stop = 1260;
	tap_int_eq(maptap_script_stat_desc_check(&d, &err), -EINVAL,
		   "129 buckets refused");
	tap_str_eq(err.msg, "histogram: Number of buckets must be between 1 and 126",
		   "bucket count message");
	d.stop = 1250;
	tap_int_eq(maptap_script_stat_desc_check(&d, &err), 128, "128 buckets allowed");
	d.stop = -10;
	tap_int_eq(maptap_script_stat_desc_check(&d, &err), -EINVAL, "stop < start refused");
	d.hist = MAPTAP_SCRIPT_HIST_LOG;
	tap_int_eq(maptap_script_stat_desc_check(&d, &err), 128, "log: 128 buckets");
}

static void test_log_buckets(void)
{
	struct maptap_script_stat *st = make(MAPTAP_SCRIPT_HIST_LOG, 0, 0, 0, 0);

	maptap_script_stat_add(st, 0);
	maptap_script_stat_add(st, 1);
	maptap_script_stat_add(st, 3);
	maptap_script_stat_add(st, 4);
	maptap_script_stat_add(st, -1);
	maptap_script_stat_add(st, INT64_MAX);
	maptap_script_stat_add(st, INT64_MIN);
	tap_int_eq(maptap_script_stat_bucket(st, 64), 1, "0 in bucket 64");
	tap_int_eq(maptap_script_stat_bucket(st, 65), 1, "1 in bucket 65");
	tap_int_eq(maptap_script_stat_bucket(st, 66), 1, "3 in bucket 66 [2,4)");
	tap_int_eq(maptap_script_stat_bucket(st, 67), 1, "4 in bucket 67");
	tap_int_eq(maptap_script_stat_bucket(st, 63), 1, "-1 in bucket 63");
	tap_int_eq(maptap_script_stat_bucket(st, 127), 1, "INT64_MAX in bucket 127");
	tap_int_eq(maptap_script_stat_bucket(st, 0), 1, "INT64_MIN in bucket 0");
	tap_int_eq(maptap_script_stat_bucket(st, 128), -1, "bucket 128 out of range");
	tap_int_eq(get(st, MAPTAP_SCRIPT_STAT_SUM), 0 + 1 + 3 + 4 - 1 - 1,
		   "@sum wraps like 64-bit C (MAX + MIN = -1)");
	maptap_script_stat_free(st);
}

static void check_hist(struct maptap_script_stat *st, int elision,
		       const char *want, const char *name)
{
	struct maptap_script_buf b = { 0 };
	struct maptap_script_error err;

	if (maptap_script_stat_print_hist(st, elision, &b, &err))
		tap_diag("print_hist: %s", err.msg);
	tap_str_eq(maptap_script_buf_str(&b), want, name);
	maptap_script_buf_free(&b);
}

static void test_print_log(void)
{
	struct maptap_script_stat *st = make(MAPTAP_SCRIPT_HIST_LOG, 0, 0, 0, 0);
	static const int64_t v[] = { 1, 1, 2, 3, 8, 100 };
	char want[4096];
	size_t i;

	for (i = 0; i < 6; i++)
		maptap_script_stat_add(st, v[i]);
	strcpy(want, HEADER5);
	row(want, "    0", 0, 0, 1);
	row(want, "    1", 2, 2, 1);
	row(want, "    2", 2, 2, 1);
	row(want, "    4", 0, 0, 1);
	row(want, "    8", 1, 1, 1);
	row(want, "   16", 0, 0, 1);
	row(want, "   32", 0, 0, 1);
	row(want, "   64", 1, 1, 1);
	row(want, "  128", 0, 0, 1);
	row(want, "  256", 0, 0, 1);
	strcat(want, "\n");
	check_hist(st, 2, want, "log histogram from 0 up to two empty rows past 64");
	maptap_script_stat_free(st);
}

static void test_print_log_negative(void)
{
	struct maptap_script_stat *st = make(MAPTAP_SCRIPT_HIST_LOG, 0, 0, 0, 0);
	char want[4096];

	maptap_script_stat_add(st, -3);
	maptap_script_stat_add(st, -5000);
	strcpy(want, " value |-------------------------------------------------- count\n");
	row(want, "-16384", 0, 0, 1);
	row(want, " -8192", 0, 0, 1);
	row(want, " -4096", 1, 1, 1);
	row(want, " -2048", 0, 0, 1);
	row(want, " -1024", 0, 0, 1);
	strcat(want, "       ~\n");
	row(want, "    -8", 0, 0, 1);
	row(want, "    -4", 0, 0, 1);
	row(want, "    -2", 1, 1, 1);
	row(want, "    -1", 0, 0, 1);
	row(want, "     0", 0, 0, 1);
	strcat(want, "\n");
	check_hist(st, 2, want, "negative log buckets, a run elided with ~");

	strcpy(want, " value |-------------------------------------------------- count\n");
	strcat(want, "       ~\n");
	row(want, " -4096", 1, 1, 1);
	strcat(want, "       ~\n");
	row(want, "    -2", 1, 1, 1);
	strcat(want, "\n");
	check_hist(st, 0, want, "HIST_ELISION=0 keeps only non-empty rows");
	maptap_script_stat_free(st);
}

static void test_print_linear(void)
{
	struct maptap_script_stat *st =
		make(MAPTAP_SCRIPT_HIST_LINEAR, 0, 100, 10, 0);
	char want[4096];

	maptap_script_stat_add(st, -5);
	maptap_script_stat_add(st, 15);
	maptap_script_stat_add(st, 150);
	maptap_script_stat_add(st, 150);
	strcpy(want, HEADER5);
	row(want, "   <0", 1, 1, 1);
	row(want, "    0", 0, 0, 1);
	row(want, "   10", 1, 1, 1);
	row(want, "   20", 0, 0, 1);
	row(want, "   30", 0, 0, 1);
	strcat(want, "      ~\n");
	row(want, "   90", 0, 0, 1);
	row(want, "  100", 0, 0, 1);
	row(want, " >100", 2, 2, 1);
	strcat(want, "\n");
	check_hist(st, 2, want, "linear with underflow and overflow rows");

	maptap_script_stat_clear(st);
	maptap_script_stat_add(st, 40);
	strcpy(want, HEADER5);
	row(want, "   20", 0, 0, 1);
	row(want, "   30", 0, 0, 1);
	row(want, "   40", 1, 1, 1);
	row(want, "   50", 0, 0, 1);
	row(want, "   60", 0, 0, 1);
	strcat(want, "\n");
	check_hist(st, -1, want, "no under/overflow rows when they are empty");
	maptap_script_stat_free(st);
}

static void test_print_scaled(void)
{
	struct maptap_script_stat *st = make(MAPTAP_SCRIPT_HIST_LOG, 0, 0, 0, 0);
	char want[4096];
	int i;

	for (i = 0; i < 120; i++)
		maptap_script_stat_add(st, 0);
	maptap_script_stat_add(st, 1);
	strcpy(want, HEADER5);
	row(want, "    0", 40, 120, 3);	/* scale ceil(120/50) = 3 */
	row(want, "    1", 0, 1, 3);
	row(want, "    2", 0, 0, 3);
	row(want, "    4", 0, 0, 3);
	strcat(want, "\n");
	check_hist(st, 2, want, "bars scaled so 120 is 40 '@' wide");
	maptap_script_stat_free(st);
}

int main(void)
{
	test_basic();
	test_empty();
	test_variance();
	test_desc_check();
	test_log_buckets();
	test_print_log();
	test_print_log_negative();
	test_print_linear();
	test_print_scaled();
	return tap_done();
}
