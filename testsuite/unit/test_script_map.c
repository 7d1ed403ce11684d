/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_script_map.c -- associative arrays: stap's element semantics,
 * MAXMAPENTRIES and wrap, slices, foreach snapshots and sorting. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <maptap/script_map.h>
#include "../lib/tap.h"

#define L(x) maptap_script_long(x)
#define S(x) maptap_script_string((x), strlen(x))
#define ANY maptap_script_any()

static struct maptap_script_map *make(unsigned nkeys,
				      const enum maptap_script_type *kt,
				      enum maptap_script_type vt,
				      size_t max, bool wrap)
{
	struct maptap_script_map_desc d = {
		.nkeys = nkeys, .value_type = vt, .max_entries = max,
		.wrap = wrap,
	};
	struct maptap_script_map *m = NULL;
	struct maptap_script_error err;
	unsigned i;

	for (i = 0; i < nkeys; i++)
		d.key_types[i] = kt[i];
	if (maptap_script_map_new(&d, &m, &err))
		tap_diag("map_new: %s", err.msg);
	return m;
}

static const enum maptap_script_type K_L[] = { MAPTAP_SCRIPT_LONG };
static const enum maptap_script_type K_SL[] = {
	MAPTAP_SCRIPT_STRING, MAPTAP_SCRIPT_LONG
};

/* The keys of a snapshot as "k1,k2 k1,k2 ..." for comparisons. */
static const char *snap_keys(struct maptap_script_snap *s, unsigned nkeys)
{
	static char buf[4096];
	size_t i, n = 0;
	unsigned k;

	buf[0] = '\0';
	for (i = 0; i < maptap_script_snap_len(s); i++) {
		const struct maptap_script_entry *e = maptap_script_snap_at(s, i);

		for (k = 0; k < nkeys; k++) {
			struct maptap_script_value v = maptap_script_entry_key(e, k);

			if (v.type == MAPTAP_SCRIPT_LONG)
				n += snprintf(buf + n, sizeof(buf) - n, "%s%lld",
					      k ? "," : i ? " " : "",
					      (long long)v.u.l);
			else
				n += snprintf(buf + n, sizeof(buf) - n, "%s%s",
					      k ? "," : i ? " " : "", v.u.s.p);
		}
	}
	return buf;
}

static void test_long_values(void)
{
	struct maptap_script_map *m = make(1, K_L, MAPTAP_SCRIPT_LONG, 100, false);
	struct maptap_script_value k = L(7), v = L(0), out;
	struct maptap_script_error err;
	int64_t r = 0;

	tap_int_eq(maptap_script_map_get(m, &k, &out), 0, "missing element: get returns 0");
	tap_int_eq(out.u.l, 0, "missing element reads as 0");
	tap_int_eq(maptap_script_map_size(m), 0, "reading does not create");
	tap_int_eq(maptap_script_map_set(m, &k, &v, &err), 0, "a[7] = 0");
	tap_int_eq(maptap_script_map_exists(m, &k), 1, "storing 0 keeps the element");
	tap_int_eq(maptap_script_map_add(m, &k, 5, &r, &err), 0, "a[7] += 5");
	tap_int_eq(r, 5, "+= returns the new value");
	k = L(8);
	maptap_script_map_add(m, &k, -1, &r, &err);
	tap_int_eq(r, -1, "-- on a missing element starts from 0");
	tap_int_eq(maptap_script_map_size(m), 2, "two elements");
	tap_int_eq(maptap_script_map_delete(m, &k), 1, "delete a[8]");
	tap_int_eq(maptap_script_map_delete(m, &k), 0, "delete again: nothing");
	tap_int_eq(maptap_script_map_exists(m, &k), 0, "a[8] gone");
	k = L(7);
	maptap_script_map_get(m, &k, &out);
	tap_int_eq(out.u.l, 5, "a[7] still 5");
	v = S("x");
	tap_int_eq(maptap_script_map_set(m, &k, &v, &err), -EINVAL,
		   "a string into a long array is refused");
	k = S("7");
	tap_int_eq(maptap_script_map_get(m, &k, &out), -EINVAL,
		   "a string key on a long-keyed array is refused");
	maptap_script_map_clear(m);
	tap_int_eq(maptap_script_map_size(m), 0, "delete a: empty");
	maptap_script_map_free(m);
}

static void test_string_values(void)
{
	struct maptap_script_map *m = make(2, K_SL, MAPTAP_SCRIPT_STRING, 100, false);
	struct maptap_script_value k[2] = { S("ab"), L(1) }, v = S("hello"), out;
	struct maptap_script_error err;
	char key[8];

	tap_int_eq(maptap_script_map_get(m, k, &out), 0, "missing");
	tap_str_eq(out.u.s.p, "", "missing string element reads as \"\"");
	maptap_script_map_set(m, k, &v, &err);
	v = S("a much longer value than before");
	maptap_script_map_set(m, k, &v, &err);
	v = S("hi");
	maptap_script_map_set(m, k, &v, &err);
	maptap_script_map_get(m, k, &out);
	tap_ok(out.u.s.len == 2 && !strcmp(out.u.s.p, "hi"),
	       "string value replaced, shorter again");
	/* keys are copied: changing the caller's buffer changes nothing */
	strcpy(key, "zz");
	k[0] = S(key);
	v = S("z");
	maptap_script_map_set(m, k, &v, &err);
	strcpy(key, "yy");
	k[0] = S("zz");
	tap_int_eq(maptap_script_map_exists(m, k), 1, "string keys are copied");
	k[0] = S("a");	/* "a",1 differs from "ab",1 */
	tap_int_eq(maptap_script_map_exists(m, k), 0, "prefix key is another key");
	maptap_script_map_free(m);
}

static void test_overflow_and_wrap(void)
{
	struct maptap_script_map *m = make(1, K_L, MAPTAP_SCRIPT_LONG, 3, false);
	struct maptap_script_error err;
	struct maptap_script_snap *s;
	struct maptap_script_value k;
	int64_t i;
	int rc;

	for (i = 1; i <= 3; i++) {
		k = L(i);
		maptap_script_map_add(m, &k, 1, NULL, &err);
	}
	k = L(4);
	maptap_script_error_clear(&err);
	rc = maptap_script_map_add(m, &k, 1, NULL, &err);
	tap_ok(rc == -E2BIG && err.code == MAPTAP_SCRIPT_E_OVERFLOW &&
	       !strcmp(err.msg, "Array overflow, check MAXMAPENTRIES"),
	       "a fourth element overflows with stap's message");
	tap_int_eq(maptap_script_map_size(m), 3, "array unchanged");
	k = L(2);
	tap_int_eq(maptap_script_map_add(m, &k, 1, NULL, &err), 0,
		   "updating an existing element is fine when full");
	maptap_script_map_free(m);

	m = make(1, K_L, MAPTAP_SCRIPT_LONG, 3, true);
	for (i = 1; i <= 5; i++) {
		k = L(i);
		if (maptap_script_map_add(m, &k, i * 10, NULL, &err))
			tap_diag("wrap add: %s", err.msg);
	}
	maptap_script_map_snapshot(m, NULL, NULL, &s);
	tap_str_eq(snap_keys(s, 1), "3 4 5", "% array keeps the 3 newest");
	maptap_script_snap_free(s);
	maptap_script_map_free(m);
}

static void fill_sl(struct maptap_script_map *m)
{
	static const struct {
		const char *s;
		int64_t l, v;
	} rows[] = {
		{ "b", 2, 30 }, { "a", 5, 10 }, { "c", 1, 30 },
		{ "a", 1, 20 }, { "b", 5, 10 },
	};
	struct maptap_script_error err;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct maptap_script_value k[2] = { S(rows[i].s), L(rows[i].l) };
		struct maptap_script_value v = L(rows[i].v);

		maptap_script_map_set(m, k, &v, &err);
	}
}

static void check_sort(struct maptap_script_map *m, int dir, unsigned col,
		       int64_t limit, const struct maptap_script_value *filter,
		       const char *want, const char *name)
{
	struct maptap_script_sort sort = { .dir = dir, .column = col, .limit = limit };
	struct maptap_script_snap *s = NULL;

	if (maptap_script_map_snapshot(m, &sort, filter, &s)) {
		tap_ok(0, "%s: snapshot failed", name);
		return;
	}
	tap_str_eq(snap_keys(s, 2), want, name);
	maptap_script_snap_free(s);
}

static void test_foreach(void)
{
	struct maptap_script_map *m = make(2, K_SL, MAPTAP_SCRIPT_LONG, 100, false);
	struct maptap_script_value f[2];

	fill_sl(m);
	check_sort(m, 0, 0, -1, NULL, "b,2 a,5 c,1 a,1 b,5", "unsorted: insertion order");
	check_sort(m, 1, 0, -1, NULL, "a,5 b,5 a,1 b,2 c,1",
		   "by value ascending, ties in insertion order");
	check_sort(m, -1, 0, -1, NULL, "b,2 c,1 a,1 a,5 b,5",
		   "by value descending, ties in insertion order");
	check_sort(m, 1, 1, -1, NULL, "a,5 a,1 b,2 b,5 c,1", "by key 1 (string) ascending");
	check_sort(m, -1, 2, -1, NULL, "a,5 b,5 b,2 c,1 a,1", "by key 2 descending");
	check_sort(m, -1, 0, 2, NULL, "b,2 c,1", "limit 2 after sorting");
	check_sort(m, 0, 0, 0, NULL, "", "limit 0: nothing");
	f[0] = ANY;
	f[1] = L(5);
	check_sort(m, 0, 0, -1, f, "a,5 b,5", "slice [*, 5]");
	f[0] = S("a");
	f[1] = ANY;
	check_sort(m, 1, 2, -1, f, "a,1 a,5", "slice [\"a\", *] sorted by key 2");
	tap_int_eq(maptap_script_map_exists(m, f), 1, "[\"a\", *] in a");
	f[0] = S("zz");
	tap_int_eq(maptap_script_map_exists(m, f), 0, "[\"zz\", *] not in a");
	f[0] = ANY;
	f[1] = L(5);
	tap_int_eq(maptap_script_map_delete(m, f), 2, "delete a[*, 5]: 2 elements");
	check_sort(m, 0, 0, -1, NULL, "b,2 c,1 a,1", "rest after slice delete");
	{
		struct maptap_script_sort bad = { .dir = 1, .column = 3, .limit = -1 };
		struct maptap_script_snap *s = NULL;

		tap_int_eq(maptap_script_map_snapshot(m, &bad, NULL, &s), -EINVAL,
			   "sorting by column 3 of a 2-key array is refused");
		f[0] = L(1);
		tap_int_eq(maptap_script_map_snapshot(m, NULL, f, &s), -EINVAL,
			   "a filter of the wrong key type is refused");
	}
	maptap_script_map_free(m);
}

static void test_delete_during_foreach(void)
{
	struct maptap_script_map *m = make(2, K_SL, MAPTAP_SCRIPT_LONG, 100, false);
	struct maptap_script_snap *s;
	const struct maptap_script_entry *e;
	struct maptap_script_value k[2] = { S("a"), L(5) }, v;

	fill_sl(m);
	maptap_script_map_snapshot(m, NULL, NULL, &s);
	maptap_script_map_delete(m, k);
	maptap_script_map_clear(m);
	e = maptap_script_snap_at(s, 1);
	v = maptap_script_entry_key(e, 0);
	tap_ok(!maptap_script_entry_live(e) && !strcmp(v.u.s.p, "a") &&
	       maptap_script_entry_value(e).u.l == 10,
	       "deleted element stays readable while the foreach runs");
	tap_int_eq(maptap_script_map_size(m), 0, "map is empty meanwhile");
	maptap_script_snap_free(s);	/* ASan checks the deferred frees */
	fill_sl(m);
	tap_int_eq(maptap_script_map_size(m), 5, "map usable after the snapshot");
	maptap_script_map_free(m);
}

static void test_stats(void)
{
	struct maptap_script_map_desc d = {
		.nkeys = 1, .key_types = { MAPTAP_SCRIPT_STRING },
		.value_type = MAPTAP_SCRIPT_STATS,
		.stat = { .hist = MAPTAP_SCRIPT_HIST_LOG },
		.max_entries = 10,
	};
	struct maptap_script_sort sort = {
		.dir = -1, .stat_op = MAPTAP_SCRIPT_STAT_SUM, .limit = -1,
	};
	struct maptap_script_map *m;
	struct maptap_script_error err;
	struct maptap_script_snap *s;
	struct maptap_script_value k, out;
	int64_t v = 0;

	maptap_script_map_new(&d, &m, &err);
	k = S("read");
	maptap_script_map_stat_add(m, &k, 300, &err);
	maptap_script_map_stat_add(m, &k, 400, &err);
	k = S("write");
	maptap_script_map_stat_add(m, &k, 1000, &err);
	k = S("read");
	tap_int_eq(maptap_script_map_get(m, &k, &out), 1, "stats element exists");
	maptap_script_stat_get(out.u.stat, MAPTAP_SCRIPT_STAT_AVG, &v, &err);
	tap_int_eq(v, 350, "@avg(a[\"read\"])");
	tap_int_eq(maptap_script_stat_bucket(out.u.stat, 64 + 9), 2,
		   "per-element log histogram");
	k = S("none");
	tap_int_eq(maptap_script_map_get(m, &k, &out), 0, "missing stats element");
	tap_int_eq(maptap_script_stat_count(out.u.stat), 0, "reads as an empty aggregate");
	tap_int_eq(maptap_script_stat_get(out.u.stat, MAPTAP_SCRIPT_STAT_MIN, &v, &err),
		   -ENODATA, "@min of it is \"empty aggregate\"");
	maptap_script_map_snapshot(m, &sort, NULL, &s);
	tap_str_eq(maptap_script_entry_key(maptap_script_snap_at(s, 0), 0).u.s.p,
		   "write", "sorted by @sum descending");
	maptap_script_snap_free(s);
	sort.stat_op = MAPTAP_SCRIPT_STAT_COUNT;
	maptap_script_map_snapshot(m, &sort, NULL, &s);
	tap_str_eq(maptap_script_entry_key(maptap_script_snap_at(s, 0), 0).u.s.p,
		   "read", "sorted by @count descending");
	maptap_script_snap_free(s);
	maptap_script_map_free(m);
}

static void test_scale(void)
{
	struct maptap_script_map *m = make(2, K_SL, MAPTAP_SCRIPT_LONG, 1000000, false);
	struct maptap_script_error err;
	struct maptap_script_value k[2], out;
	char name[32];
	int64_t i, bad = 0;

	for (i = 0; i < 200000; i++) {
		snprintf(name, sizeof(name), "k%lld", (long long)(i % 1000));
		k[0] = S(name);
		k[1] = L(i);
		if (maptap_script_map_add(m, k, i, NULL, &err))
			bad++;
	}
	for (i = 0; i < 200000; i++) {
		snprintf(name, sizeof(name), "k%lld", (long long)(i % 1000));
		k[0] = S(name);
		k[1] = L(i);
		if (maptap_script_map_get(m, k, &out) != 1 || out.u.l != i)
			bad++;
	}
	tap_int_eq(bad, 0, "200000 elements inserted and found");
	tap_int_eq(maptap_script_map_size(m), 200000, "size 200000");
	for (i = 0; i < 200000; i += 2) {
		snprintf(name, sizeof(name), "k%lld", (long long)(i % 1000));
		k[0] = S(name);
		k[1] = L(i);
		maptap_script_map_delete(m, k);
	}
	tap_int_eq(maptap_script_map_size(m), 100000, "half deleted");
	maptap_script_map_free(m);
}

static void test_bad_desc(void)
{
	struct maptap_script_map_desc d = {
		.nkeys = 10, .value_type = MAPTAP_SCRIPT_LONG, .max_entries = 1,
	};
	struct maptap_script_map *m = NULL;
	struct maptap_script_error err;

	tap_int_eq(maptap_script_map_new(&d, &m, &err), -EINVAL, "10 keys refused");
	d.nkeys = 1;
	d.max_entries = 0;
	tap_int_eq(maptap_script_map_new(&d, &m, &err), -EINVAL, "0 entries refused");
	d.max_entries = 1;
	d.value_type = MAPTAP_SCRIPT_STATS;
	d.stat.hist = MAPTAP_SCRIPT_HIST_LINEAR;
	tap_int_eq(maptap_script_map_new(&d, &m, &err), -EINVAL,
		   "bad histogram refused");
}

int main(void)
{
	test_long_values();
	test_string_values();
	test_overflow_and_wrap();
	test_foreach();
	test_delete_during_foreach();
	test_stats();
	test_scale();
	test_bad_desc();
	return tap_done();
}
