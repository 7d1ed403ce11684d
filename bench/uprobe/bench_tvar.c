/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_tvar.c -- what reading target variables costs at a stop, in
 * maptap's own process: the reads a probe handler makes, without the
 * stop itself (bench/README.md, "Target variables").
 *
 *   bench_tvar [-r ROUNDS] TV_STOP
 *
 * TV_STOP (tv_stop.c, built -O0 -g) runs under ptrace until it stops
 * itself inside tv_fn(3, &s, 7); the thread is stepped back into
 * tv_fn's frame.  $a, $p->x and $c are compiled there once
 * (maptap_tvar_compile(), as pass 2 does), checked (3, 5, 7), and then,
 * ROUNDS times, read as a hit reads them: with a new stop's empty
 * memory window (maptap_tvar_cache) each round.  Prints the median and
 * the 90th percentile of one round (three reads) in microseconds, and
 * of a round with no cache (a process_vm_readv per read).
 */
#include <config.h>

#include <maptap/session.h>
#include <maptap/tvar.h>

#include "ptrace_stop.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The load bias of PATH in PID: its first mapping's start (offset 0;
 * a PIE's first PT_LOAD is at vaddr 0). */
static uint64_t bias_of(pid_t pid, const char *path)
{
	char maps[64], line[4096], real[4096];
	uint64_t lo = 0;
	FILE *f;

	if (!realpath(path, real))
		return 0;
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *name = strchr(line, '/');
		unsigned long long a, off;

		if (!name || sscanf(line, "%llx-%*x %*s %llx", &a, &off) != 2)
			continue;
		name[strcspn(name, "\n")] = 0;
		if (!strcmp(name, real) && off == 0) {
			lo = a;
			break;
		}
	}
	fclose(f);
	return lo;
}

int main(int argc, char **argv)
{
	static const struct maptap_tvar_op member = { MAPTAP_TVAR_MEMBER,
						       "x" };
	struct maptap_tvar *v[3];
	struct maptap_tvar_module *m;
	struct user_regs_struct regs;
	struct maptap_tvar_cache cache;
	struct maptap_tvar_frame f = { 0 };
	uint64_t bias, *t[2];
	int rounds = 20000, i, k, c, st;
	char *err = NULL;
	pid_t pid, tid;

	while ((c = getopt(argc, argv, "r:")) != -1)
		if (c == 'r')
			rounds = atoi(optarg);
	if (optind >= argc || rounds < 1) {
		fprintf(stderr, "usage: bench_tvar [-r ROUNDS] TV_STOP\n");
		return 2;
	}
	pid = ptrace_stop_launch(&argv[optind], &tid);
	if (pid < 0) {
		fprintf(stderr, "bench_tvar: %s did not stop\n", argv[optind]);
		return 1;
	}
	bias = bias_of(pid, argv[optind]);
	/* step out of raise() back into tv_fn */
	if (maptap_tvar_module_open(argv[optind], &m)) {
		fprintf(stderr, "bench_tvar: no DWARF in %s\n", argv[optind]);
		ptrace_stop_kill(pid);
		return 1;
	}
	for (i = 0; i < 100000; i++) {
		char *e2 = NULL;
		struct maptap_tvar *probe;

		if (ptrace(PTRACE_GETREGS, tid, NULL, &regs))
			break;
		if (maptap_tvar_compile(m, regs.rip - bias, "$c", NULL, 0, 0,
					&probe, &e2) == 0) {
			maptap_tvar_free(probe);
			break;
		}
		free(e2);
		if (ptrace(PTRACE_SINGLESTEP, tid, NULL, NULL) ||
		    waitpid(tid, &st, __WALL) != tid || !WIFSTOPPED(st))
			break;
	}
	if (maptap_tvar_compile(m, regs.rip - bias, "$a", NULL, 0, 0, &v[0],
				&err) ||
	    maptap_tvar_compile(m, regs.rip - bias, "$p", &member, 1, 0,
				&v[1], &err) ||
	    maptap_tvar_compile(m, regs.rip - bias, "$c", NULL, 0, 0, &v[2],
				&err)) {
		fprintf(stderr, "bench_tvar: %s\n", err ? err : "?");
		ptrace_stop_kill(pid);
		return 1;
	}
	f.pid = pid;
	f.read = maptap_read_user;
	f.regs = &regs;
	f.bias = bias;
	for (k = 0; k < 3; k++) {
		int64_t val = -1;
		static const int64_t want[3] = { 3, 5, 7 };

		if (maptap_tvar_read_long(v[k], &f, &val) || val != want[k]) {
			fprintf(stderr, "bench_tvar: variable %d reads %" PRId64
				", not %" PRId64 "\n", k, val, want[k]);
			ptrace_stop_kill(pid);
			return 1;
		}
	}
	t[0] = calloc((size_t)rounds, sizeof(uint64_t));
	t[1] = calloc((size_t)rounds, sizeof(uint64_t));
	if (!t[0] || !t[1])
		return 1;
	for (i = 0; i < rounds; i++) {
		for (c = 0; c < 2; c++) {
			uint64_t s = now_ns();
			int64_t val;

			cache.len = 0;	/* a new stop */
			f.cache = c ? NULL : &cache;
			for (k = 0; k < 3; k++)
				maptap_tvar_read_long(v[k], &f, &val);
			t[c][i] = now_ns() - s;
		}
	}
	printf("three variables ($a, $p->x, $c) of a -O0 frame, %d rounds:\n",
	       rounds);
	for (c = 0; c < 2; c++) {
		qsort(t[c], (size_t)rounds, sizeof(uint64_t), cmp_u64);
		printf("  %-34s median %6.2f us   p90 %6.2f us\n",
		       c ? "no cache (a read per variable)" :
		       "with the stop's memory window", t[c][rounds / 2] / 1e3,
		       t[c][rounds * 9 / 10] / 1e3);
	}
	for (k = 0; k < 3; k++)
		maptap_tvar_free(v[k]);
	maptap_tvar_module_put(m);
	free(t[0]);
	free(t[1]);
	ptrace_stop_kill(pid);
	return 0;
}
