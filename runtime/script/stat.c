/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stat.c -- statistics aggregates: <<<, @count ... @variance, histograms.
 *
 * The arithmetic reproduces stap's runtime (runtime/stat-common.c and the
 * per-CPU aggregation of runtime/stat.c) for a single CPU, so scripts get
 * the same integers stap prints: Welford's running mean and M2 kept in
 * fixed point scaled by 2^bit_shift, truncating integer divisions.  All
 * sums go through uint64_t so that overflow wraps as in the kernel
 * instead of being undefined behaviour in C.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <maptap/script_stat.h>

struct maptap_script_stat {
	const struct maptap_script_stat_desc *desc;
	struct maptap_script_stat_desc *owned_desc;	/* stat_new() only */
	int nbuckets;
	int64_t count;
	int64_t sum;
	int64_t min;
	int64_t max;
	int64_t avg_s;		/* running mean << bit_shift */
	int64_t m2;		/* sum of squared deviations, scaled */
	int64_t hist[];
};

static int64_t wrap_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int64_t wrap_sub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

static int64_t wrap_mul(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a * (uint64_t)b);
}

static int64_t wrap_shl(int64_t a, int shift)
{
	return (int64_t)((uint64_t)a << shift);
}

/* C's truncating division, except that INT64_MIN / -1 wraps. */
static int64_t div64(int64_t a, int64_t b)
{
	if (b == -1)
		return wrap_sub(0, a);
	return a / b;
}

const char *maptap_script_stat_op_name(enum maptap_script_stat_op op)
{
	static const char *const names[] = {
		[MAPTAP_SCRIPT_STAT_COUNT] = "@count",
		[MAPTAP_SCRIPT_STAT_SUM] = "@sum",
		[MAPTAP_SCRIPT_STAT_MIN] = "@min",
		[MAPTAP_SCRIPT_STAT_MAX] = "@max",
		[MAPTAP_SCRIPT_STAT_AVG] = "@avg",
		[MAPTAP_SCRIPT_STAT_VARIANCE] = "@variance",
	};

	if ((unsigned)op >= sizeof(names) / sizeof(names[0]))
		return "@unknown";
	return names[op];
}

static int linear_buckets(const struct maptap_script_stat_desc *d,
			  struct maptap_script_error *err)
{
	int64_t n;

	/* Messages as runtime/stat-common.c, _stp_stat_calc_buckets(). */
	if (d->interval == 0)
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_ARG,
				"histogram: interval cannot be zero.");
	if (d->interval < 0 || d->stop < d->start ||
	    (d->stop - d->start) / d->interval >
	    MAPTAP_SCRIPT_HIST_MAX_BUCKETS - 3)
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_ARG,
			"histogram: Number of buckets must be between 1 and %d",
				MAPTAP_SCRIPT_HIST_MAX_BUCKETS - 2);
	n = (d->stop - d->start) / d->interval + 3;
	return (int)n;
}

int maptap_script_stat_desc_check(const struct maptap_script_stat_desc *desc,
				  struct maptap_script_error *err)
{
	if (desc->bit_shift < 0 || desc->bit_shift > 62)
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_ARG,
				"bit shift %d out of range 0..62",
				desc->bit_shift);
	switch (desc->hist) {
	case MAPTAP_SCRIPT_HIST_NONE:
		return 0;
	case MAPTAP_SCRIPT_HIST_LOG:
		return MAPTAP_SCRIPT_HIST_LOG_BUCKETS;
	case MAPTAP_SCRIPT_HIST_LINEAR:
		return linear_buckets(desc, err);
	}
	return maptap_script_error_set(err, MAPTAP_SCRIPT_E_ARG,
				       "unknown histogram type %d", desc->hist);
}

/* Buckets of an already checked descriptor, without error reporting. */
static int desc_buckets(const struct maptap_script_stat_desc *desc)
{
	int n = maptap_script_stat_desc_check(desc, NULL);

	return n < 0 ? 0 : n;
}

size_t maptap_script_stat_size(const struct maptap_script_stat_desc *desc)
{
	return sizeof(struct maptap_script_stat) +
	       desc_buckets(desc) * sizeof(int64_t);
}

void maptap_script_stat_init(struct maptap_script_stat *st,
			     const struct maptap_script_stat_desc *desc)
{
	int n = desc_buckets(desc);

	memset(st, 0, sizeof(*st) + n * sizeof(int64_t));
	st->desc = desc;
	st->nbuckets = n;
}

int maptap_script_stat_new(const struct maptap_script_stat_desc *desc,
			   struct maptap_script_stat **out,
			   struct maptap_script_error *err)
{
	struct maptap_script_stat_desc *copy;
	struct maptap_script_stat *st;
	int rc;

	rc = maptap_script_stat_desc_check(desc, err);
	if (rc < 0)
		return rc;
	copy = malloc(sizeof(*copy));
	st = malloc(maptap_script_stat_size(desc));
	if (!copy || !st) {
		free(copy);
		free(st);
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_NOMEM,
					       "out of memory");
	}
	*copy = *desc;
	maptap_script_stat_init(st, copy);
	st->owned_desc = copy;
	*out = st;
	return 0;
}

void maptap_script_stat_free(struct maptap_script_stat *st)
{
	if (!st)
		return;
	free(st->owned_desc);
	free(st);
}

void maptap_script_stat_clear(struct maptap_script_stat *st)
{
	struct maptap_script_stat_desc *owned = st->owned_desc;

	maptap_script_stat_init(st, st->desc);
	st->owned_desc = owned;
}

/* log2 bucket of V: 64 for 0, 64 + bit length for positive values, the
 * mirror image below 64 for negative ones (stap's _stp_val_to_bucket). */
static int log_bucket(int64_t v)
{
	uint64_t u;
	int b;

	if (v == 0)
		return 64;
	u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	b = 64 + (64 - __builtin_clzll(u));
	if (v < 0)
		b = 128 - b;
	return b;
}

static int linear_bucket(const struct maptap_script_stat *st, int64_t v)
{
	int64_t off = wrap_sub(v, st->desc->start);
	uint64_t b;

	if (off < 0)
		return 0;
	b = (uint64_t)off / (uint64_t)st->desc->interval + 1;
	if (b >= (uint64_t)st->nbuckets - 1)
		return st->nbuckets - 1;
	return (int)b;
}

static void add_variance(struct maptap_script_stat *st, int64_t v)
{
	int shift = st->desc->bit_shift;
	int64_t vs = wrap_shl(v, shift);
	int64_t delta = wrap_sub(vs, st->avg_s);

	st->avg_s = wrap_add(st->avg_s, delta / st->count);
	st->m2 = wrap_add(st->m2, wrap_mul(delta, wrap_sub(vs, st->avg_s)));
}

void maptap_script_stat_add(struct maptap_script_stat *st, int64_t v)
{
	if (st->count == 0) {
		st->count = 1;
		st->sum = st->min = st->max = v;
		st->avg_s = wrap_shl(v, st->desc->bit_shift);
		st->m2 = 0;
	} else {
		st->count++;
		st->sum = wrap_add(st->sum, v);
		if (v > st->max)
			st->max = v;
		if (v < st->min)
			st->min = v;
		add_variance(st, v);
	}
	if (st->desc->hist == MAPTAP_SCRIPT_HIST_LOG)
		st->hist[log_bucket(v)]++;
	else if (st->desc->hist == MAPTAP_SCRIPT_HIST_LINEAR)
		st->hist[linear_bucket(st, v)]++;
}

int64_t maptap_script_stat_count(const struct maptap_script_stat *st)
{
	return st->count;
}

/* stap's aggregation of per-CPU variances, reduced to one CPU: the mean
 * is recomputed from the sum, so rounding matches stap's output.  stap
 * keeps m2 / (count - 1) up to date on every <<<; dividing here instead
 * gives the same integer and keeps a division off the hot path. */
static int64_t variance(const struct maptap_script_stat *st)
{
	int shift = st->desc->bit_shift;
	int64_t avg, d, s1, s2, variance_s;

	if (st->count == 1)
		return 0;
	variance_s = st->m2 / (st->count - 1);
	avg = wrap_shl(st->sum, shift) / st->count;
	d = wrap_sub(st->avg_s, avg);
	s1 = wrap_mul(st->count, wrap_mul(d, d));
	s2 = wrap_mul(st->count - 1, variance_s);
	return (wrap_add(s1, s2) / (st->count - 1)) >> (2 * shift);
}

int maptap_script_stat_get(const struct maptap_script_stat *st,
			   enum maptap_script_stat_op op, int64_t *out,
			   struct maptap_script_error *err)
{
	if (op == MAPTAP_SCRIPT_STAT_COUNT) {
		*out = st->count;
		return 0;
	}
	if (op == MAPTAP_SCRIPT_STAT_SUM) {
		*out = st->sum;
		return 0;
	}
	if ((unsigned)op > MAPTAP_SCRIPT_STAT_VARIANCE)
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_ARG,
				"unknown statistic operator %d", op);
	if (st->count == 0)
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_EMPTY_AGG,
				"empty aggregate");
	switch (op) {
	case MAPTAP_SCRIPT_STAT_MIN:
		*out = st->min;
		break;
	case MAPTAP_SCRIPT_STAT_MAX:
		*out = st->max;
		break;
	case MAPTAP_SCRIPT_STAT_AVG:
		*out = div64(st->sum, st->count);
		break;
	default:
		*out = variance(st);
		break;
	}
	return 0;
}

const struct maptap_script_stat_desc *
maptap_script_stat_desc(const struct maptap_script_stat *st)
{
	return st->desc;
}

int maptap_script_stat_nbuckets(const struct maptap_script_stat *st)
{
	return st->nbuckets;
}

int64_t maptap_script_stat_bucket(const struct maptap_script_stat *st, int i)
{
	if (i < 0 || i >= st->nbuckets)
		return -1;
	return st->hist[i];
}
