/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_script.c -- what one probe handler costs the script runtime.
 *
 * A typical handler in a maptap script counts events in an associative
 * array and feeds a statistic:
 *
 *	calls[execname(), syscall] <<< 1 ... or ...
 *	count[pid(), name]++
 *	sizes[name] <<< len
 *	all <<< len
 *
 * This program replays a stream of synthetic events (pid, name, length)
 * through exactly those runtime calls and reports nanoseconds per event,
 * against two baselines: reading the event stream alone, and the same
 * counting done with a fixed C array indexed directly (the cheapest
 * thing a compiler could do).  It repeats each measurement and prints
 * the median, for several numbers of distinct keys so that the cost at
 * MAXMAPENTRIES and far beyond shows.  Run by hand: see README.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <maptap/script_format.h>
#include <maptap/script_map.h>
#include <maptap/script_stat.h>

#define EVENTS 2000000
#define RUNS 7

struct event {
	int64_t pid;
	int64_t len;
	const char *name;
	size_t name_len;
};

static const char *const names[] = {
	"mmap", "munmap", "mprotect", "mremap", "brk", "madvise",
	"shmat", "shmdt", "execve", "clone3",
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static struct event *make_events(size_t n, int64_t npids)
{
	struct event *ev = malloc(n * sizeof(*ev));
	uint64_t x = 88172645463325252ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ev[i].pid = (int64_t)(x % (uint64_t)npids) + 1000;
		ev[i].len = (int64_t)((x >> 20) % 1048576);
		ev[i].name = names[(x >> 40) % 10];
		ev[i].name_len = strlen(ev[i].name);
	}
	return ev;
}

/* Baseline 1: touch each event, do nothing with it. */
static int64_t run_empty(const struct event *ev, size_t n)
{
	int64_t sink = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sink += ev[i].pid + ev[i].len + ev[i].name[0];
	return sink;
}

/* Baseline 2: the same counting in a C array indexed directly. */
static int64_t run_direct(const struct event *ev, size_t n, int64_t npids,
			  int64_t *counts, int64_t *sums)
{
	size_t i;

	for (i = 0; i < n; i++) {
		counts[(ev[i].pid - 1000) * 10 + (ev[i].name[2] & 7)]++;
		sums[ev[i].name[2] & 7] += ev[i].len;
	}
	return counts[0] + sums[0] + npids;
}

struct handler {
	struct maptap_script_map *count;	/* count[pid, name]++ */
	struct maptap_script_map *sizes;	/* sizes[name] <<< len */
	struct maptap_script_stat *all;		/* all <<< len */
	struct maptap_script_error err;
};

static int handler_init(struct handler *h, size_t max_entries)
{
	struct maptap_script_map_desc count = {
		.nkeys = 2,
		.key_types = { MAPTAP_SCRIPT_LONG, MAPTAP_SCRIPT_STRING },
		.value_type = MAPTAP_SCRIPT_LONG,
		.max_entries = max_entries,
	};
	struct maptap_script_map_desc sizes = {
		.nkeys = 1,
		.key_types = { MAPTAP_SCRIPT_STRING },
		.value_type = MAPTAP_SCRIPT_STATS,
		.stat = { .hist = MAPTAP_SCRIPT_HIST_LOG },
		.max_entries = max_entries,
	};
	struct maptap_script_stat_desc all = { .hist = MAPTAP_SCRIPT_HIST_LOG };

	if (maptap_script_map_new(&count, &h->count, &h->err) ||
	    maptap_script_map_new(&sizes, &h->sizes, &h->err) ||
	    maptap_script_stat_new(&all, &h->all, &h->err))
		return -1;
	return 0;
}

static void handler_free(struct handler *h)
{
	maptap_script_map_free(h->count);
	maptap_script_map_free(h->sizes);
	maptap_script_stat_free(h->all);
}

/* The handler body, as the interpreter will call the runtime. */
static int run_handler(struct handler *h, const struct event *ev, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct maptap_script_value k[2] = {
			maptap_script_long(ev[i].pid),
			maptap_script_string(ev[i].name, ev[i].name_len),
		};

		if (maptap_script_map_add(h->count, k, 1, NULL, &h->err) ||
		    maptap_script_map_stat_add(h->sizes, &k[1], ev[i].len,
					       &h->err))
			return -1;
		maptap_script_stat_add(h->all, ev[i].len);
	}
	return 0;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static void bench_keys(int64_t npids)
{
	struct event *ev = make_events(EVENTS, npids);
	int64_t *counts = calloc(npids * 10, sizeof(*counts)), sums[8] = { 0 };
	double t_empty[RUNS], t_direct[RUNS], t_handler[RUNS], t_warm[RUNS], t0;
	volatile int64_t sink = 0;
	struct handler h;
	size_t entries = 0;
	int r;

	for (r = 0; r < RUNS; r++) {
		t0 = now_ns();
		sink += run_empty(ev, EVENTS);
		t_empty[r] = (now_ns() - t0) / EVENTS;
		t0 = now_ns();
		sink += run_direct(ev, EVENTS, npids, counts, sums);
		t_direct[r] = (now_ns() - t0) / EVENTS;
		if (handler_init(&h, 100000000)) {
			fprintf(stderr, "handler_init: %s\n", h.err.msg);
			exit(1);
		}
		t0 = now_ns();
		if (run_handler(&h, ev, EVENTS)) {
			fprintf(stderr, "handler: %s\n", h.err.msg);
			exit(1);
		}
		t_handler[r] = (now_ns() - t0) / EVENTS;
		/* the same events again: every key exists now, as in a
		 * trace that has been running for a while */
		t0 = now_ns();
		run_handler(&h, ev, EVENTS);
		t_warm[r] = (now_ns() - t0) / EVENTS;
		entries = maptap_script_map_size(h.count);
		handler_free(&h);
	}
	printf("%9zu %12.1f %12.1f %12.1f %12.1f\n", entries,
	       median(t_empty, RUNS), median(t_direct, RUNS),
	       median(t_handler, RUNS), median(t_warm, RUNS));
	(void)sink;
	free(counts);
	free(ev);
}

/* One printf("%s[%d] %-8s %5d %#x\n", ...) per event, into a buffer. */
static void bench_printf(void)
{
	const char *fmt = "%s[%d] %-8s %5d %#x\n";
	struct maptap_script_fmt *f;
	struct maptap_script_buf out = { 0 };
	struct maptap_script_error err;
	struct maptap_script_value a[5];
	double t[RUNS], t0;
	int r, i, n = 1000000;

	maptap_script_fmt_compile(fmt, strlen(fmt), &f, &err);
	a[0] = maptap_script_string("maptap", 6);
	a[2] = maptap_script_string("mprotect", 8);
	for (r = 0; r < RUNS; r++) {
		t0 = now_ns();
		for (i = 0; i < n; i++) {
			a[1] = maptap_script_long(1000 + i % 50);
			a[3] = maptap_script_long(i & 4095);
			a[4] = maptap_script_long(0x7f0000000000 + i);
			maptap_script_buf_clear(&out);
			maptap_script_fmt_render(f, a, 5, NULL, &out, &err);
		}
		t[r] = (now_ns() - t0) / n;
	}
	printf("printf(\"%%s[%%d] %%-8s %%5d %%#x\\n\") render: %.1f ns/call\n",
	       median(t, RUNS));
	maptap_script_buf_free(&out);
	maptap_script_fmt_free(f);
}

/* foreach ([k] in a- limit 10) over 100000 elements. */
static void bench_sort(void)
{
	struct maptap_script_map_desc d = {
		.nkeys = 1, .key_types = { MAPTAP_SCRIPT_LONG },
		.value_type = MAPTAP_SCRIPT_LONG, .max_entries = 1000000,
	};
	struct maptap_script_sort sort = { .dir = -1, .limit = 10 };
	struct maptap_script_map *m;
	struct maptap_script_snap *s;
	struct maptap_script_error err;
	double t[RUNS], t0;
	int64_t i;
	int r;

	maptap_script_map_new(&d, &m, &err);
	for (i = 0; i < 100000; i++) {
		struct maptap_script_value k = maptap_script_long(i);

		maptap_script_map_add(m, &k, (i * 7919) % 100003, NULL, &err);
	}
	for (r = 0; r < RUNS; r++) {
		t0 = now_ns();
		maptap_script_map_snapshot(m, &sort, NULL, &s);
		t[r] = (now_ns() - t0) / 1e6;
		maptap_script_snap_free(s);
	}
	printf("foreach sorted by value over 100000 elements: %.1f ms\n",
	       median(t, RUNS));
	maptap_script_map_free(m);
}

/* With arguments, only the handler loop for those numbers of pids (for
 * profiling one case); without, the whole table. */
int main(int argc, char **argv)
{
	static const int64_t pids[] = { 10, 1000, 10000, 100000 };
	size_t i;

	printf("%d events per run, median of %d runs, ns per event\n",
	       EVENTS, RUNS);
	printf("%9s %12s %12s %12s %12s\n", "elements", "empty loop",
	       "C array", "handler", "warm handler");
	if (argc > 1) {
		for (i = 1; i < (size_t)argc; i++)
			bench_keys(atoll(argv[i]));
		return 0;
	}
	for (i = 0; i < sizeof(pids) / sizeof(pids[0]); i++)
		bench_keys(pids[i]);
	bench_printf();
	bench_sort();
	return 0;
}
