/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_mm_prop.c -- property test of the model against a naive reference.
 *
 * Random sequences of kernel states over a small address space (48
 * pages), each step changing one or two windows the way a system call
 * would and refreshing only those windows.  After every update:
 *  - replaying the events on the old page-granular function gives the
 *    new one exactly, no MAP/UNMAP/PROTECT/RENAME/REPLACE event covers an
 *    unchanged page, events are ordered and maximal (check_events());
 *  - the model verifies against the new VMAs and finds every page;
 *  - a move hinted as such is one MOVE event.
 * The generator is seeded (MAPTAP_PROP_SEED overrides the seed), so a
 * failure reproduces.
 */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <maptap/mm.h>

#include "mm_check.h"
#include "testsuite/lib/tap.h"

#define BASE 0x40000000ULL
#define NPAGES 48
#define STEPS 20000

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return r->s;
}

static unsigned below(struct rng *r, unsigned n)
{
	return (unsigned)(rnd(r) % n);
}

static const char *const names[] = { "", "[heap]", "/lib/a", "[anon:x]" };

static void random_state(struct rng *r, struct maptap_vma *v)
{
	static const uint32_t perms[] = {
		MAPTAP_PERM_R, MAPTAP_PERM_R | MAPTAP_PERM_W,
		MAPTAP_PERM_R | MAPTAP_PERM_X,
	};

	v->perms = perms[below(r, 3)];
	v->inode = below(r, 3) == 0 ? 5 + below(r, 2) : 0;
	v->dev_major = v->inode ? 0xfe : 0;
	v->dev_minor = 0;
	v->offset = v->inode ? below(r, 4) * PG : 0;
	v->name = names[v->inode ? 2 : below(r, 4) % 2 * 3 % 4];
	v->name_len = strlen(v->name);
}

/* Random VMAs covering [lo, hi) pages into OUT; returns the count.  Some
 * neighbours continue each other (a kernel split), to exercise merging. */
static size_t random_vmas(struct rng *r, unsigned lo, unsigned hi,
			  struct maptap_vma *out)
{
	size_t n = 0;
	unsigned p = lo;

	while (p < hi) {
		struct maptap_vma v = { 0 };
		unsigned len = 1 + below(r, 6);

		if (below(r, 3) == 0) {
			p += 1 + below(r, 3);		/* a hole */
			continue;
		}
		if (p + len > hi)
			len = hi - p;
		if (n && out[n - 1].end == BASE + p * PG && below(r, 2)) {
			v = out[n - 1];			/* continues it */
			if (v.inode)
				v.offset += v.end - v.start;
		} else {
			random_state(r, &v);
		}
		v.start = BASE + p * PG;
		v.end = BASE + (p + len) * PG;
		out[n++] = v;
		p += len;
	}
	return n;
}

struct world {
	struct maptap_vma v[NPAGES + 2];
	size_t n;
};

/* KERNEL with [lo, hi) pages replaced by random VMAs. */
static void splice(struct rng *r, const struct world *k, unsigned lo,
		   unsigned hi, struct world *out)
{
	struct maptap_vma mid[NPAGES + 2];
	size_t nm = random_vmas(r, lo, hi, mid), i;
	uint64_t blo = BASE + lo * PG, bhi = BASE + hi * PG;

	out->n = 0;
	for (i = 0; i < k->n; i++) {
		struct maptap_vma v = k->v[i];

		if (v.start < blo) {
			if (v.end > blo)
				v.end = blo;
			out->v[out->n++] = v;
		}
	}
	for (i = 0; i < nm; i++)
		out->v[out->n++] = mid[i];
	for (i = 0; i < k->n; i++) {
		struct maptap_vma v = k->v[i];

		if (v.end > bhi) {
			if (v.start < bhi) {
				if (v.inode)
					v.offset += bhi - v.start;
				v.start = bhi;
			}
			out->v[out->n++] = v;
		}
	}
}

/* A move: one VMA of K goes to a free place of the same or another size. */
static bool make_move(struct rng *r, const struct world *k, struct world *out,
		      struct maptap_mm_hint *h)
{
	struct ref used;
	const struct maptap_vma *o;
	unsigned len, start, i, tries;
	size_t j;

	if (!k->n)
		return false;
	o = &k->v[below(r, (unsigned)k->n)];
	len = (unsigned)((o->end - o->start) / PG) + below(r, 3);
	ref_init(&used, BASE, NPAGES);
	ref_from(&used, k->v, k->n);
	for (tries = 0; tries < 20; tries++) {
		start = below(r, NPAGES - len + 1);
		for (i = 0; i < len && !used.p[start + i].mapped; i++)
			;
		if (i == len)
			break;
	}
	ref_free(&used);
	if (tries == 20)
		return false;
	out->n = 0;
	for (j = 0; j < k->n; j++) {
		struct maptap_vma v = k->v[j];

		if (&k->v[j] == o)
			continue;
		out->v[out->n++] = v;
	}
	out->v[out->n] = *o;
	out->v[out->n].start = BASE + start * PG;
	out->v[out->n].end = BASE + (start + len) * PG;
	out->n++;
	/* keep address order */
	for (j = out->n - 1; j > 0 && out->v[j - 1].start > out->v[j].start;
	     j--) {
		struct maptap_vma t = out->v[j];

		out->v[j] = out->v[j - 1];
		out->v[j - 1] = t;
	}
	h->move_old = o->start;
	h->move_old_len = o->end - o->start;
	h->move_new = BASE + start * PG;
	h->move_new_len = len * PG;
	return true;
}

static size_t intersecting(const struct world *w, uint64_t lo, uint64_t hi,
			   uint64_t lo2, uint64_t hi2, struct maptap_vma *out)
{
	size_t i, n = 0;

	for (i = 0; i < w->n; i++)
		if ((w->v[i].start < hi && w->v[i].end > lo) ||
		    (w->v[i].start < hi2 && w->v[i].end > lo2))
			out[n++] = w->v[i];
	return n;
}

struct tally {
	unsigned steps, rc_bad, events_bad, verify_bad, find_bad, move_bad;
	unsigned moves, kinds[MAPTAP_EV_SHRINK + 1];
};

static bool finds_all(const struct maptap_mm *mm, const struct ref *want)
{
	size_t i;

	for (i = 0; i < want->npages; i++) {
		uint64_t a = BASE + i * PG;
		const struct maptap_vma *v = maptap_mm_find(mm, a);
		struct ref one;
		bool ok;

		if (!v) {
			uint64_t lo, hi, elo = 0, ehi = UINT64_MAX;
			size_t j;

			if (want->p[i].mapped)
				return false;
			/* The gap around an unmapped page ends at the
			 * nearest mapped pages on either side. */
			for (j = i; j-- > 0;)
				if (want->p[j].mapped) {
					elo = BASE + (j + 1) * PG;
					break;
				}
			for (j = i + 1; j < want->npages; j++)
				if (want->p[j].mapped) {
					ehi = BASE + j * PG;
					break;
				}
			if (!maptap_mm_gap(mm, a + PG / 2, &lo, &hi) ||
			    lo != elo || hi != ehi)
				return false;
			continue;
		}
		ref_init(&one, BASE, NPAGES);
		ref_set(&one, v, a, a + PG);
		ok = ref_page_eq(&one.p[i], &want->p[i]);
		ref_free(&one);
		if (!ok)
			return false;
	}
	return true;
}

static void dump_vmas(const char *what, const struct maptap_vma *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		tap_diag("%s %u-%u perms %u ino %" PRIu64 " off %" PRIx64
			 " '%s'", what, (unsigned)((v[i].start - BASE) / PG),
			 (unsigned)((v[i].end - BASE) / PG), v[i].perms,
			 v[i].inode, v[i].offset, v[i].name);
}

static void dump(const struct world *k, const struct world *next,
		 uint64_t blo, uint64_t bhi, uint64_t blo2, uint64_t bhi2,
		 const struct maptap_mm_hint *h, const struct evlog *log)
{
	size_t i;

	dump_vmas("old", k->v, k->n);
	dump_vmas("new", next->v, next->n);
	tap_diag("ranges %u-%u %u-%u in_place %d fresh %u-%u move %u+%u -> %u+%u",
		 (unsigned)((blo - BASE) / PG), (unsigned)((bhi - BASE) / PG),
		 blo2 ? (unsigned)((blo2 - BASE) / PG) : 0,
		 bhi2 ? (unsigned)((bhi2 - BASE) / PG) : 0, h->in_place,
		 h->fresh_lo ? (unsigned)((h->fresh_lo - BASE) / PG) : 0,
		 h->fresh_hi ? (unsigned)((h->fresh_hi - BASE) / PG) : 0,
		 h->move_old ? (unsigned)((h->move_old - BASE) / PG) : 0,
		 (unsigned)(h->move_old_len / PG),
		 h->move_new ? (unsigned)((h->move_new - BASE) / PG) : 0,
		 (unsigned)(h->move_new_len / PG));
	for (i = 0; i < log->n; i++) {
		const struct maptap_event *e = &log->ev[i];

		tap_diag("event %s %u-%u old %u-%u", kind_name(e->kind),
			 (unsigned)((e->vma.start - BASE) / PG),
			 (unsigned)((e->vma.end - BASE) / PG),
			 (unsigned)((e->old.start - BASE) / PG),
			 (unsigned)((e->old.end - BASE) / PG));
	}
}

static void step(struct rng *r, struct maptap_mm **mmp, struct world *k,
		 struct tally *t)
{
	struct world next;
	struct maptap_mm_hint h = { .syscall_nr = -1 };
	struct maptap_vma vis[NPAGES + 2];
	struct evlog log = { 0 };
	struct ref old, new;
	unsigned lo = below(r, NPAGES), hi = lo + 1 + below(r, NPAGES - lo);
	unsigned lo2 = 0, hi2 = 0;
	uint64_t blo, bhi, blo2 = 0, bhi2 = 0;
	size_t nv, i;
	int rc;

	if (below(r, 5) == 0 && make_move(r, k, &next, &h)) {
		blo = h.move_old;
		bhi = h.move_old + h.move_old_len;
		blo2 = h.move_new;
		bhi2 = h.move_new + h.move_new_len;
		t->moves++;
	} else {
		splice(r, k, lo, hi, &next);
		blo = BASE + lo * PG;
		bhi = BASE + hi * PG;
		if (below(r, 4) == 0) {
			lo2 = below(r, NPAGES);
			hi2 = lo2 + 1 + below(r, NPAGES - lo2);
			if (hi2 <= lo || lo2 >= hi) {
				struct world tmp = next;

				splice(r, &tmp, lo2, hi2, &next);
				blo2 = BASE + lo2 * PG;
				bhi2 = BASE + hi2 * PG;
			}
		}
		h.in_place = below(r, 3) == 0;
		if (below(r, 3) == 0) {
			h.fresh_lo = BASE + (lo + below(r, hi - lo)) * PG;
			h.fresh_hi = h.fresh_lo + PG;
		}
	}
	ref_init(&old, BASE, NPAGES);
	ref_init(&new, BASE, NPAGES);
	ref_from(&old, k->v, k->n);
	ref_from(&new, next.v, next.n);
	nv = intersecting(&next, blo, bhi, blo2, bhi2, vis);
	if (blo2 < bhi2)
		rc = maptap_mm_update2(*mmp, blo, bhi, blo2, bhi2, vis, nv, &h,
				       evlog_fn, &log);
	else
		rc = maptap_mm_update(*mmp, blo, bhi, vis, nv, &h, evlog_fn,
				      &log);
	t->steps++;
	t->rc_bad += rc != 0;
	if (!check_events(&old, &new, &log, &h) && t->events_bad++ < 3) {
		tap_diag("step %u: events do not replay (see above)", t->steps);
		if (getenv("MAPTAP_PROP_VERBOSE"))
			dump(k, &next, blo, bhi, blo2, bhi2, &h, &log);
	}
	if (maptap_mm_verify(*mmp, next.v, next.n, NULL, NULL) != 0)
		t->verify_bad++;
	if (!finds_all(*mmp, &new))
		t->find_bad++;
	for (i = 0; i < log.n; i++)
		t->kinds[log.ev[i].kind]++;
	if (h.move_new_len && log.n != 1 && t->move_bad++ < 3)
		tap_diag("step %u: a move gave %zu events", t->steps, log.n);
	*k = next;
	if (t->steps % 97 == 0) {
		struct maptap_mm *c = maptap_mm_copy(*mmp);

		maptap_mm_free(*mmp);
		*mmp = c;
	}
	evlog_free(&log);
	ref_free(&old);
	ref_free(&new);
}

int main(void)
{
	const char *seed = getenv("MAPTAP_PROP_SEED");
	struct rng r = { seed ? strtoull(seed, NULL, 0) : 0x5eed1234abcdULL };
	struct maptap_mm *mm = maptap_mm_new();
	struct world k = { .n = 0 };
	struct tally t = { 0 };
	unsigned i;

	tap_diag("seed %#" PRIx64 " (set MAPTAP_PROP_SEED to change)", r.s);
	for (i = 0; i < STEPS; i++)
		step(&r, &mm, &k, &t);
	tap_int_eq(t.rc_bad, 0, "every update returns 0");
	tap_int_eq(t.events_bad, 0, "events replay old to new, minimal, maximal");
	tap_int_eq(t.verify_bad, 0, "the model verifies after every update");
	tap_int_eq(t.find_bad, 0, "find() agrees with the reference on every page");
	tap_int_eq(t.move_bad, 0, "a hinted move is one event");
	tap_ok(t.moves > STEPS / 10, "moves were exercised (%u)", t.moves);
	for (i = 0; i <= MAPTAP_EV_SHRINK; i++)
		tap_ok(t.kinds[i] > 0, "event kind %s was produced (%u)",
		       kind_name((int)i), t.kinds[i]);
	maptap_mm_free(mm);
	return tap_done();
}
