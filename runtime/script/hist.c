/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* hist.c -- print @hist_log / @hist_linear as stap does.
 *
 * The layout follows stap's runtime/stat-common.c
 * (_stp_stat_print_histogram_buf): rows from two empty buckets below the
 * first used bucket to two above the last, a value column right-aligned
 * under "value", bars scaled so the largest count is at most 50 '@'
 * wide, counts aligned after the bar, and runs of empty rows replaced by
 * one "~" row when more than 2 * ELISION of them are in a row.
 */
#include <errno.h>
#include <inttypes.h>
#include <maptap/script_stat.h>

/* Columns needed to print V in decimal, sign included. */
static int needed_space(int64_t v)
{
	uint64_t u;
	int n = 0;

	if (v == 0)
		return 1;
	if (v < 0) {
		n++;
		u = -(uint64_t)v;
	} else {
		u = v;
	}
	for (; u; u /= 10)
		n++;
	return n;
}

static int64_t log_bucket_value(int i)
{
	if (i == 64)
		return 0;
	if (i < 64)
		return INT64_MIN >> i;
	return (int64_t)1 << (i - 65);
}

static int imax(int a, int b)
{
	return a > b ? a : b;
}

/* Everything about one histogram that the rows need. */
struct hist_view {
	const struct maptap_script_stat *st;
	const struct maptap_script_stat_desc *d;
	int n;			/* buckets */
	int low, high;		/* rows printed: [low, high] */
	int under, over;	/* linear under/overflow rows shown */
	int64_t scale;
	int val_space, cnt_space;
};

static int64_t count_at(const struct hist_view *h, int i)
{
	return maptap_script_stat_bucket(h->st, i);
}

static void find_range(struct hist_view *h, int64_t *valmax)
{
	int i, low = -1, high = 0;

	*valmax = 0;
	for (i = 0; i < h->n; i++) {
		int64_t c = count_at(h, i);

		if (c > 0 && low == -1)
			low = i;
		if (c > 0)
			high = i;
		if (c > *valmax)
			*valmax = c;
	}
	/* Two empty rows of margin; log histograms only go below bucket
	 * 0 (the value 0) when there are negative values. */
	for (i = 0; i < 2; i++) {
		if (h->d->hist == MAPTAP_SCRIPT_HIST_LOG) {
			if (low != 64 && low > 0)
				low--;
		} else if (low > 0) {
			low--;
		}
		if (high < h->n - 1)
			high++;
	}
	if (h->d->hist == MAPTAP_SCRIPT_HIST_LINEAR) {
		if (low == 0 && count_at(h, 0) == 0)
			low++;
		if (high == h->n - 1 && count_at(h, high) == 0)
			high--;
		h->under = low == 0;
		h->over = high == h->n - 1;
	}
	h->low = low;
	h->high = high;
}

static void size_columns(struct hist_view *h, int64_t valmax)
{
	int w;

	h->scale = 1;
	if (valmax > MAPTAP_SCRIPT_HIST_WIDTH)
		h->scale = (valmax + MAPTAP_SCRIPT_HIST_WIDTH - 1) /
			   MAPTAP_SCRIPT_HIST_WIDTH;
	h->cnt_space = needed_space(valmax);
	if (h->d->hist == MAPTAP_SCRIPT_HIST_LINEAR)
		w = imax(needed_space(h->d->start) + h->under,
			 needed_space(h->d->start +
				      h->d->interval * h->high) + h->over);
	else
		w = imax(needed_space(log_bucket_value(h->high)),
			 needed_space(log_bucket_value(h->low)));
	h->val_space = imax(w, 5);	/* strlen("value") */
}

/* Whether row I and its ELISION neighbours (inside the range) are all
 * empty, so that the row is left out. */
static int elided(const struct hist_view *h, int i, int elision)
{
	int k, lo = h->low, hi = h->high;
	int max_elide = elision < h->n ? elision : h->n;

	if (elision < 0)
		return 0;
	if (i - max_elide > lo)
		lo = i - max_elide;
	if (i + max_elide < hi)
		hi = i + max_elide;
	for (k = lo; k <= hi; k++)
		if (count_at(h, k) != 0)
			return 0;
	return 1;
}

static int64_t row_value(const struct hist_view *h, int i, const char **prefix)
{
	const struct maptap_script_stat_desc *d = h->d;

	*prefix = "";
	if (d->hist == MAPTAP_SCRIPT_HIST_LOG)
		return log_bucket_value(i);
	if (i == 0) {
		*prefix = "<";
		return d->start;
	}
	if (i == h->n - 1) {
		*prefix = ">";
		return d->start + (int64_t)(i - 2) * d->interval;
	}
	return d->start + (int64_t)(i - 1) * d->interval;
}

static int print_row(const struct hist_view *h, int i,
		     struct maptap_script_buf *out)
{
	const char *prefix;
	int64_t val = row_value(h, i, &prefix);
	int64_t c = count_at(h, i);
	int64_t bar = c / h->scale;
	int rc;

	rc = maptap_script_buf_printf(out, "%*s%" PRId64 " |",
				      h->val_space - needed_space(val),
				      prefix, val);
	if (!rc)
		rc = maptap_script_buf_addrep(out, '@', bar);
	if (!rc)
		rc = maptap_script_buf_printf(out, "%*" PRId64 "\n",
				(int)(MAPTAP_SCRIPT_HIST_WIDTH - bar + 1 +
				      h->cnt_space), c);
	return rc;
}

static int print_rows(const struct hist_view *h, int elision,
		      struct maptap_script_buf *out)
{
	int i, rc, eliding = 0;

	for (i = h->low; i <= h->high; i++) {
		if (elided(h, i, elision)) {
			eliding = 1;
			continue;
		}
		if (eliding) {
			rc = maptap_script_buf_printf(out, "%*s ~\n",
						      h->val_space, "");
			if (rc)
				return rc;
			eliding = 0;
		}
		rc = print_row(h, i, out);
		if (rc)
			return rc;
	}
	return 0;
}

int maptap_script_stat_print_hist(const struct maptap_script_stat *st,
				  int elision, struct maptap_script_buf *out,
				  struct maptap_script_error *err)
{
	struct hist_view h = { .st = st };
	int64_t valmax;
	int rc;

	h.d = maptap_script_stat_desc(st);
	h.n = maptap_script_stat_nbuckets(st);
	if (h.d->hist == MAPTAP_SCRIPT_HIST_NONE || h.n == 0)
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_ARG,
				"aggregate has no histogram");
	if (maptap_script_stat_count(st) == 0)
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_EMPTY_AGG,
				"empty aggregate");
	find_range(&h, &valmax);
	size_columns(&h, valmax);
	rc = maptap_script_buf_printf(out, "%*s |", h.val_space, "value");
	if (!rc)
		rc = maptap_script_buf_addrep(out, '-',
					      MAPTAP_SCRIPT_HIST_WIDTH);
	if (!rc)
		rc = maptap_script_buf_adds(out, " count\n");
	if (!rc)
		rc = print_rows(&h, elision, out);
	if (!rc)
		rc = maptap_script_buf_addc(out, '\n');
	return rc;
}
