/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_mm.c -- the mm model and its diff, scenario by scenario.
 *
 * Each scenario states the kernel's VMAs before and after a system call
 * as it would leave them (pages relative to BASE), runs the update the
 * tracer would run, and checks (1) the events, written out as text, (2)
 * that replaying them on the page-granular reference gives the new
 * function, and (3) that the model verifies against the new VMAs.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <maptap/maps.h>
#include <maptap/mm.h>

#include "mm_check.h"
#include "testsuite/lib/tap.h"

#define BASE 0x10000000ULL
#define NPAGES 64

static struct maptap_vma V(unsigned s, unsigned e, const char *perms,
			   uint64_t ino, unsigned offpg, const char *name)
{
	struct maptap_vma v = { 0 };

	v.start = BASE + s * PG;
	v.end = BASE + e * PG;
	v.perms = (perms[0] == 'r' ? MAPTAP_PERM_R : 0) |
		  (perms[1] == 'w' ? MAPTAP_PERM_W : 0) |
		  (perms[2] == 'x' ? MAPTAP_PERM_X : 0) |
		  (perms[3] == 's' ? MAPTAP_PERM_S : 0);
	v.inode = ino;
	if (ino) {
		v.dev_major = 0xfe;
		v.offset = offpg * PG;
	}
	v.name = name ? name : "";
	v.name_len = strlen(v.name);
	v.kind = maptap_vma_kind_of(v.name, v.name_len, ino);
	return v;
}

static unsigned pg(uint64_t a)
{
	return (unsigned)((a - BASE) / PG);
}

/* "protect 2-4, grow 0-6/0-4": kind and pages of each event; MOVE, GROW
 * and SHRINK add their old extent. */
static void describe(const struct evlog *log, char *out, size_t size)
{
	size_t i, n = 0;

	out[0] = '\0';
	for (i = 0; i < log->n && n < size; i++) {
		const struct maptap_event *e = &log->ev[i];

		n += (size_t)snprintf(out + n, size - n, "%s%s %u-%u",
				      i ? ", " : "", kind_name(e->kind),
				      pg(e->vma.start), pg(e->vma.end));
		if (n < size && (e->kind == MAPTAP_EV_MOVE ||
				 e->kind == MAPTAP_EV_GROW ||
				 e->kind == MAPTAP_EV_SHRINK))
			n += (size_t)snprintf(out + n, size - n, "/%u-%u",
					      pg(e->old.start), pg(e->old.end));
	}
}

struct scenario {
	const char *what;
	const struct maptap_vma *before;
	size_t nb;
	const struct maptap_vma *after;	/* the whole new address space */
	size_t na;
	unsigned lo1, hi1, lo2, hi2;	/* refreshed pages; hi2 0: one range */
	struct maptap_mm_hint hint;
	const char *want;
	long want_count;		/* model VMAs after; -1: don't check */
};

static struct maptap_mm *model_of(const struct maptap_vma *v, size_t n)
{
	struct maptap_mm *mm = maptap_mm_new();

	if (!mm || maptap_mm_update(mm, 0, UINT64_MAX, v, n, NULL, NULL, NULL))
		abort();
	return mm;
}

/* The kernel's VMAs that intersect the refreshed ranges, whole, as a
 * reader would return them. */
static size_t visible(const struct scenario *s, struct maptap_vma *out)
{
	size_t i, n = 0;

	for (i = 0; i < s->na; i++) {
		const struct maptap_vma *v = &s->after[i];
		bool in1 = v->start < BASE + s->hi1 * PG &&
			   v->end > BASE + s->lo1 * PG;
		bool in2 = s->hi2 && v->start < BASE + s->hi2 * PG &&
			   v->end > BASE + s->lo2 * PG;

		if (in1 || in2)
			out[n++] = *v;
	}
	return n;
}

static void run(const struct scenario *s)
{
	struct maptap_mm *mm = model_of(s->before, s->nb);
	struct maptap_vma vis[32];
	size_t nv = visible(s, vis);
	struct ref old, new;
	struct evlog log = { 0 };
	struct maptap_vma_buf want = { 0 };
	char got[512];
	int rc;

	ref_init(&old, BASE, NPAGES);
	ref_init(&new, BASE, NPAGES);
	ref_from(&old, s->before, s->nb);
	ref_from(&new, s->after, s->na);
	if (s->hi2)
		rc = maptap_mm_update2(mm, BASE + s->lo1 * PG, BASE + s->hi1 * PG,
				       BASE + s->lo2 * PG, BASE + s->hi2 * PG,
				       vis, nv, &s->hint, evlog_fn, &log);
	else
		rc = maptap_mm_update(mm, BASE + s->lo1 * PG, BASE + s->hi1 * PG,
				      vis, nv, &s->hint, evlog_fn, &log);
	tap_int_eq(rc, 0, s->what);
	describe(&log, got, sizeof(got));
	tap_str_eq(got, s->want, s->what);
	tap_ok(check_events(&old, &new, &log, &s->hint),
	       "%s: events replay old to new", s->what);
	ref_to_vmas(&new, &want);
	tap_int_eq((long long)maptap_mm_verify(mm, want.v, want.n, NULL, NULL),
		   0, "model verifies after the update");
	if (s->want_count >= 0)
		tap_int_eq((long long)maptap_mm_count(mm), s->want_count,
			   "model keeps the kernel's VMAs");
	maptap_vma_buf_free(&want);
	evlog_free(&log);
	ref_free(&old);
	ref_free(&new);
	maptap_mm_free(mm);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_scenarios(void)
{
	const struct maptap_vma one_rw[] = { V(0, 8, "rw-p", 0, 0, NULL) };
	const struct maptap_vma prot_mid[] = {
		V(0, 2, "rw-p", 0, 0, NULL), V(2, 4, "r--p", 0, 0, NULL),
		V(4, 8, "rw-p", 0, 0, NULL),
	};
	const struct maptap_vma split[] = {
		V(0, 4, "rw-p", 0, 0, NULL), V(4, 8, "rw-p", 0, 0, NULL),
	};
	const struct maptap_vma file4[] = { V(0, 4, "r--p", 5, 0, "/lib/a") };
	const struct maptap_vma file4_fixed[] = {
		V(0, 1, "r--p", 5, 0, "/lib/a"), V(1, 2, "rw-p", 0, 0, NULL),
		V(2, 4, "r--p", 5, 2, "/lib/a"),
	};
	const struct maptap_vma holed[] = {
		V(0, 2, "rw-p", 0, 0, NULL), V(6, 8, "rw-p", 0, 0, NULL),
	};
	const struct maptap_vma two_kinds[] = {
		V(0, 4, "rw-p", 0, 0, NULL), V(4, 8, "r--p", 7, 0, "/f"),
	};
	const struct maptap_vma file_split[] = {
		V(0, 2, "r--p", 5, 0, "/lib/a"), V(2, 4, "r--p", 5, 2, "/lib/a"),
	};
	const struct maptap_vma file_split_x[] = {
		V(0, 2, "r-xp", 5, 0, "/lib/a"), V(2, 4, "r-xp", 5, 2, "/lib/a"),
	};
	const struct maptap_vma file_gap[] = {
		V(0, 2, "r--p", 5, 0, "/lib/a"), V(2, 4, "r--p", 5, 9, "/lib/a"),
	};
	const struct maptap_vma file_gap_x[] = {
		V(0, 2, "r-xp", 5, 0, "/lib/a"), V(2, 4, "r-xp", 5, 9, "/lib/a"),
	};
	const struct maptap_vma anon4[] = { V(0, 4, "rw-p", 0, 0, NULL) };
	const struct maptap_vma anon6[] = { V(0, 6, "rw-p", 0, 0, NULL) };
	const struct maptap_vma moved[] = { V(10, 14, "r--p", 5, 0, "/lib/a") };
	const struct maptap_vma moved_big[] = {
		V(10, 16, "rw-p", 0, 0, NULL),
	};
	const struct maptap_vma heap2[] = { V(20, 22, "rw-p", 0, 0, "[heap]") };
	const struct maptap_vma heap5[] = { V(20, 25, "rw-p", 0, 0, "[heap]") };
	const struct maptap_vma heap1[] = { V(20, 21, "rw-p", 0, 0, "[heap]") };
	const struct maptap_vma stack2[] = {
		V(30, 32, "rw-p", 0, 0, "[stack]"),
	};
	const struct maptap_vma stack4[] = {
		V(28, 32, "rw-p", 0, 0, "[stack]"),
	};
	const struct maptap_vma big[] = { V(0, 20, "rw-p", 0, 0, NULL) };
	const struct maptap_vma big_two[] = {
		V(0, 2, "rw-p", 0, 0, NULL), V(2, 4, "r--p", 0, 0, NULL),
		V(4, 10, "rw-p", 0, 0, NULL), V(10, 12, "r--p", 0, 0, NULL),
		V(12, 20, "rw-p", 0, 0, NULL),
	};
	const struct maptap_vma snap[] = {
		V(0, 2, "r--p", 5, 0, "/bin/x"), V(2, 4, "r-xp", 5, 2, "/bin/x"),
		V(8, 10, "rw-p", 0, 0, NULL), V(10, 12, "rw-p", 0, 0, NULL),
	};
	/* Fuzz-maps.sh's crash: a model VMA between two refreshed ranges,
	 * and one kernel VMA over both and it.  Both ranges' edges took
	 * the VMA between them (two overlapping nodes); one node now. */
	const struct maptap_vma mid_only[] = { V(3, 5, "rw-p", 0, 0, NULL) };
	const struct maptap_vma across[] = { V(0, 8, "rw-p", 0, 0, NULL) };
	const struct scenario sc[] = {
		{ "one VMA over two ranges and the model's VMA between", mid_only,
		  1, across, 1, 0, 3, 5, 8, { 0 }, "map 0-3, map 5-8", 1 },
		{ "attach snapshot", NULL, 0, snap, N(snap), 0, 64, 0, 0,
		  { .snapshot = true }, "map 0-2, map 2-4, map 8-12", 4 },
		{ "mprotect the middle", one_rw, 1, prot_mid, N(prot_mid),
		  2, 4, 0, 0, { 0 }, "protect 2-4", 3 },
		{ "mprotect back merges", prot_mid, 3, one_rw, 1, 2, 4, 0, 0,
		  { 0 }, "protect 2-4", 1 },
		{ "a split changes nothing", one_rw, 1, split, 2, 0, 8, 0, 0,
		  { 0 }, "", 2 },
		{ "MAP_FIXED over a file", file4, 1, file4_fixed, 3, 1, 2, 0, 0,
		  { .fresh_lo = BASE + PG, .fresh_hi = BASE + 2 * PG },
		  "replace 1-2", 3 },
		{ "MAP_FIXED anon over anon", one_rw, 1, one_rw, 1, 2, 3, 0, 0,
		  { .fresh_lo = BASE + 2 * PG, .fresh_hi = BASE + 3 * PG },
		  "replace 2-3", -1 },
		{ "same without the hint", one_rw, 1, one_rw, 1, 2, 3, 0, 0,
		  { 0 }, "", 1 },
		{ "partial munmap", one_rw, 1, holed, 2, 2, 6, 0, 0, { 0 },
		  "unmap 2-6", 2 },
		{ "munmap of two VMAs", two_kinds, 2, NULL, 0, 0, 8, 0, 0,
		  { 0 }, "unmap 0-4, unmap 4-8", 0 },
		{ "munmap of a split VMA is one event", split, 2, NULL, 0, 0, 8,
		  0, 0, { 0 }, "unmap 0-8", 0 },
		{ "mprotect coalesces continuous offsets", file_split, 2,
		  file_split_x, 2, 0, 4, 0, 0, { 0 }, "protect 0-4", 2 },
		{ "but not discontinuous ones", file_gap, 2, file_gap_x, 2,
		  0, 4, 0, 0, { 0 }, "protect 0-2, protect 2-4", 2 },
		{ "mremap grows in place", anon4, 1, anon6, 1, 4, 6, 0, 0,
		  { .in_place = true }, "grow 0-6/0-4", 1 },
		{ "mremap moves", file4, 1, moved, 1, 0, 4, 10, 14,
		  { .move_old = BASE, .move_old_len = 4 * PG,
		    .move_new = BASE + 10 * PG, .move_new_len = 4 * PG },
		  "move 10-14/0-4", 1 },
		{ "mremap moves and grows", anon4, 1, moved_big, 1, 0, 4, 10, 16,
		  { .move_old = BASE, .move_old_len = 4 * PG,
		    .move_new = BASE + 10 * PG, .move_new_len = 6 * PG },
		  "move 10-16/0-4", 1 },
		{ "a move without the hint", file4, 1, moved, 1, 0, 4, 10, 14,
		  { 0 }, "unmap 0-4, map 10-14", 1 },
		{ "brk grows", heap2, 1, heap5, 1, 22, 25, 0, 0,
		  { .in_place = true }, "grow 20-25/20-22", 1 },
		{ "brk shrinks", heap5, 1, heap1, 1, 21, 25, 0, 0,
		  { .in_place = true }, "shrink 20-21/20-25", 1 },
		{ "the stack grows down", stack2, 1, stack4, 1, 28, 30, 0, 0,
		  { .in_place = true }, "grow 28-32/30-32", 1 },
		{ "two ranges, one VMA across the gap", big, 1, big_two, 5,
		  2, 4, 10, 12, { 0 }, "protect 2-4, protect 10-12", 5 },
	};
	size_t i;

	for (i = 0; i < N(sc); i++)
		run(&sc[i]);
}

static char *slurp(const char *rel, size_t *len)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", top ? top : "..", rel);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static bool load(const char *rel, struct maptap_vma_buf *buf)
{
	size_t len;
	char *text = slurp(rel, &len);
	int rc;

	if (!text)
		return false;
	rc = maptap_maps_parse(text, len, buf);
	free(text);
	return rc == 0;
}

/* prctl(PR_SET_VMA_ANON_NAME) needs CONFIG_ANON_VMA_NAME, off here: the
 * before and after texts are fixtures. */
static void test_rename(void)
{
	struct maptap_vma_buf before = { 0 }, after = { 0 };
	struct maptap_mm *mm;
	struct evlog log = { 0 };

	if (!tap_ok(load("testsuite/fixtures/maps/rename_before.maps", &before) &&
		    load("testsuite/fixtures/maps/rename_after.maps", &after),
		    "load the rename fixtures"))
		return;
	mm = maptap_mm_new();
	maptap_mm_update(mm, 0, UINT64_MAX, before.v, before.n, NULL, NULL,
			 NULL);
	tap_int_eq(maptap_mm_update(mm, after.v[0].start, after.v[2].end,
				    after.v, after.n, NULL, evlog_fn, &log),
		   0, "rename update");
	tap_int_eq((long long)log.n, 1, "one event");
	if (log.n == 1) {
		tap_int_eq(log.ev[0].kind, MAPTAP_EV_RENAME, "it is RENAME");
		tap_ok(log.ev[0].vma.start == after.v[1].start &&
		       log.ev[0].vma.end == after.v[1].end, "over the named part");
		tap_str_eq(log.ev[0].vma.name, "[anon:cache]", "new name");
		tap_str_eq(log.ev[0].old.name, "", "old name");
		tap_int_eq(log.ev[0].vma.kind, MAPTAP_VMA_ANON_NAMED, "kind");
	}
	evlog_free(&log);
	maptap_mm_free(mm);
	maptap_vma_buf_free(&before);
	maptap_vma_buf_free(&after);
}

static void test_hint_fields(void)
{
	const struct maptap_vma v[] = { V(0, 2, "r--p", 0, 0, NULL) };
	struct maptap_mm_hint h = { .pid = 11, .tid = 12, .time_ns = 13,
				    .syscall_nr = 9, .syscall = "mmap" };
	struct maptap_mm *mm = maptap_mm_new();
	struct evlog log = { 0 };

	maptap_mm_update(mm, BASE, BASE + 2 * PG, v, 1, &h, evlog_fn, &log);
	tap_ok(log.n == 1 && log.ev[0].pid == 11 && log.ev[0].tid == 12 &&
	       log.ev[0].time_ns == 13 && log.ev[0].syscall_nr == 9 &&
	       strcmp(log.ev[0].syscall, "mmap") == 0 && !log.ev[0].snapshot,
	       "events carry the hint's pid, tid, time and syscall");
	tap_ok(log.n == 1 && log.ev[0].old.name && log.ev[0].old.name[0] == 0 &&
	       log.ev[0].old.start == 0 && log.ev[0].old.perms == 0,
	       "MAP's old state is zero with name \"\"");
	evlog_clear(&log);
	maptap_mm_update(mm, BASE, BASE + 2 * PG, NULL, 0, NULL, evlog_fn, &log);
	tap_ok(log.n == 1 && log.ev[0].syscall_nr == -1 && !log.ev[0].syscall,
	       "no hint: a resync, syscall -1 and NULL");
	tap_ok(log.n == 1 && log.ev[0].kind == MAPTAP_EV_UNMAP &&
	       log.ev[0].vma.perms == MAPTAP_PERM_R, "UNMAP carries the old state");
	evlog_free(&log);
	maptap_mm_free(mm);
}

static void test_errors_and_stop(void)
{
	const struct maptap_vma unsorted[] = {
		V(4, 6, "rw-p", 0, 0, NULL), V(0, 2, "rw-p", 0, 0, NULL),
	};
	const struct maptap_vma overlap[] = {
		V(0, 4, "rw-p", 0, 0, NULL), V(2, 6, "rw-p", 0, 0, NULL),
	};
	const struct maptap_vma three[] = {
		V(0, 2, "r--p", 0, 0, NULL), V(4, 6, "r--p", 0, 0, NULL),
		V(8, 10, "r--p", 0, 0, NULL),
	};
	struct maptap_mm *mm = maptap_mm_new();
	struct evlog log = { .stop_after = 1 };

	tap_int_eq(maptap_mm_update(mm, 0, UINT64_MAX, unsorted, 2, NULL, NULL,
				    NULL), -EINVAL, "unsorted VMAs: -EINVAL");
	tap_int_eq(maptap_mm_update(mm, 0, UINT64_MAX, overlap, 2, NULL, NULL,
				    NULL), -EINVAL, "overlapping VMAs: -EINVAL");
	tap_int_eq(maptap_mm_update(mm, 2, 1, NULL, 0, NULL, NULL, NULL),
		   -EINVAL, "lo > hi: -EINVAL");
	tap_int_eq(maptap_mm_update2(mm, 0, 10, 5, 20, NULL, 0, NULL, NULL,
				     NULL), -EINVAL, "overlapping ranges: -EINVAL");
	tap_int_eq((long long)maptap_mm_count(mm), 0, "errors change nothing");
	tap_int_eq(maptap_mm_update(mm, 0, UINT64_MAX, three, 3, NULL,
				    evlog_fn, &log), 1,
		   "a callback's non-zero return is passed back");
	tap_int_eq((long long)log.n, 1, "and stops the events");
	tap_int_eq((long long)maptap_mm_count(mm), 3, "the model is updated");
	evlog_free(&log);
	maptap_mm_free(mm);
}

struct verify_log {
	int n;
	uint64_t lo, hi;
	bool model_null, kernel_null;
};

static void on_diff(uint64_t lo, uint64_t hi, const struct maptap_vma *m,
		    const struct maptap_vma *k, void *arg)
{
	struct verify_log *l = arg;

	l->n++;
	l->lo = lo;
	l->hi = hi;
	l->model_null = !m;
	l->kernel_null = !k;
}

static int count_one(const struct maptap_vma *v, void *arg)
{
	(*(int *)arg)++;
	return v->start >= BASE + 8 * PG ? 7 : 0;
}

static void test_lookup_copy_verify(void)
{
	const struct maptap_vma v[] = {
		V(0, 2, "r--p", 5, 0, "/bin/x"), V(2, 4, "r-xp", 5, 2, "/bin/x"),
		V(8, 10, "rw-p", 0, 0, NULL), V(10, 12, "rw-p", 0, 0, NULL),
		V(20, 22, "rw-p", 0, 0, NULL),
	};
	const struct maptap_vma merged[] = {
		V(0, 2, "r--p", 5, 0, "/bin/x"), V(2, 4, "r-xp", 5, 2, "/bin/x"),
		V(8, 12, "rw-p", 0, 0, NULL), V(20, 22, "rw-p", 0, 0, NULL),
	};
	const struct maptap_vma wrong[] = {
		V(0, 2, "r--p", 5, 0, "/bin/x"), V(2, 4, "r-xp", 5, 2, "/bin/x"),
		V(8, 12, "rw-p", 0, 0, NULL),
	};
	struct maptap_mm *mm = model_of(v, N(v)), *copy;
	struct verify_log vl = { 0 };
	const struct maptap_vma *f;
	int n = 0;

	tap_int_eq((long long)maptap_mm_count(mm), 5, "count");
	f = maptap_mm_find(mm, BASE + 3 * PG + 5);
	tap_ok(f && f->start == BASE + 2 * PG && f->offset == 2 * PG &&
	       strcmp(f->name, "/bin/x") == 0, "find inside a VMA");
	tap_ok(!maptap_mm_find(mm, BASE + 5 * PG), "find in a hole is NULL");
	tap_ok(!maptap_mm_find(mm, BASE + 4 * PG), "end is exclusive");
	{
		uint64_t lo = 1, hi = 1;

		tap_ok(!maptap_mm_gap(mm, BASE + 3 * PG, &lo, &hi) &&
		       lo == 1 && hi == 1, "no gap inside a VMA");
		tap_ok(maptap_mm_gap(mm, BASE + 4 * PG, &lo, &hi) &&
		       lo == BASE + 4 * PG && hi == BASE + 8 * PG,
		       "gap between two VMAs, from the end of one");
		tap_ok(maptap_mm_gap(mm, BASE + 20 * PG - 1, &lo, &hi) &&
		       lo == BASE + 12 * PG && hi == BASE + 20 * PG,
		       "gap to the start of the next");
		tap_ok(maptap_mm_gap(mm, 0, &lo, &hi) && lo == 0 &&
		       hi == BASE, "gap below every VMA starts at 0");
		tap_ok(maptap_mm_gap(mm, BASE + 22 * PG, &lo, &hi) &&
		       lo == BASE + 22 * PG && hi == UINT64_MAX,
		       "gap above every VMA ends at UINT64_MAX");
	}
	tap_int_eq(maptap_mm_foreach(mm, BASE + 3 * PG, BASE + 21 * PG,
				     count_one, &n), 7,
		   "foreach stops on the callback's value");
	tap_int_eq(n, 2, "after visiting VMAs in order from the range");
	n = 0;
	maptap_mm_foreach(mm, BASE + 3 * PG, BASE + 8 * PG, count_one, &n);
	tap_int_eq(n, 1, "foreach's HI is exclusive");

	copy = maptap_mm_copy(mm);
	tap_ok(copy && maptap_mm_count(copy) == 5, "copy has every VMA");
	maptap_mm_update(mm, 0, UINT64_MAX, NULL, 0, NULL, NULL, NULL);
	tap_int_eq((long long)maptap_mm_count(mm), 0, "original emptied");
	tap_int_eq((long long)maptap_mm_verify(copy, v, N(v), NULL, NULL), 0,
		   "the copy is independent of the original");
	tap_int_eq((long long)maptap_mm_verify(copy, merged, N(merged), NULL,
					       NULL), 0,
		   "verify ignores splits and merges");
	tap_int_eq((long long)maptap_mm_verify(copy, wrong, N(wrong), on_diff,
					       &vl), 1, "verify finds a missing VMA");
	tap_ok(vl.n == 1 && vl.lo == BASE + 20 * PG && vl.hi == BASE + 22 * PG &&
	       !vl.model_null && vl.kernel_null, "and reports where and which side");
	maptap_mm_free(copy);
	maptap_mm_free(mm);
}

/* --verify checks the range an event touched (docs/tracer.md): a
 * difference inside the range is found and clipped to it, one outside
 * is not looked at, and a kernel VMA that reaches past the range (a
 * range read returns VMAs whole) is no difference by itself. */
static void test_verify_range(void)
{
	const struct maptap_vma model[] = {
		V(0, 4, "r--p", 5, 0, "/bin/x"), V(8, 16, "rw-p", 0, 0, NULL),
		V(20, 22, "rw-p", 0, 0, NULL),
	};
	/* The kernel: page 10 made r-- (planted), page 30 mapped. */
	const struct maptap_vma kernel[] = {
		V(0, 4, "r--p", 5, 0, "/bin/x"), V(8, 10, "rw-p", 0, 0, NULL),
		V(10, 11, "r--p", 0, 0, NULL), V(11, 16, "rw-p", 0, 0, NULL),
		V(20, 22, "rw-p", 0, 0, NULL), V(30, 31, "rw-p", 0, 0, NULL),
	};
	struct maptap_mm *mm = model_of(model, N(model));
	struct verify_log vl = { 0 };

	tap_int_eq((long long)maptap_mm_verify(mm, kernel, N(kernel), NULL,
					       NULL), 2,
		   "verify_range: the full check sees both differences");
	tap_int_eq((long long)maptap_mm_verify_range(mm, BASE + 9 * PG,
						     BASE + 12 * PG, kernel + 1,
						     3, on_diff, &vl), 1,
		   "verify_range: finds the planted difference in its range");
	tap_ok(vl.n == 1 && vl.lo == BASE + 10 * PG && vl.hi == BASE + 11 * PG &&
	       !vl.model_null && !vl.kernel_null,
	       "verify_range: and reports exactly it");
	vl.n = 0;
	tap_int_eq((long long)maptap_mm_verify_range(mm, BASE + 12 * PG,
						     BASE + 24 * PG, kernel + 3,
						     2, on_diff, &vl), 0,
		   "verify_range: VMAs reaching past the range are clipped");
	tap_int_eq((long long)maptap_mm_verify_range(mm, BASE + 29 * PG,
						     BASE + 32 * PG, kernel + 5,
						     1, NULL, NULL), 1,
		   "verify_range: a mapping the model lacks");
	tap_int_eq((long long)maptap_mm_verify_range(mm, BASE, BASE + 4 * PG,
						     kernel, 1, NULL, NULL), 0,
		   "verify_range: the model outside the range is not looked at");
	tap_int_eq((long long)maptap_mm_verify_range(mm, BASE + 4 * PG,
						     BASE + 4 * PG, kernel, 0,
						     NULL, NULL), 0,
		   "verify_range: an empty range");
	/* The kernel has nothing in the range: no VMA array at all (the
	 * fuzzer's find: NULL + 0 is undefined behaviour in C). */
	tap_int_eq((long long)maptap_mm_verify_range(mm, BASE + 8 * PG,
						     BASE + 9 * PG, NULL, 0,
						     NULL, NULL), 1,
		   "verify_range: no kernel VMA (NULL, 0): the model's is one");
	maptap_mm_free(mm);
}

int main(void)
{
	test_scenarios();
	test_rename();
	test_hint_fields();
	test_errors_and_stop();
	test_lookup_copy_verify();
	test_verify_range();
	return tap_done();
}
