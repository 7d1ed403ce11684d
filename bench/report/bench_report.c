/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_report.c -- what maptap --report's accounting costs per event.
 *
 * A fixture process holds LIVE one-page anonymous ranges (a page apart,
 * so none merge), charged to 64 call sites of 3 frames each; then a loop
 * unmaps a random live range and maps a random free slot, as a program
 * that mmaps and munmaps in a loop does: two events per round through
 * maptap_report_event(), with their stacks.  The frames' pcs belong to
 * no module, so the skip rule's lookups fail fast and no symbol is read:
 * this is the report's own cost (the interval map, sites, classes, the
 * peak), not the module layer's (bench/symbols measures that).
 *
 * Alongside, the same event stream through a flat sorted array of
 * ranges (binary search, memmove to insert or remove), the simplest
 * structure that could do the job, to show where the treap pays off.
 *
 * Times: CLOCK_THREAD_CPUTIME_ID (user + system of this thread), best of
 * three runs, ns per event.  Usage: bench_report [-q] (quick: fewer
 * events).
 */
#include <config.h>

#include <maptap/report.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PG 4096ull
#define NSTACKS 64

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct maptap_frame stacks[NSTACKS][3];

static struct maptap_event ev_of(enum maptap_event_kind kind, uint64_t slot,
				 uint64_t t)
{
	struct maptap_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.pid = ev.tid = 4242;
	ev.time_ns = t;
	ev.syscall_nr = kind == MAPTAP_EV_MAP ? 9 : 11;
	ev.vma.start = 0x10000000ull + slot * 2 * PG;
	ev.vma.end = ev.vma.start + PG;
	ev.vma.perms = 3;
	ev.vma.name = "";
	ev.old.name = "";
	return ev;
}

/* ---- the flat baseline: sorted array of (start, end, site) ---- */

struct flat_range {
	uint64_t start, end;
	uint32_t site;
};

struct flat {
	struct flat_range *v;
	size_t n;
	uint64_t live[NSTACKS];
};

static size_t flat_lower(const struct flat *f, uint64_t addr)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->v[mid].start < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void flat_map(struct flat *f, uint64_t s, uint64_t e, uint32_t site)
{
	size_t i = flat_lower(f, s);

	memmove(&f->v[i + 1], &f->v[i], (f->n - i) * sizeof(*f->v));
	f->v[i] = (struct flat_range){ s, e, site };
	f->n++;
	f->live[site] += e - s;
}

static void flat_unmap(struct flat *f, uint64_t s)
{
	size_t i = flat_lower(f, s);

	if (i == f->n || f->v[i].start != s)
		return;
	f->live[f->v[i].site] -= f->v[i].end - f->v[i].start;
	memmove(&f->v[i], &f->v[i + 1], (f->n - i - 1) * sizeof(*f->v));
	f->n--;
}

/* ---- one run ---- */

struct run {
	size_t live;		/* ranges held */
	size_t rounds;		/* unmap + map pairs */
	bool flat;
};

static double one_run(const struct run *run, uint64_t seed)
{
	size_t slots = run->live * 2, i, n_mapped = 0;
	unsigned char *mapped = calloc(slots, 1);
	size_t *live_slots = malloc(slots * sizeof(*live_slots));
	size_t *where = malloc(slots * sizeof(*where));
	struct maptap_modules *m = NULL;
	struct maptap_report *r = NULL;
	struct flat f = { 0 };
	uint64_t rng = seed, t = 1, t0, t1;

	maptap_modules_new(NULL, &m);
	maptap_report_new(m, NULL, &r);
	f.v = malloc((slots + 1) * sizeof(*f.v));
	/* fill: every even slot */
	for (i = 0; i < slots; i += 2) {
		struct maptap_event ev = ev_of(MAPTAP_EV_MAP, i, t++);
		unsigned k = (unsigned)(rnd(&rng) % NSTACKS);

		if (run->flat)
			flat_map(&f, ev.vma.start, ev.vma.end, k);
		else
			maptap_report_event(r, &ev, stacks[k], 3);
		mapped[i] = 1;
		where[i] = n_mapped;
		live_slots[n_mapped++] = i;
	}
	t0 = cpu_ns();
	for (i = 0; i < run->rounds; i++) {
		size_t j = rnd(&rng) % n_mapped, s = live_slots[j], fr;
		struct maptap_event ev = ev_of(MAPTAP_EV_UNMAP, s, t++);
		unsigned k = (unsigned)(rnd(&rng) % NSTACKS);

		if (run->flat)
			flat_unmap(&f, ev.vma.start);
		else
			maptap_report_event(r, &ev, NULL, 0);
		mapped[s] = 0;
		live_slots[j] = live_slots[--n_mapped];
		where[live_slots[j]] = j;
		do
			fr = rnd(&rng) % slots;
		while (mapped[fr]);
		ev = ev_of(MAPTAP_EV_MAP, fr, t++);
		if (run->flat)
			flat_map(&f, ev.vma.start, ev.vma.end, k);
		else
			maptap_report_event(r, &ev, stacks[k], 3);
		mapped[fr] = 1;
		where[fr] = n_mapped;
		live_slots[n_mapped++] = fr;
	}
	t1 = cpu_ns();
	if (!run->flat) {
		struct maptap_report_totals tot;

		maptap_report_totals(r, 4242, &tot);
		if (tot.live_bytes != run->live * PG)
			fprintf(stderr, "bench_report: live %llu, want %llu\n",
				(unsigned long long)tot.live_bytes,
				(unsigned long long)(run->live * PG));
	}
	maptap_report_free(r);
	maptap_modules_free(m);
	free(f.v);
	free(mapped);
	free(live_slots);
	free(where);
	return (double)(t1 - t0) / (double)(run->rounds * 2);
}

/* A process of LIVE ranges seen at attach (snapshot MAPs), then forked:
 * the child's copy and its snapshot over the inherited map.  ns per
 * snapshot event, for the parent's and for the child's. */
static void snap_run(size_t live, double *parent_ns, double *child_ns)
{
	struct maptap_modules *m = NULL;
	struct maptap_report *r = NULL;
	struct maptap_event ev;
	uint64_t t0, t1, t2;
	size_t i;

	maptap_modules_new(NULL, &m);
	maptap_report_new(m, NULL, &r);
	t0 = cpu_ns();
	for (i = 0; i < live; i++) {
		ev = ev_of(MAPTAP_EV_MAP, i, i + 1);
		ev.snapshot = true;
		ev.syscall_nr = -1;
		maptap_report_event(r, &ev, NULL, 0);
	}
	t1 = cpu_ns();
	ev = ev_of(MAPTAP_EV_FORK, 0, live + 1);
	ev.kind = MAPTAP_EV_FORK;
	ev.child = 4343;
	maptap_report_event(r, &ev, NULL, 0);
	for (i = 0; i < live; i++) {
		ev = ev_of(MAPTAP_EV_MAP, i, live + 2 + i);
		ev.pid = ev.tid = 4343;
		ev.snapshot = true;
		ev.syscall_nr = -1;
		maptap_report_event(r, &ev, NULL, 0);
	}
	t2 = cpu_ns();
	*parent_ns = (double)(t1 - t0) / (double)live;
	*child_ns = (double)(t2 - t1) / (double)live;
	maptap_report_free(r);
	maptap_modules_free(m);
}

static double best_of_3(const struct run *run)
{
	double best = 0;
	int i;

	for (i = 0; i < 3; i++) {
		double v = one_run(run, 0x1234567ull + (uint64_t)i);

		if (i == 0 || v < best)
			best = v;
	}
	return best;
}

int main(int argc, char **argv)
{
	static const size_t lives[] = { 1000, 10000, 100000 };
	bool quick = argc > 1 && strcmp(argv[1], "-q") == 0;
	size_t i;
	unsigned k, j;

	for (k = 0; k < NSTACKS; k++)
		for (j = 0; j < 3; j++)
			stacks[k][j].pc = 0x400000 + k * 0x100 + j * 0x10;
	printf("maptap_report_event: one unmap + one map of a page per round, "
	       "ns per event (CPU time, best of 3)\n");
	printf("%10s %14s %14s %10s\n", "ranges", "report ns/ev",
	       "flat ns/ev", "flat/report");
	for (i = 0; i < sizeof(lives) / sizeof(lives[0]); i++) {
		struct run run = { lives[i], quick ? 20000 : 200000, false };
		double rep, flat;

		rep = best_of_3(&run);
		run.flat = true;
		flat = best_of_3(&run);
		printf("%10zu %14.0f %14.0f %10.1f\n", lives[i], rep, flat,
		       flat / rep);
	}
	printf("\nsnapshots: attach of N ranges, then fork (copy + the "
	       "child's snapshot), ns per snapshot event (best of 3)\n");
	printf("%10s %14s %14s\n", "ranges", "attach ns/ev", "fork ns/ev");
	for (i = 0; i < sizeof(lives) / sizeof(lives[0]); i++) {
		double best_p = 0, best_c = 0, p, c;

		for (k = 0; k < 3; k++) {
			snap_run(lives[i], &p, &c);
			if (k == 0 || p < best_p)
				best_p = p;
			if (k == 0 || c < best_c)
				best_c = c;
		}
		printf("%10zu %14.0f %14.0f\n", lives[i], best_p, best_c);
	}
	return 0;
}
