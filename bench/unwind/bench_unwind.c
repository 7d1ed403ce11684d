/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_unwind.c -- the cost of one user backtrace of depth 20 at a
 * ptrace stop: libunwind's stock ptrace accessors (_UPT_accessors of
 * libunwind-ptrace) against maptap's (maptap_unwind()), side by side on
 * the same stopped thread.
 *
 *   bench_unwind [-r ROUNDS] [-d DEPTH] [-m METHOD] [-n] CMD [ARGS...]
 *
 * CMD is run under ptrace until it stops itself with SIGSTOP (see
 * deep_stop.c); then, ROUNDS times in interleaved order, each method
 * walks DEPTH frames (default 20) of that thread:
 *
 *   maptap      maptap_unwind(): one PTRACE_GETREGS, page-cached
 *               process_vm_readv, tables through the module layer;
 *   stock       libunwind's _UPT_accessors with one _UPT_create() per
 *               target kept across stops (its one-file ELF cache
 *               survives): PTRACE_PEEKUSER per register, PTRACE_PEEKDATA
 *               per word, /proc/PID/maps and an mmap of the file when
 *               the pc leaves the last file;
 *   stock-new   the same with a fresh _UPT_create() per stop.
 *
 * -m times only METHOD (for profiling one of them); the frames are then
 * still compared once, unless -n: CMD has code the stock accessors
 * cannot walk (CFI only in .debug_frame, which libunwind reads only for
 * local unwinding), so maptap's frames stand alone.
 *
 * Every method starts each walk as at a new stop (libunwind's caches
 * flushed, maptap's page cache dropped), since between stops the target
 * runs.  The pcs of all methods are compared, frame by frame, once.
 * Prints the median and 90th percentile per method in microseconds, and
 * maptap's counters per backtrace.
 */
#include <config.h>

#include <maptap/module.h>
#include <maptap/unwind.h>

#include <libunwind-ptrace.h>

#include "ptrace_stop.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEPTH 256

enum method { M_MAPTAP, M_STOCK, M_STOCK_NEW, M_N };

static const char *const method_names[] = { "maptap", "stock", "stock-new" };

struct bench {
	pid_t pid;
	unsigned depth;
	struct maptap_modules *m;
	struct maptap_unwinder *u;
	unw_addr_space_t as;
	void *upt;		/* kept across stops (M_STOCK) */
	uint64_t pcs[M_N][MAX_DEPTH];
	unsigned n[M_N];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static unsigned walk_maptap(struct bench *b, uint64_t *pcs)
{
	struct maptap_frame f[MAX_DEPTH];
	int n = maptap_unwind(b->u, b->pid, b->pid, f, b->depth, NULL);
	int i;

	for (i = 0; i < n; i++)
		pcs[i] = f[i].pc;
	return n < 0 ? 0 : (unsigned)n;
}

static unsigned walk_stock(struct bench *b, void *upt, uint64_t *pcs)
{
	unw_cursor_t c;
	unw_word_t ip;
	unsigned n = 0;

	unw_flush_cache(b->as, 0, 0);
	if (unw_init_remote(&c, b->as, upt) < 0)
		return 0;
	do {
		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0)
			break;
		pcs[n++] = ip;
	} while (n < b->depth && unw_step(&c) > 0);
	return n;
}

static uint64_t run_once(struct bench *b, enum method k)
{
	uint64_t t0 = now_ns(), t;
	void *upt;

	switch (k) {
	case M_MAPTAP:
		b->n[k] = walk_maptap(b, b->pcs[k]);
		break;
	case M_STOCK:
		b->n[k] = walk_stock(b, b->upt, b->pcs[k]);
		break;
	default:
		upt = _UPT_create(b->pid);
		b->n[k] = walk_stock(b, upt, b->pcs[k]);
		_UPT_destroy(upt);
		break;
	}
	t = now_ns() - t0;
	return t;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool same_frames(const struct bench *b)
{
	unsigned k, i;

	for (k = 1; k < M_N; k++) {
		if (b->n[k] != b->n[0])
			return false;
		for (i = 0; i < b->n[0]; i++)
			if (b->pcs[k][i] != b->pcs[0][i])
				return false;
	}
	return true;
}

static int setup(struct bench *b)
{
	int rc = maptap_modules_new(NULL, &b->m);

	if (!rc)
		rc = maptap_modules_sync_pid(b->m, b->pid, MAPTAP_MAPS_AUTO);
	if (!rc)
		rc = maptap_unwinder_new(b->m, &b->u);
	if (rc)
		return rc;
	b->as = unw_create_addr_space(&_UPT_accessors, 0);
	b->upt = _UPT_create(b->pid);
	if (!b->as || !b->upt)
		return -ENOMEM;
	unw_set_caching_policy(b->as, UNW_CACHE_GLOBAL);
	return 0;
}

static void teardown(struct bench *b, uint64_t *t[M_N])
{
	unsigned k;

	for (k = 0; k < M_N; k++)
		free(t[k]);
	_UPT_destroy(b->upt);
	unw_destroy_addr_space(b->as);
	maptap_unwinder_free(b->u);
	maptap_modules_free(b->m);
}

static void report(struct bench *b, uint64_t *t[M_N], unsigned rounds,
		   unsigned only)
{
	struct maptap_unwind_stats st;
	unsigned k;

	maptap_unwinder_get_stats(b->u, &st);
	printf("depth %u (%u frames), %u rounds\n", b->depth, b->n[0],
	       rounds);
	printf("%-10s %10s %10s\n", "method", "median_us", "p90_us");
	for (k = 0; k < M_N; k++) {
		if (only != M_N && k != only)
			continue;
		qsort(t[k], rounds, sizeof(uint64_t), cmp_u64);
		printf("%-10s %10.1f %10.1f\n", method_names[k],
		       t[k][rounds / 2] / 1e3, t[k][rounds * 9 / 10] / 1e3);
	}
	printf("maptap per backtrace: %.1f words asked, %.1f page reads, "
	       "%.1f pages from files, %.1f table lookups, "
	       "%.1f frames by .debug_frame\n",
	       (double)st.mem_words / st.backtraces,
	       (double)st.page_reads / st.backtraces,
	       (double)st.file_pages / st.backtraces,
	       (double)st.table_lookups / st.backtraces,
	       (double)st.debug_frames / st.backtraces);
}

int main(int argc, char **argv)
{
	struct bench b = { .depth = MAPTAP_MAXBACKTRACE };
	unsigned rounds = 1000, r, k, only = M_N;
	bool compare = true;
	uint64_t *t[M_N];
	int opt, rc;
	pid_t tid;

	while ((opt = getopt(argc, argv, "+r:d:m:n")) != -1) {
		if (opt == 'n') {
			compare = false;
		} else if (opt == 'm') {
			for (only = 0; only < M_N; only++)
				if (strcmp(optarg, method_names[only]) == 0)
					break;
			if (only == M_N)
				return 2;
		} else if (opt == 'r')
			rounds = (unsigned)strtoul(optarg, NULL, 0);
		else if (opt == 'd')
			b.depth = (unsigned)strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	if (optind >= argc || !rounds || !b.depth || b.depth > MAX_DEPTH) {
		fputs("usage: bench_unwind [-r ROUNDS] [-d DEPTH] [-m METHOD] "
		      "[-n] CMD...\n",
		      stderr);
		return 2;
	}
	b.pid = ptrace_stop_launch(argv + optind, &tid);
	if (b.pid < 0 || (rc = setup(&b)) != 0) {
		fputs("bench_unwind: could not start or set up\n", stderr);
		return 1;
	}
	for (k = 0; k < M_N; k++)
		t[k] = calloc(rounds, sizeof(uint64_t));
	/* one walk each first: located tables, the symbol-free warm state
	 * every later stop of a long trace has */
	for (k = 0; k < M_N; k++)
		run_once(&b, k);
	if (compare && !same_frames(&b)) {
		fputs("bench_unwind: the methods disagree on the frames\n",
		      stderr);
		ptrace_stop_kill(b.pid);
		return 1;
	}
	for (r = 0; r < rounds; r++)
		for (k = 0; k < M_N; k++)
			if (only == M_N || (k + r) % M_N == only)
				t[k][r] = run_once(&b, (k + r) % M_N);
	/* t[k][r] above holds method (k + r) % M_N: sort it out */
	for (r = 0; r < rounds; r++) {
		uint64_t row[M_N];

		for (k = 0; k < M_N; k++)
			row[(k + r) % M_N] = t[k][r];
		for (k = 0; k < M_N; k++)
			t[k][r] = row[k];
	}
	report(&b, t, rounds, only);
	ptrace_stop_kill(b.pid);
	teardown(&b, t);
	return 0;
}
