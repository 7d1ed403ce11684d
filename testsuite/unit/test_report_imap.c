/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_report_imap.c -- the report's interval map against the simplest
 * model that can be right: an array with one (site, class) per page.
 * Random assign/erase/reclass/fill/move/copy (fixed seeds, so a failure
 * replays); after each, every page, the byte total, the bytes each
 * operation reported gone per site, and the treap's invariants (order,
 * no overlap, heap on priorities, no two mergeable neighbours after an
 * assign) are checked.
 */
#include <config.h>

#include "../lib/tap.h"
#include "../../runtime/report/report_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGES 192
#define PG 4096ull
#define NSITES 6
#define UNMAPPED 0xffffffffu

struct model {
	uint32_t site[PAGES], cls[PAGES];
};

struct gone {
	uint64_t by_site[NSITES];
};

static void on_gone(void *arg, uint32_t site, uint64_t bytes)
{
	struct gone *g = arg;

	if (site < NSITES)
		g->by_site[site] += bytes;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* First failure only: the rest would repeat it. */
static char why[256];

static void fill_pages(const struct rp_node *t, const struct model *want,
		       uint64_t *lo)
{
	uint64_t a;

	if (!t || why[0])
		return;
	fill_pages(t->l, want, lo);
	if (t->start < *lo || t->start >= t->end)
		snprintf(why, sizeof(why), "node %#llx-%#llx out of order",
			 (unsigned long long)t->start,
			 (unsigned long long)t->end);
	if (t->l && t->l->prio > t->prio)
		snprintf(why, sizeof(why), "heap order broken");
	if (t->r && t->r->prio > t->prio)
		snprintf(why, sizeof(why), "heap order broken");
	for (a = t->start; a < t->end && !why[0]; a += PG) {
		size_t p = a / PG;

		if (p >= PAGES || want->site[p] != t->site ||
		    want->cls[p] != t->cls)
			snprintf(why, sizeof(why),
				 "page %zu: map (%u,%u), model (%u,%u)", p,
				 t->site, t->cls,
				 p < PAGES ? want->site[p] : 0,
				 p < PAGES ? want->cls[p] : 0);
	}
	*lo = t->end;
	fill_pages(t->r, want, lo);
}

static size_t mapped_pages(const struct model *w)
{
	size_t p, n = 0;

	for (p = 0; p < PAGES; p++)
		n += w->site[p] != UNMAPPED;
	return n;
}

/* Map and model agree: every node matches, and every mapped page of the
 * model is covered (by the byte count). */
static bool agree(const struct rp_map *m, const struct model *w)
{
	uint64_t lo = 0;

	fill_pages(m->root, w, &lo);
	if (!why[0] && m->bytes != mapped_pages(w) * PG)
		snprintf(why, sizeof(why), "bytes %llu, model %zu pages",
			 (unsigned long long)m->bytes, mapped_pages(w));
	return !why[0];
}

static void model_set(struct model *w, size_t s, size_t e, uint32_t site,
		      uint32_t cls, uint64_t *gone)
{
	size_t p;

	for (p = s; p < e; p++) {
		if (w->site[p] != UNMAPPED && gone)
			gone[w->site[p]] += PG;
		w->site[p] = site;
		w->cls[p] = site == UNMAPPED ? UNMAPPED : cls;
	}
}

static bool one_op(struct rp_map *m, struct model *w, uint64_t *rng)
{
	size_t s = rnd(rng) % PAGES, e = s + 1 + rnd(rng) % 24, p;
	uint32_t site = (uint32_t)(rnd(rng) % NSITES);
	uint32_t cls = (uint32_t)(rnd(rng) % 3);
	uint64_t want_gone[NSITES] = { 0 }, added = 0, want_added = 0;
	struct gone g = { { 0 } };
	struct model old = *w;
	int op = (int)(rnd(rng) % 5), err = 0;

	if (e > PAGES)
		e = PAGES;
	switch (op) {
	case 0:
		err = rp_map_assign(m, s * PG, e * PG, site, cls, on_gone, &g);
		model_set(w, s, e, site, cls, want_gone);
		break;
	case 1:
		err = rp_map_erase(m, s * PG, e * PG, on_gone, &g);
		model_set(w, s, e, UNMAPPED, 0, want_gone);
		break;
	case 2:
		err = rp_map_reclass(m, s * PG, e * PG, cls);
		for (p = s; p < e; p++)
			if (w->site[p] != UNMAPPED)
				w->cls[p] = cls;
		break;
	case 3:
		err = rp_map_fill(m, s * PG, e * PG, site, cls, &added);
		for (p = s; p < e; p++) {
			if (w->site[p] == UNMAPPED) {
				w->site[p] = site;
				want_added += PG;
			}
			w->cls[p] = cls;
		}
		break;
	default: {
		/* move [s, e) to [ns, ns + nlen), not overlapping */
		size_t olen = e - s, nlen = 1 + rnd(rng) % 24, ns, i;

		ns = rnd(rng) % PAGES;
		if (ns + nlen > PAGES || (ns < e && s < ns + nlen))
			return true;
		err = rp_map_move(m, s * PG, e * PG, ns * PG, (ns + nlen) * PG,
				  site, cls, on_gone, &g, &added);
		for (i = olen < nlen ? olen : nlen; i < olen; i++)
			if (old.site[s + i] != UNMAPPED)
				want_gone[old.site[s + i]] += PG;
		model_set(w, s, e, UNMAPPED, 0, NULL);
		model_set(w, ns, ns + nlen, UNMAPPED, 0, want_gone);
		for (i = 0; i < nlen; i++) {
			uint32_t from = i < olen ? old.site[s + i] : site;

			if (i >= olen)
				want_added += PG;
			w->site[ns + i] = from;
			w->cls[ns + i] = from == UNMAPPED ? UNMAPPED : cls;
		}
		break;
	}
	}
	if (err)
		snprintf(why, sizeof(why), "op %d failed: %d", op, err);
	if (!why[0] && memcmp(g.by_site, want_gone, sizeof(want_gone)) != 0)
		snprintf(why, sizeof(why), "op %d %zu-%zu: gone bytes differ",
			 op, s, e);
	if (!why[0] && added != want_added)
		snprintf(why, sizeof(why), "op %d: added %llu, want %llu", op,
			 (unsigned long long)added,
			 (unsigned long long)want_added);
	return agree(m, w);
}

static void run(uint64_t seed, unsigned steps)
{
	struct rp_map m, c;
	struct model w, wc;
	uint64_t rng = seed;
	unsigned i, p;
	bool ok;

	for (p = 0; p < PAGES; p++)
		w.site[p] = w.cls[p] = UNMAPPED;
	rp_map_init(&m, seed);
	why[0] = '\0';
	for (i = 0; i < steps && !why[0]; i++)
		one_op(&m, &w, &rng);
	tap_ok(!why[0], "seed %#llx: %u random operations agree with the "
	       "page model%s%s", (unsigned long long)seed, i,
	       why[0] ? ": " : "", why);
	/* fork: a copy with one site */
	rp_map_init(&c, seed + 1);
	wc = w;
	for (p = 0; p < PAGES; p++)
		if (wc.site[p] != UNMAPPED)
			wc.site[p] = 5;
	why[0] = '\0';
	ok = rp_map_copy(&c, &m, 5) == 0 && agree(&c, &wc) && c.n == m.n;
	tap_ok(ok, "seed %#llx: copy%s%s", (unsigned long long)seed,
	       why[0] ? ": " : "", why);
	rp_map_free(&c);
	rp_map_free(&m);
}

/* Adjacent assigns of one site and class make one node. */
static void test_merge(void)
{
	struct rp_map m;
	unsigned i;

	rp_map_init(&m, 7);
	for (i = 0; i < 100; i++)
		rp_map_assign(&m, i * PG, (i + 1) * PG, 1, 1, NULL, NULL);
	tap_int_eq((long long)m.n, 1, "100 adjacent assigns: one node");
	for (i = 200; i > 100; i--)
		rp_map_assign(&m, i * PG, (i + 1) * PG, 1, 1, NULL, NULL);
	rp_map_assign(&m, 100 * PG, 101 * PG, 1, 1, NULL, NULL);
	tap_int_eq((long long)m.n, 1, "downward, then the gap: one node");
	tap_int_eq((long long)m.bytes, (long long)(201 * PG), "their bytes");
	rp_map_free(&m);
}

/* Snapshots come one VMA per event; filling one must not walk the whole
 * map (it once counted every node for each event: quadratic at attach
 * to a process with 10^5 VMAs). */
static void test_fill_local(void)
{
	struct rp_map m;
	uint64_t added, total = 0;
	unsigned i;

	rp_map_init(&m, 9);
	for (i = 0; i < 10000; i++) {
		rp_map_fill(&m, 2 * i * PG, (2 * i + 1) * PG, 0, i & 1, &added);
		total += added;
	}
	for (i = 0; i < 10000; i++)
		rp_map_fill(&m, 2 * i * PG, (2 * i + 1) * PG, 1, 2, &added);
	tap_int_eq((long long)total, 10000 * (long long)PG,
		   "10000 snapshot fills map their pages");
	tap_ok(m.flat_nodes <= 10000, "a fill copies out only its range's "
	       "nodes (%llu for 20000 fills)",
	       (unsigned long long)m.flat_nodes);
	rp_map_free(&m);
}

int main(void)
{
	static const uint64_t seeds[] = { 1, 2, 3, 0xdeadbeef, 42, 1234567 };
	size_t i;

	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
		run(seeds[i], 4000);
	test_merge();
	test_fill_local();
	return tap_done();
}
