/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_maps.c -- libFuzzer target: the maps parser and the mm diff.
 *
 * The input is maps text.  Its first half of VMAs seeds a model, the
 * second half refreshes the range it spans, with a hint taken from the
 * input's last bytes, once with one range and once split in two.  Beyond
 * "no crash, no sanitizer report" it checks invariants that must hold for
 * any input, and traps when one does not:
 *  - a refresh of the whole address space leaves a model equal (as a
 *    function) to the VMAs given;
 *  - the model's VMAs are ordered, non-empty and do not overlap, and
 *    their count is maptap_mm_count();
 *  - every event has a non-empty range and events come in address order.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <maptap/maps.h>
#include <maptap/mm.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

struct walk {
	size_t n;
	uint64_t last_end;
};

static int walk_one(const struct maptap_vma *v, void *arg)
{
	struct walk *w = arg;

	CHECK(v->start < v->end);
	CHECK(v->start >= w->last_end);
	CHECK(v->name && v->name[v->name_len] == '\0');
	w->last_end = v->end;
	w->n++;
	return 0;
}

static void check_model(const struct maptap_mm *mm)
{
	struct walk w = { 0, 0 };

	maptap_mm_foreach(mm, 0, UINT64_MAX, walk_one, &w);
	CHECK(w.n == maptap_mm_count(mm));
}

struct order {
	uint64_t last_start;
	size_t n;
};

static int on_event(const struct maptap_event *ev, void *arg)
{
	struct order *o = arg;

	CHECK(maptap_event_is_range(ev->kind));
	CHECK(ev->vma.start < ev->vma.end);
	CHECK(ev->vma.name && ev->old.name);
	CHECK(!o->n || ev->vma.start >= o->last_start);
	o->last_start = ev->vma.start;
	o->n++;
	return 0;
}

static void hint_from(const uint8_t *data, size_t size, uint64_t lo,
		      uint64_t hi, struct maptap_mm_hint *h)
{
	uint8_t b = size ? data[size - 1] : 0;
	uint64_t span = hi - lo;

	memset(h, 0, sizeof(*h));
	h->syscall_nr = -1;
	h->in_place = b & 1;
	h->snapshot = b & 2;
	if (b & 4) {
		h->fresh_lo = lo + span / 4;
		h->fresh_hi = lo + span / 2;
	}
	if (b & 8) {
		h->move_old = lo;
		h->move_old_len = span / 2;
		h->move_new = lo + span / 2;
		h->move_new_len = span - span / 2;
	}
}

static void run(const struct maptap_vma *v, size_t n, const uint8_t *data,
		size_t size, bool two)
{
	struct maptap_mm *mm = maptap_mm_new();
	size_t half = n / 2;
	struct maptap_mm_hint h;
	struct order o = { 0, 0 };
	uint64_t lo, hi, mid;
	int rc;

	if (!mm)
		return;
	rc = maptap_mm_update(mm, 0, UINT64_MAX, v, half, NULL, on_event, &o);
	if (rc == 0)
		CHECK(maptap_mm_verify(mm, v, half, NULL, NULL) == 0);
	check_model(mm);
	if (half < n) {
		lo = v[half].start;
		hi = v[n - 1].end > lo ? v[n - 1].end : lo;
		hint_from(data, size, lo, hi, &h);
		o.n = 0;
		mid = lo + (hi - lo) / 2;
		if (two)
			maptap_mm_update2(mm, lo, mid, mid + (hi - mid) / 2, hi,
					  v + half, n - half, &h, on_event, &o);
		else
			maptap_mm_update(mm, lo, hi, v + half, n - half, &h,
					 on_event, &o);
		check_model(mm);
	}
	maptap_mm_free(mm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct maptap_vma_buf buf = { 0 };

	maptap_maps_parse((const char *)data, size, &buf);
	run(buf.v, buf.n, data, size, false);
	run(buf.v, buf.n, data, size, true);
	maptap_vma_buf_free(&buf);
	return 0;
}
