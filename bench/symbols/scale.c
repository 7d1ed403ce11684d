/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scale.c -- the module layer with many modules and many processes:
 * lookups per second where the tracker holds N module instances in each
 * of K address spaces, and the same addresses resolved in the past after
 * every instance was retired.
 *
 *   scale [-r ROUNDS] LIB N K
 *
 * Copies LIB (bench/symbols/scale_lib.c built as a shared object) N
 * times into a temporary directory, forks a holder that dlopens every
 * copy and then forks K-1 more holders (same mappings), and measures in
 * this process, with libmaptap:
 *   sync    maptap_modules_sync_pid() of each holder's /proc/PID/maps: N
 *           files opened and cached once, found in the ELF cache K-1
 *           more times;
 *   index   the first lookup in each copy, which builds its symbol
 *           index (not counted in the lookups below);
 *   text    maptap_sym_lookup() of a function address, now;
 *   bss     the same of an address in the anonymous part of .bss;
 *   past    the function address at a time while it was mapped, after
 *           an exec event retired every instance of every space.
 * Addresses are drawn (seed 1) over all copies and all holders.  Each
 * figure is the best of ROUNDS (default 5) timings of the same work.
 */
#define _GNU_SOURCE
#include <maptap/maps.h>
#include <maptap/module.h>
#include <maptap/symbols.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOOKUPS 200000

struct addrs {
	uint64_t func, bss;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	close(in);
	close(out);
	return n == 0 ? 0 : -1;
}

/* The first holder: dlopen the N copies, report their addresses on FD,
 * fork the other holders (their pids follow on FD), then wait. */
static void holder(const char *dir, int n, int k, int fd)
{
	char path[4096];
	struct addrs a;
	pid_t pid;
	int i;

	/* Holders (and their forks, which inherit this) die with us. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (i = 0; i < n; i++) {
		void *h;

		snprintf(path, sizeof(path), "%s/lib%d.so", dir, i);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h)
			_exit(1);
		a.func = (uintptr_t)dlsym(h, "scale_func");
		a.bss = (uintptr_t)dlsym(h, "scale_bss");
		if (write(fd, &a, sizeof(a)) != sizeof(a))
			_exit(1);
	}
	for (i = 1; i < k; i++) {
		pid = fork();
		if (pid == 0) {
			close(fd);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			pause();
			_exit(0);
		}
		if (write(fd, &pid, sizeof(pid)) != sizeof(pid))
			_exit(1);
	}
	close(fd);
	pause();
	_exit(0);
}

struct query {
	pid_t pid;
	uint64_t addr;
};

/* ns per lookup of Q[0..N) at TIME_NS; *NAMED counts resolved ones. */
static double time_lookups(struct maptap_modules *m, const struct query *q,
			   size_t n, uint64_t time_ns, size_t *named)
{
	struct maptap_sym_info si;
	unsigned flags = MAPTAP_SYM_FUNC | MAPTAP_SYM_DATA;
	uint64_t t0 = now_ns();
	size_t i;

	*named = 0;
	for (i = 0; i < n; i++)
		if (maptap_sym_lookup(m, q[i].pid, q[i].addr, time_ns, flags,
				      &si) == 0 &&
		    (si.func.name || si.data.name))
			(*named)++;
	return (double)(now_ns() - t0) / (double)n;
}

static void fill(struct query *q, size_t n, const pid_t *pids, int k,
		 const struct addrs *a, int na, bool bss)
{
	size_t i;

	srandom(1);
	for (i = 0; i < n; i++) {
		const struct addrs *x = &a[random() % na];

		q[i].pid = pids[random() % k];
		q[i].addr = bss ? x->bss + 4096 + random() % 8192 :
				  x->func + random() % 8;
	}
}

struct result {
	double sync_ms, index_ms, text_ns, bss_ns, past_ns;
	size_t text_named, bss_named, past_named;
};

static int one_round(const pid_t *pids, int k, const struct addrs *a, int n,
		     struct query *q, struct result *res)
{
	struct maptap_modules_opts o = {
		.max_retired = (unsigned)((n + 64) * k),
	};
	struct maptap_event ev = { .kind = MAPTAP_EV_EXEC,
				   .time_ns = 2000000000000000000ULL };
	struct maptap_modules *m;
	uint64_t t0;
	int i, rc = 0;

	if (maptap_modules_new(&o, &m))
		return -ENOMEM;
	t0 = now_ns();
	for (i = 0; i < k && !rc; i++)
		rc = maptap_modules_sync_pid(m, pids[i], MAPTAP_MAPS_AUTO);
	res->sync_ms = (double)(now_ns() - t0) / 1e6;
	if (rc) {
		maptap_modules_free(m);
		return rc;
	}
	/* Build every copy's symbol index first (one per file, shared by
	 * the spaces): the figures are for lookups, not for indexing. */
	for (i = 0; i < n; i++) {
		q[i].pid = pids[0];
		q[i].addr = a[i].func;
	}
	t0 = now_ns();
	time_lookups(m, q, (size_t)n, 0, &res->text_named);
	res->index_ms = (double)(now_ns() - t0) / 1e6;
	fill(q, LOOKUPS, pids, k, a, n, false);
	res->text_ns = time_lookups(m, q, LOOKUPS, 0, &res->text_named);
	fill(q, LOOKUPS, pids, k, a, n, true);
	res->bss_ns = time_lookups(m, q, LOOKUPS, 0, &res->bss_named);
	for (i = 0; i < k; i++) {
		ev.pid = ev.tid = pids[i];
		maptap_modules_event(m, &ev, NULL, NULL, NULL);
	}
	fill(q, LOOKUPS, pids, k, a, n, false);
	/* sync loaded every instance at time 0, the exec retired them at
	 * EV.time_ns: look up half way. */
	res->past_ns = time_lookups(m, q, LOOKUPS, ev.time_ns / 2,
				    &res->past_named);
	maptap_modules_free(m);
	return 0;
}

static void best(struct result *b, const struct result *r, int round)
{
	if (round == 0) {
		*b = *r;
		return;
	}
#define MIN(f) if (r->f < b->f) b->f = r->f
	MIN(sync_ms);
	MIN(index_ms);
	MIN(text_ns);
	MIN(bss_ns);
	MIN(past_ns);
#undef MIN
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/maptap-scale.XXXXXX", path[4096];
	struct result r, b = { 0 };
	struct addrs *a;
	struct query *q;
	pid_t *pids;
	int fds[2], n, k, i, c, rounds = 5, rc = 0;

	while ((c = getopt(argc, argv, "r:")) != -1) {
		if (c != 'r')
			return 2;
		rounds = atoi(optarg);
	}
	if (argc - optind != 3) {
		fprintf(stderr, "usage: scale [-r ROUNDS] LIB N K\n");
		return 2;
	}
	n = atoi(argv[optind + 1]);
	k = atoi(argv[optind + 2]);
	if (n < 1 || k < 1 || rounds < 1 || !mkdtemp(dir) || pipe(fds))
		return 2;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/lib%d.so", dir, i);
		if (copy_file(argv[optind], path))
			return 1;
	}
	a = calloc((size_t)n, sizeof(*a));
	pids = calloc((size_t)k, sizeof(*pids));
	q = calloc(LOOKUPS, sizeof(*q));
	if (!a || !pids || !q)
		return 1;
	pids[0] = fork();
	if (pids[0] == 0) {
		close(fds[0]);
		holder(dir, n, k, fds[1]);
	}
	close(fds[1]);
	for (i = 0; i < n; i++)
		if (read(fds[0], &a[i], sizeof(*a)) != sizeof(*a))
			rc = 1;
	for (i = 1; i < k; i++)
		if (read(fds[0], &pids[i], sizeof(*pids)) != sizeof(*pids))
			rc = 1;
	for (i = 0; i < rounds && !rc; i++) {
		rc = one_round(pids, k, a, n, q, &r);
		best(&b, &r, i);
	}
	for (i = k - 1; i >= 0; i--)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	waitpid(pids[0], NULL, 0);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/lib%d.so", dir, i);
		unlink(path);
	}
	rmdir(dir);
	if (rc) {
		fprintf(stderr, "scale: failed (%d)\n", rc);
		return 1;
	}
	printf("modules %d spaces %d (best of %d)\n", n, k, rounds);
	printf("  sync  %10.2f ms for %d spaces\n", b.sync_ms, k);
	printf("  index %10.2f ms for %d files\n", b.index_ms, n);
	printf("  text  %10.1f ns/lookup %12.0f lookups/s  %zu/%d named\n",
	       b.text_ns, 1e9 / b.text_ns, r.text_named, LOOKUPS);
	printf("  bss   %10.1f ns/lookup %12.0f lookups/s  %zu/%d named\n",
	       b.bss_ns, 1e9 / b.bss_ns, r.bss_named, LOOKUPS);
	printf("  past  %10.1f ns/lookup %12.0f lookups/s  %zu/%d named\n",
	       b.past_ns, 1e9 / b.past_ns, r.past_named, LOOKUPS);
	free(a);
	free(pids);
	free(q);
	return 0;
}
