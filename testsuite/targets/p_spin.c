/* SPDX-License-Identifier: GPL-2.0-or-later */
/* p_spin.c -- CPU-bound target of profile.py.
 *
 *   p_spin cal             print how many iterations of f10's loop take
 *                          one second of CPU time (sizes the runs)
 *   p_spin run N ROUNDS [PROG ARGS...]
 *                          ROUNDS times f60(N), f30(N), f10(N), with
 *                          the functions linked in (p_work.c built into
 *                          the executable, or linked as a library); then
 *                          execv(PROG, PROG ARGS...) if given
 *   p_spin threads N ROUNDS
 *                          two threads run f60(N) and f30(N) ROUNDS
 *                          times each while the main thread runs f10(N)
 *                          ROUNDS times: the CPU time each function
 *                          takes is the same as in `run`, whatever the
 *                          scheduling; the three meet at a barrier after
 *                          each round, so that a change of CPU speed
 *                          during the run (a busy host) touches each in
 *                          proportion, as `run`'s interleaving does,
 *                          not the f60 thread alone, which would
 *                          otherwise spin on by itself once the others
 *                          are done; with "threads-wait" the two
 *                          threads are made first, then the program
 *                          prints "ready PID" and waits for a line on
 *                          stdin before any of them spins (for -x)
 *   p_spin jit N ROUNDS    ROUNDS times f10(N) and jit_spin(3 N), a loop
 *                          "JITted" into anonymous executable memory and
 *                          described in /tmp/perf-PID.map (printed as
 *                          "perfmap PATH"; the caller removes it)
 *   p_spin dl LIB N ROUNDS the same with LIB dlopen()ed, then dlclose()d
 *                          before the program spins a while in after()
 *   p_spin wait ...        print "ready PID", wait for a line on stdin,
 *                          then do what the rest of the words say (for
 *                          mttest.attach_run)
 *
 * The rounds interleave the three functions, so that a change of CPU
 * speed during the run (other load) touches each in proportion; with
 * P_SPIN_MIN_MS set, `run` and `dl` go on with whole rounds until the
 * process has spent that much CPU time.  With
 * P_SPIN_TIME set in the environment, the program prints on stderr the
 * wall-clock and CPU time (ns) of its work, for bench/profile/run.py,
 * and the CPU time (ns) that each of rounds()' three functions (or
 * each of the threads case's three threads) took:
 * on a noisy VM the same work is not the same CPU time.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef void (*work_fn)(uint64_t);

#ifdef WORK_LINKED
void f60(uint64_t n);
void f30(uint64_t n);
void f10(uint64_t n);
#endif

static volatile uint64_t sink;

__attribute__((noinline)) static void after(uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		sink += i * i;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static uint64_t t0_wall, t0_cpu;
static uint64_t fn_cpu[3];	/* CPU time (ns) in rounds()' a, b, c */

/* R rounds, then more whole rounds until the process has spent
 * P_SPIN_MIN_MS of CPU time since t0_cpu (when set): N is sized by a
 * calibration that a loaded machine makes too small, and a profile
 * needs enough samples whatever the load did. */
static void rounds(work_fn a, work_fn b, work_fn c, uint64_t n, long r)
{
	const char *min = getenv("P_SPIN_MIN_MS");
	uint64_t min_ns = min ? strtoull(min, NULL, 0) * 1000000 : 0;

	while (r-- > 0 ||
	       (min_ns && now_ns(CLOCK_PROCESS_CPUTIME_ID) - t0_cpu < min_ns)) {
		uint64_t t0 = now_ns(CLOCK_THREAD_CPUTIME_ID), t1, t2;

		a(n);
		t1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		b(n);
		t2 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		c(n);
		fn_cpu[0] += t1 - t0;
		fn_cpu[1] += t2 - t1;
		fn_cpu[2] += now_ns(CLOCK_THREAD_CPUTIME_ID) - t2;
	}
}

static void report_time(void)
{
	if (!getenv("P_SPIN_TIME"))
		return;
	fprintf(stderr, "p_spin wall_ns %llu cpu_ns %llu\n",
		(unsigned long long)(now_ns(CLOCK_MONOTONIC) - t0_wall),
		(unsigned long long)(now_ns(CLOCK_PROCESS_CPUTIME_ID) - t0_cpu));
	if (fn_cpu[0] + fn_cpu[1] + fn_cpu[2])
		fprintf(stderr, "p_spin fn_cpu_ns %llu %llu %llu\n",
			(unsigned long long)fn_cpu[0],
			(unsigned long long)fn_cpu[1],
			(unsigned long long)fn_cpu[2]);
}

#ifdef WORK_LINKED
struct job {
	work_fn fn;
	uint64_t n;
	long r;
	int idx;	/* its CPU time goes to fn_cpu[idx] */
};

static pthread_barrier_t start;

static void *job_run(void *arg)
{
	struct job *j = arg;
	uint64_t t0;
	long r;

	pthread_barrier_wait(&start);
	for (r = 0; r < j->r; r++) {
		t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		j->fn(j->n);
		fn_cpu[j->idx] += now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
		pthread_barrier_wait(&start);
	}
	return NULL;
}

static int threads(uint64_t n, long r, bool wait)
{
	struct job a = { f60, n, r, 0 }, b = { f30, n, r, 1 },
		   c = { f10, n, r, 2 };
	pthread_t ta, tb;
	char line[16];

	pthread_barrier_init(&start, NULL, 3);
	if (pthread_create(&ta, NULL, job_run, &a) ||
	    pthread_create(&tb, NULL, job_run, &b))
		return 2;
	if (wait) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 2;
	}
	job_run(&c);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	report_time();
	return 0;
}

/* x86_64: 1: dec %rdi; jnz 1b; ret -- N iterations of a two-instruction
 * loop (the psABI passes N in %rdi) */
static const unsigned char jit_code[] = {
	0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3,
};

static int jit(uint64_t n, long r)
{
	unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE |
				   PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
				   -1, 0);
	char path[64];
	FILE *map;

	if (code == MAP_FAILED)
		return 2;
	memcpy(code, jit_code, sizeof(jit_code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(path, "w");
	if (!map)
		return 2;
	fprintf(map, "%lx %zx jit_spin\n", (unsigned long)code,
		sizeof(jit_code));
	fclose(map);
	printf("perfmap %s\n", path);
	fflush(stdout);
	while (r-- > 0) {
		f10(n);
		((work_fn)(void *)code)(3 * n);
	}
	return 0;
}
#endif

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "wait") == 0) {
		char line[16];

		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 2;
		argv++;
		argc--;
	}
	if (argc == 2 && strcmp(argv[1], "cal") == 0) {
		uint64_t n = 1 << 20;
		double t0, t;

		for (;;) {
			t0 = cpu_s();
			after(n);
			t = cpu_s() - t0;
			if (t > 0.2)
				break;
			n *= 2;
		}
		printf("%llu\n", (unsigned long long)((double)n / t));
		return 0;
	}
	t0_wall = now_ns(CLOCK_MONOTONIC);
	t0_cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID);
#ifdef WORK_LINKED
	if (argc >= 4 && strcmp(argv[1], "run") == 0) {
		rounds(f60, f30, f10, strtoull(argv[2], NULL, 0),
		       atol(argv[3]));
		report_time();
		if (argc > 4) {
			execv(argv[4], argv + 4);
			perror("p_spin: execv");
			return 2;
		}
		return 0;
	}
	if (argc == 4 && (strcmp(argv[1], "threads") == 0 ||
			  strcmp(argv[1], "threads-wait") == 0))
		return threads(strtoull(argv[2], NULL, 0), atol(argv[3]),
			       argv[1][7] == '-');
	if (argc == 4 && strcmp(argv[1], "jit") == 0)
		return jit(strtoull(argv[2], NULL, 0), atol(argv[3]));
#endif
	if (argc == 5 && strcmp(argv[1], "dl") == 0) {
		uint64_t n = strtoull(argv[3], NULL, 0);
		void *h = dlopen(argv[2], RTLD_NOW);

		if (!h) {
			fprintf(stderr, "p_spin: %s\n", dlerror());
			return 2;
		}
		rounds((work_fn)dlsym(h, "f60"), (work_fn)dlsym(h, "f30"),
		       (work_fn)dlsym(h, "f10"), n, atol(argv[4]));
		dlclose(h);
		/* as long as f10 took: the module layer has long forgotten
		 * the library when these are named */
		after(n * (uint64_t)atol(argv[4]));
		report_time();
		return 0;
	}
	fprintf(stderr, "usage: p_spin cal | run N ROUNDS [PROG ARGS...] | "
		"threads N ROUNDS | jit N ROUNDS | dl LIB N ROUNDS\n");
	return 2;
}
