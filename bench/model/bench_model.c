/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_model.c -- what the model and the readers cost, side by side.
 *
 * (a) maptap_mm_update() per call at 124, 10k and 60k VMAs against a naive
 *     flat sorted array that does the same job (find the range, diff it,
 *     memmove the tail to splice the new VMAs in).  The workload is what
 *     mprotect() of one page in the middle of a 3-page VMA and back does:
 *     a refresh of one page that splits a VMA in three, then merges it.
 * (b) parse cost of maps text.
 * (c) reading the VMAs of one range of a process that has 124, 10k or
 *     60k VMAs (a child that mprotects every other page of a mapping):
 *     PROCMAP_QUERY against the full text the text source must read.
 *
 * Usage: bench_model [-q] (-q: fewer iterations, for a quick look).
 * Times are means over many calls, best of three runs, in this thread's
 * CPU time (CLOCK_THREAD_CPUTIME_ID, user + system): on a shared 2-vCPU
 * machine wall-clock time measures the neighbours more than the code.
 */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <maptap/maps.h>
#include <maptap/mm.h>

#define PAGE 4096ULL
#define BASE 0x100000000ULL

static unsigned quick = 1;	/* divides iteration counts */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static struct maptap_vma anon(uint64_t s, uint64_t e, uint32_t perms)
{
	struct maptap_vma v = { .start = s, .end = e, .perms = perms,
				.name = "" };

	return v;
}

/* ---- the naive baseline: one sorted array, memmove per splice ---- */

struct flat {
	struct maptap_vma *a;
	size_t n, cap;
};

static bool same_state(const struct maptap_vma *a, const struct maptap_vma *b)
{
	return a->perms == b->perms && a->inode == b->inode &&
	       (a->inode == 0 || a->offset + (b->start - a->start) == b->offset) &&
	       a->name_len == b->name_len &&
	       memcmp(a->name, b->name, a->name_len) == 0;
}

static size_t flat_first_after(const struct flat *f, uint64_t addr)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->a[mid].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The same contract as maptap_mm_update() for this workload: splice the
 * clipped NEW into [lo, hi), keep remainders, merge what the kernel
 * merged, report each changed piece. */
static int flat_update(struct flat *f, uint64_t lo, uint64_t hi,
		       const struct maptap_vma *new, size_t n,
		       maptap_event_fn fn, void *arg)
{
	struct maptap_vma rep[8];
	size_t nr = 0, i = flat_first_after(f, lo), j = i, k;
	struct maptap_event ev;

	while (j < f->n && f->a[j].start < hi)
		j++;
	/* diff: one event per old/new pair that differs (enough here) */
	for (k = 0; k < n; k++) {
		if (i < j && same_state(&f->a[i], &new[k]))
			continue;
		memset(&ev, 0, sizeof(ev));
		ev.kind = MAPTAP_EV_PROTECT;
		ev.vma = new[k];
		if (i < j)
			ev.old = f->a[i];
		fn(&ev, arg);
	}
	if (i < j && f->a[i].start < lo)
		rep[nr++] = anon(f->a[i].start, lo, f->a[i].perms);
	for (k = 0; k < n && nr < 6; k++) {
		struct maptap_vma v = new[k];

		if (nr && rep[nr - 1].end == (v.start > lo ? v.start : lo) &&
		    same_state(&rep[nr - 1], &v)) {
			rep[nr - 1].end = v.end < hi ? v.end : hi;
			continue;
		}
		v.start = v.start > lo ? v.start : lo;
		v.end = v.end < hi ? v.end : hi;
		rep[nr++] = v;
	}
	if (i < j && f->a[j - 1].end > hi) {
		struct maptap_vma t = anon(hi, f->a[j - 1].end,
					   f->a[j - 1].perms);

		if (nr && rep[nr - 1].end == hi && same_state(&rep[nr - 1], &t))
			rep[nr - 1].end = t.end;
		else
			rep[nr++] = t;
	}
	/* merge with untouched neighbours the kernel merged with */
	if (i > 0 && nr && f->a[i - 1].end == rep[0].start &&
	    same_state(&f->a[i - 1], &rep[0]) && n && new[0].start < lo) {
		rep[0].start = f->a[i - 1].start;
		i--;
	}
	if (j < f->n && nr && f->a[j].start == rep[nr - 1].end &&
	    same_state(&rep[nr - 1], &f->a[j]) && n && new[n - 1].end > hi) {
		rep[nr - 1].end = f->a[j].end;
		j++;
	}
	if (f->n - (j - i) + nr > f->cap)
		return -ENOMEM;
	memmove(&f->a[i + nr], &f->a[j], (f->n - j) * sizeof(f->a[0]));
	memcpy(&f->a[i], rep, nr * sizeof(rep[0]));
	f->n = f->n - (j - i) + nr;
	return 0;
}

/* ---- (a) update cost ---- */

static int count_ev(const struct maptap_event *ev, void *arg)
{
	(void)ev;
	(*(size_t *)arg)++;
	return 0;
}

/* N VMAs of 3 pages, alternating r-- and rw- so none merge. */
static struct maptap_vma *make_vmas(size_t n)
{
	struct maptap_vma *v = calloc(n, sizeof(*v));
	size_t i;

	for (i = 0; v && i < n; i++)
		v[i] = anon(BASE + 3 * i * PAGE, BASE + 3 * (i + 1) * PAGE,
			    i % 2 ? MAPTAP_PERM_R | MAPTAP_PERM_W : MAPTAP_PERM_R);
	return v;
}

/* One step: split VMA I by a different middle page, or merge it back. */
static void step_args(const struct maptap_vma *vmas, size_t i, bool split,
		      struct maptap_vma *new, uint64_t *lo, uint64_t *hi)
{
	const struct maptap_vma *o = &vmas[i];

	*lo = o->start + PAGE;
	*hi = o->start + 2 * PAGE;
	if (split)
		*new = anon(*lo, *hi, o->perms | MAPTAP_PERM_X);
	else
		*new = *o;	/* the kernel merged the three again */
}

static double bench_tree(const struct maptap_vma *vmas, size_t n,
			 size_t iters)
{
	struct maptap_mm *mm = maptap_mm_new();
	uint64_t seed = 88172645463325252ULL, t0, t;
	size_t k, events = 0, i = 0;

	maptap_mm_update(mm, 0, UINT64_MAX, vmas, n, NULL, NULL, NULL);
	t0 = now_ns();
	for (k = 0; k < iters; k++) {
		struct maptap_vma new;
		uint64_t lo, hi;

		if (k % 2 == 0)
			i = xorshift(&seed) % n;
		step_args(vmas, i, k % 2 == 0, &new, &lo, &hi);
		maptap_mm_update(mm, lo, hi, &new, 1, NULL, count_ev, &events);
	}
	t = now_ns() - t0;
	if (events != iters || maptap_mm_count(mm) != n)
		fprintf(stderr, "tree: %zu events, %zu VMAs: wrong\n", events,
			maptap_mm_count(mm));
	maptap_mm_free(mm);
	return (double)t / (double)iters;
}

static double bench_flat(const struct maptap_vma *vmas, size_t n,
			 size_t iters)
{
	struct flat f = { calloc(n + 8, sizeof(*f.a)), n, n + 8 };
	uint64_t seed = 88172645463325252ULL, t0, t;
	size_t k, events = 0, i = 0;

	memcpy(f.a, vmas, n * sizeof(*f.a));
	t0 = now_ns();
	for (k = 0; k < iters; k++) {
		struct maptap_vma new;
		uint64_t lo, hi;

		if (k % 2 == 0)
			i = xorshift(&seed) % n;
		step_args(vmas, i, k % 2 == 0, &new, &lo, &hi);
		flat_update(&f, lo, hi, &new, 1, count_ev, &events);
	}
	t = now_ns() - t0;
	if (events != iters || f.n != n)
		fprintf(stderr, "flat: %zu events, %zu VMAs: wrong\n", events,
			f.n);
	free(f.a);
	return (double)t / (double)iters;
}

static double best_of3(double (*fn)(const struct maptap_vma *, size_t,
				    size_t),
		       const struct maptap_vma *v, size_t n, size_t iters)
{
	double best = 1e300;
	int r;

	for (r = 0; r < 3; r++) {
		double t = fn(v, n, iters);

		if (t < best)
			best = t;
	}
	return best;
}

static void bench_update(void)
{
	static const size_t sizes[] = { 124, 10000, 60000 };
	size_t s;

	printf("(a) maptap_mm_update, one-page refresh that splits a VMA in "
	       "three or merges it back\n");
	printf("%8s %14s %14s %8s\n", "VMAs", "model ns/call", "flat ns/call",
	       "flat/model");
	for (s = 0; s < 3; s++) {
		size_t n = sizes[s];
		struct maptap_vma *v = make_vmas(n);
		double tree = best_of3(bench_tree, v, n, 400000 / quick);
		double flat = best_of3(bench_flat, v, n,
				       (n > 1000 ? 20000 : 400000) / quick);

		printf("%8zu %14.0f %14.0f %8.1f\n", n, tree, flat, flat / tree);
		free(v);
	}
}

/* ---- (b) parsing ---- */

static char *read_self_maps(size_t *len)
{
	static char buf[1 << 20];
	FILE *f = fopen("/proc/self/maps", "r");

	*len = f ? fread(buf, 1, sizeof(buf), f) : 0;
	if (f)
		fclose(f);
	return buf;
}

static void bench_parse(void)
{
	struct maptap_vma_buf buf = { 0 };
	size_t len, k, iters = 20000 / quick, lines;
	char *text = read_self_maps(&len);
	uint64_t t0;
	double t;

	maptap_maps_parse(text, len, &buf);
	lines = buf.n;
	t0 = now_ns();
	for (k = 0; k < iters; k++) {
		maptap_vma_buf_clear(&buf);
		maptap_maps_parse(text, len, &buf);
	}
	t = (double)(now_ns() - t0) / (double)iters;
	printf("\n(b) maptap_maps_parse of /proc/self/maps: %zu lines in "
	       "%.2f us (%.0f ns/line)\n", lines, t / 1000, t / (double)lines);
	maptap_vma_buf_free(&buf);
}

/* ---- (c) readers on a child with many VMAs ---- */

struct child {
	pid_t pid;
	int go;
	uint64_t area;		/* the alternating region */
};

static bool spawn(size_t npages, struct child *c)
{
	int ready[2], go[2];
	char b;
	char *p;
	size_t i;

	p = mmap(NULL, npages * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED || pipe(ready) || pipe(go))
		return false;
	c->area = (uint64_t)(uintptr_t)p;
	c->pid = fork();
	if (c->pid == 0) {
		close(go[1]);	/* else the parent's close is no EOF */
		close(ready[0]);
		for (i = 1; i < npages; i += 2)
			if (mprotect(p + i * PAGE, PAGE, PROT_READ | PROT_WRITE))
				_exit(2);
		if (write(ready[1], "y", 1) != 1 || read(go[0], &b, 1) < 0)
			_exit(3);
		_exit(0);
	}
	munmap(p, npages * PAGE);
	close(ready[1]);
	close(go[0]);
	c->go = go[1];
	i = read(ready[0], &b, 1) == 1;
	close(ready[0]);
	return i;
}

static double time_range(struct maptap_maps_reader *r, uint64_t lo,
			 uint64_t hi, size_t iters, size_t *got)
{
	struct maptap_vma_buf buf = { 0 };
	double best = 1e300;
	int rep;
	size_t k;

	for (rep = 0; rep < 3; rep++) {
		uint64_t t0 = now_ns();
		double t;

		for (k = 0; k < iters; k++) {
			maptap_vma_buf_clear(&buf);
			maptap_maps_read_range(r, lo, hi, &buf);
		}
		t = (double)(now_ns() - t0) / (double)iters;
		if (t < best)
			best = t;
	}
	*got = buf.n;
	maptap_vma_buf_free(&buf);
	return best;
}

static void bench_readers(void)
{
	static const size_t targets[] = { 124, 10000, 60000 };
	size_t s;

	printf("\n(c) reading one range of a process (a child process)\n");
	printf("%8s %12s %12s %12s %12s %10s\n", "VMAs", "query 1 VMA",
	       "text 1 VMA", "query all", "text all", "text/query");
	for (s = 0; s < 3; s++) {
		struct maptap_maps_reader *q = NULL, *t = NULL;
		struct maptap_vma_buf all = { 0 };
		struct child c;
		size_t got, n, big = targets[s] > 1000;
		double tq, tt, aq, at;
		uint64_t mid;

		/* about 30 VMAs of the process's own, the rest alternate */
		if (!spawn(targets[s] > 30 ? targets[s] - 30 : 1, &c)) {
			printf("cannot start a child with %zu VMAs\n",
			       targets[s]);
			continue;
		}
		if (maptap_maps_open(c.pid, MAPTAP_MAPS_QUERY, &q) ||
		    maptap_maps_open(c.pid, MAPTAP_MAPS_TEXT, &t)) {
			printf("PROCMAP_QUERY unavailable: nothing to compare\n");
			maptap_maps_close(q);
			close(c.go);
			waitpid(c.pid, NULL, 0);
			return;
		}
		maptap_maps_read_all(q, &all);
		n = all.n;
		mid = c.area + ((targets[s] - 30) / 2 | 1) * PAGE;
		tq = time_range(q, mid, mid + PAGE, 20000 / quick, &got);
		tt = time_range(t, mid, mid + PAGE,
				(big ? 20 : 5000) / quick + 1, &got);
		aq = time_range(q, 0, UINT64_MAX, (big ? 5 : 2000) / quick + 1,
				&got);
		at = time_range(t, 0, UINT64_MAX, (big ? 5 : 2000) / quick + 1,
				&got);
		printf("%8zu %9.2f us %9.1f us %9.1f us %9.1f us %10.0f\n", n,
		       tq / 1000, tt / 1000, aq / 1000, at / 1000, tt / tq);
		maptap_vma_buf_free(&all);
		maptap_maps_close(q);
		maptap_maps_close(t);
		close(c.go);
		waitpid(c.pid, NULL, 0);
	}
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && strcmp(argv[1], "-q") == 0)
		quick = 20;
	bench_update();
	bench_parse();
	bench_readers();
	return 0;
}
