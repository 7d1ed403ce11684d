/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hooks_bench.c -- what on_syscall costs a traced program
 * (bench/README.md, "System-call hooks").
 *
 * Runs each target untraced and under a libmaptap session in three
 * configurations: no on_syscall (maptap's own stops only), on_syscall
 * for openat only, and on_syscall for every call (all_syscalls).  The
 * callback only counts, so the figures are the tracer's cost, not a
 * script's.  Rounds are interleaved (every cell once per round) and the
 * figures are medians over the rounds.  Wall time from CLOCK_MONOTONIC;
 * CPU time is user + system of the tracer (this process) and the target
 * (its reaped child) together, from getrusage(2).
 *
 * Usage: hooks_bench [-r ROUNDS] NOMAP_LOOP NOMAP_COUNT MAP_LOOP MAP_COUNT
 * (bench/tracer/hooks.sh builds the targets and runs it).  Exits 0, or 1
 * when a run fails.
 */
#include <maptap/maptap.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum mode { UNTRACED, SESSION, OPENAT, ALL, NMODES };

static const char *const mode_name[NMODES] = {
	"untraced", "no hook", "openat", "all",
};

#define MAX_ROUNDS 32

struct cell {
	double wall[MAX_ROUNDS], cpu[MAX_ROUNDS];
	struct maptap_session_stats stats;
	uint64_t calls;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec +
			kids.ru_utime.tv_sec + kids.ru_stime.tv_sec) +
	       (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec +
			kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) / 1e6;
}

static int count_call(const struct maptap_syscall_stop *st, void *arg)
{
	(void)st;
	++*(uint64_t *)arg;
	return 0;
}

static int run_untraced(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return status;
}

static int run_traced(char *const argv[], enum mode m, struct cell *c)
{
	struct maptap_session_opts o;
	const struct maptap_syscall *sc;
	struct maptap_session *s;
	int status = -1;
	pid_t pid;

	memset(&o, 0, sizeof(o));
	c->calls = 0;
	if (m != SESSION) {
		o.on_syscall = count_call;
		o.arg = &c->calls;
	}
	if (m == ALL)
		o.all_syscalls = true;
	sc = maptap_syscall_by_name(maptap_syscall_native_arch(), "openat");
	if (m == OPENAT && sc)
		o.syscalls[sc->nr / 64] |= 1ULL << (sc->nr % 64);
	if (maptap_session_new(&o, &s))
		return -ENOMEM;
	if (maptap_session_launch(s, argv, &pid) == 0 &&
	    maptap_session_run(s) == 0)
		status = maptap_session_exit_status(s);
	maptap_session_get_stats(s, &c->stats);
	maptap_session_free(s);
	return status;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
	double t[MAX_ROUNDS];

	memcpy(t, v, (size_t)n * sizeof(*t));
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static void report(const char *const names[2], struct cell cells[2][NMODES],
		   int rounds)
{
	int t, m;

	printf("target      mode        wall s   cpu s  wall/untr  cpu/untr"
	       "     stops  seccomp  syscall    hooked\n");
	for (t = 0; t < 2; t++) {
		double w0 = median(cells[t][UNTRACED].wall, rounds);
		double c0 = median(cells[t][UNTRACED].cpu, rounds);

		for (m = 0; m < NMODES; m++) {
			struct cell *c = &cells[t][m];
			double w = median(c->wall, rounds);
			double u = median(c->cpu, rounds);

			printf("%-11s %-9s %8.3f %7.3f %10.2f %9.2f",
			       names[t], mode_name[m], w, u, w / w0, u / c0);
			if (m == UNTRACED)
				printf("%10s %8s %8s %9s\n", "-", "-", "-", "-");
			else
				printf("%10llu %8llu %8llu %9llu\n",
				       (unsigned long long)c->stats.stops,
				       (unsigned long long)c->stats.seccomp_stops,
				       (unsigned long long)c->stats.syscall_stops,
				       (unsigned long long)c->calls);
		}
	}
}

int main(int argc, char **argv)
{
	static struct cell cells[2][NMODES];
	const char *names[2] = { "nomap_loop", "map_loop" };
	char *targets[2][3];
	int rounds = 3, r, t, m, opt;

	while ((opt = getopt(argc, argv, "r:")) != -1) {
		if (opt != 'r')
			return 1;
		rounds = atoi(optarg);
	}
	if (argc - optind != 4 || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: %s [-r ROUNDS] NOMAP_LOOP NOMAP_COUNT MAP_LOOP MAP_COUNT\n",
			argv[0]);
		return 1;
	}
	for (t = 0; t < 2; t++) {
		targets[t][0] = argv[optind + 2 * t];
		targets[t][1] = argv[optind + 2 * t + 1];
		targets[t][2] = NULL;
	}
	for (r = 0; r < rounds; r++) {
		for (t = 0; t < 2; t++) {
			for (m = 0; m < NMODES; m++) {
				struct cell *c = &cells[t][m];
				double w = now_s(), u = cpu_s();
				int st = m == UNTRACED ?
					 run_untraced(targets[t]) :
					 run_traced(targets[t], m, c);

				c->wall[r] = now_s() - w;
				c->cpu[r] = cpu_s() - u;
				if (st != 0) {
					fprintf(stderr, "%s %s: status %d\n",
						names[t], mode_name[m], st);
					return 1;
				}
			}
		}
		fprintf(stderr, "hooks_bench: round %d of %d done\n", r + 1,
			rounds);
	}
	report(names, cells, rounds);
	return 0;
}
