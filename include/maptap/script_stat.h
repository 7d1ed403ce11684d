/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/script_stat.h -- statistics aggregates of the SystemTap script
 * language: "x <<< v", @count, @sum, @min, @max, @avg, @variance,
 * @hist_log and @hist_linear (SystemTap Language Reference, chapter
 * "Statistics (aggregates)").
 *
 * Arithmetic and printing follow stap's runtime (runtime/stat.h and
 * runtime/stat-common.c): integer average (sum / count, truncated toward
 * zero), Welford's integer variance scaled by 2^bit_shift, 128 log2
 * buckets (64 for negative values, one for 0, 63 for positive), linear
 * buckets with an underflow and an overflow bucket, and histograms
 * printed 50 columns wide with runs of empty rows elided as "~".
 *
 * An aggregate is single-threaded (maptap runs probe handlers one at a
 * time), so there is no per-CPU split and reading is O(1) except for the
 * histogram.  Not thread-safe.
 */
#ifndef MAPTAP_SCRIPT_STAT_H
#define MAPTAP_SCRIPT_STAT_H

#include <stdint.h>
#include <maptap/script_error.h>
#include <maptap/script_value.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

/* Buckets of a log histogram: bucket 64 holds 0, bucket 64 + k (k >= 1)
 * holds [2^(k-1), 2^k), bucket 64 - k the matching negative range. */
#define MAPTAP_SCRIPT_HIST_LOG_BUCKETS 128
/* Most buckets of a linear histogram, underflow and overflow included
 * (stap's STP_MAX_BUCKETS). */
#define MAPTAP_SCRIPT_HIST_MAX_BUCKETS 128
/* Width in '@' characters of a full histogram bar (stap's HIST_WIDTH). */
#define MAPTAP_SCRIPT_HIST_WIDTH 50

enum maptap_script_hist_type {
	MAPTAP_SCRIPT_HIST_NONE = 0,
	MAPTAP_SCRIPT_HIST_LOG,
	MAPTAP_SCRIPT_HIST_LINEAR,
};

/* What an aggregate (a stats global or every element of a stats array)
 * collects.  The translator fills it at pass 2 from the operators the
 * script applies to the variable: a variable has at most one histogram
 * kind, and every @hist_linear on it uses the same START, STOP, INTERVAL.
 * Plain data. */
struct maptap_script_stat_desc {
	enum maptap_script_hist_type hist;
	int64_t start;	/* @hist_linear(v, START, STOP, INTERVAL) */
	int64_t stop;
	int64_t interval;
	int bit_shift;		/* @variance(v, BIT_SHIFT): 0..62 */
};

/* The operators on an aggregate that return a long. */
enum maptap_script_stat_op {
	MAPTAP_SCRIPT_STAT_COUNT = 0,
	MAPTAP_SCRIPT_STAT_SUM,
	MAPTAP_SCRIPT_STAT_MIN,
	MAPTAP_SCRIPT_STAT_MAX,
	MAPTAP_SCRIPT_STAT_AVG,
	MAPTAP_SCRIPT_STAT_VARIANCE,
};

/* The name of OP as written in a script ("@count", ..., "@variance"). */
const char *maptap_script_stat_op_name(enum maptap_script_stat_op op);

/* Check DESC as stap's runtime does when it creates the aggregate
 * (runtime/stat-common.c, _stp_stat_calc_buckets).  Returns the number of
 * histogram buckets (0 for HIST_NONE, 128 for HIST_LOG, and
 * (stop - start) / interval + 3 for HIST_LINEAR); -EINVAL with ERR set to
 * stap's text (runtime/stat-common.c) when interval is 0 ("histogram:
 * interval cannot be zero."), when the linear bucket count is not 3..128
 * ("histogram: Number of buckets must be between 1 and 126", which also
 * covers stop < start and a negative interval), or when bit_shift is
 * outside 0..62.  ERR may be NULL. */
int maptap_script_stat_desc_check(const struct maptap_script_stat_desc *desc,
				  struct maptap_script_error *err);

/* A stand-alone aggregate (a stats global).  Arrays of stats keep theirs
 * inside the map (script_map.h) and hand out const pointers. */
struct maptap_script_stat;

/* Create an empty aggregate collecting what DESC says (DESC is copied).
 * Returns 0 and *OUT; -EINVAL (ERR set) when DESC fails the check above;
 * -ENOMEM. */
int maptap_script_stat_new(const struct maptap_script_stat_desc *desc,
			   struct maptap_script_stat **out,
			   struct maptap_script_error *err);

/* Free ST (NULL is fine). */
void maptap_script_stat_free(struct maptap_script_stat *st);

/* ST <<< V.  O(1): no allocation, no error (sums wrap as in stap's
 * 64-bit C arithmetic). */
void maptap_script_stat_add(struct maptap_script_stat *st, int64_t v);

/* Forget every value (delete of a stats global). */
void maptap_script_stat_clear(struct maptap_script_stat *st);

/* The number of values added (@count); 0 for an empty aggregate. */
int64_t maptap_script_stat_count(const struct maptap_script_stat *st);

/* Evaluate OP on ST into *OUT.  @count and @sum of an empty aggregate are
 * 0.  @min, @max, @avg and @variance of an empty one are stap's runtime
 * error: returns -ENODATA with ERR "empty aggregate".  @variance of one
 * value is 0.  Returns 0 otherwise, -EINVAL for an unknown OP. */
int maptap_script_stat_get(const struct maptap_script_stat *st,
			   enum maptap_script_stat_op op, int64_t *out,
			   struct maptap_script_error *err);

/* The descriptor ST was created with (not a copy: valid while ST is). */
const struct maptap_script_stat_desc *
maptap_script_stat_desc(const struct maptap_script_stat *st);

/* Number of histogram buckets of ST (0 without a histogram). */
int maptap_script_stat_nbuckets(const struct maptap_script_stat *st);

/* The count in bucket I of ST's histogram, 0 <= I < nbuckets; this is
 * what @hist_log(v)[I] / @hist_linear(v, ...)[I] read.  -1 when I is out
 * of range. */
int64_t maptap_script_stat_bucket(const struct maptap_script_stat *st, int i);

/* Append ST's histogram to OUT exactly as stap prints it with
 * print(@hist_log(v)) or print(@hist_linear(v, ...)): a header line
 * "value |----...---- count" right-aligned to the widest value, one row
 * per bucket from two empty buckets below the first used one to two above
 * the last, bars of '@' scaled to MAPTAP_SCRIPT_HIST_WIDTH, linear
 * under/overflow rows as "<START" / ">LAST" when non-empty, every empty
 * row with ELISION empty rows on each side left out and each such run
 * marked by one "~" row (ELISION < 0: nothing left out; stap's
 * -DHIST_ELISION, default 2), and a final empty line.  Returns 0;
 * -ENODATA with ERR "empty aggregate" when ST holds no value (stap's
 * runtime error for printing an empty histogram); -EINVAL (ERR set) when
 * ST has no histogram; -ENOMEM (OUT may hold part of the text). */
int maptap_script_stat_print_hist(const struct maptap_script_stat *st,
				  int elision, struct maptap_script_buf *out,
				  struct maptap_script_error *err);

/* The same operations on an aggregate embedded elsewhere (array values):
 * these are what maptap_script_stat_* call.  STORAGE must be
 * maptap_script_stat_size(DESC) bytes, aligned for int64_t; initialize
 * with maptap_script_stat_init(). */
size_t maptap_script_stat_size(const struct maptap_script_stat_desc *desc);
void maptap_script_stat_init(struct maptap_script_stat *storage,
			     const struct maptap_script_stat_desc *desc);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
