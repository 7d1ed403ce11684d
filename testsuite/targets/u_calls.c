/* SPDX-License-Identifier: GPL-2.0-or-later */
/* u_calls.c -- target of uprobes.py: probed functions called a known
 * number of times.
 *
 *   u_calls count N      u_square(i) for i < N; u_rec(100); u_riprel()
 *                        N times; the inlined u_inl() N times; prints
 *                        "sum S rec R rip C"
 *   u_calls threads T N  T threads, each u_square(i) for i < N; prints
 *                        "sum S"
 *   u_calls fork N       N calls in the parent, then a child makes 2N;
 *                        prints the parent's and the child's sums
 *   u_calls dlopen LIB N dlopen(LIB) after start, its u_libfn() N times
 *   u_calls loop N       prints "ready PID", waits for a line on stdin,
 *                        u_square(i) for i < N, prints "sum S", waits
 *                        for another line (or EOF)
 *   u_calls tloop T N    as loop, with T threads making N calls each
 *   u_calls trap 1       a SIGTRAP of its own (raise) around a probed
 *                        call: prints "trapped 1" when its handler ran
 *   u_calls nag N        a second thread sends SIGINT to the parent (when
 *                        the parent is its tracer: maptap -c) until the
 *                        main thread's N calls of u_square() are done;
 *                        SIGINT blocked; prints "sum S"
 *   u_calls malloc N     malloc and free N times
 *   u_calls edge N       N rounds of: a one-byte function (a lone ret),
 *                        functions whose first instruction is a call
 *                        rel32, a call through a rip-relative pointer,
 *                        a jmp rel8, and a function that is a jcc;
 *                        prints "edge S"
 *   u_calls sig N        u_sigfn() N times; each raises SIGUSR1, whose
 *                        handler calls u_sigfn() again; prints "sig S"
 *   u_calls jmp N        u_jump() longjmps out N times, then
 *                        u_square() N times; prints "jmp S"
 *   u_calls exec N       u_square() N times, then exec of "count 7"
 *   u_calls dlre LIB N   dlopen LIB, N calls, dlclose, dlopen it again
 *                        at another address, N calls; prints "moved 1"
 *                        when it moved, and "sum S"
 *   u_calls libloop LIB N  dlopen LIB, then as loop, calling u_libfn()
 *   u_calls traceme N    a fork child asks to be traced by its parent
 *                        (maptap lets go of it), then calls u_square() N
 *                        times: prints "child exited 0" when it ran to
 *                        its end without a stop (an int3 left in its
 *                        text would stop it with SIGTRAP)
 *   u_calls seize N      a second thread calls u_square() in a loop; a
 *                        fork child PTRACE_SEIZEs that thread (maptap
 *                        lets go of it, its siblings stay traced) and
 *                        watches it make N more calls: prints "seize 0"
 *                        when it did without a stop (5: a SIGTRAP stop,
 *                        an int3 left in the text; 3: the seize failed;
 *                        6: no progress in 60 s)
 */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) long u_square(long x)
{
	__asm__ volatile("" ::: "memory");
	return x * x;
}

/* Inlined even at -O0: its instances are DWARF's inlined_subroutine. */
static inline __attribute__((always_inline)) long u_inl(long x)
{
	return x + 7;
}

__attribute__((noinline)) int u_rec(int n)
{
	int r;

	if (n == 0)
		return 0;
	r = u_rec(n - 1);
	__asm__ volatile("" : "+r"(r));	/* no loop made of it */
	return r + 1;
}

/* A function whose first instruction has a rip-relative operand. */
int u_counter;
int u_riprel(void);
__asm__(".text\n.globl u_riprel\n.type u_riprel,@function\n"
	"u_riprel:\n\tmovl u_counter(%rip), %eax\n\taddl $1, %eax\n"
	"\tmovl %eax, u_counter(%rip)\n\tret\n.size u_riprel,.-u_riprel\n");

/* First instructions that cannot run displaced as they are. */
long u_ret1(long x);
long u_callrel(long x);
long u_callind(long x);
long u_jmpfirst(long x);
long u_jcc(long x);
long (*u_fnptr)(long) = u_ret1;
__asm__(".text\n"
	".globl u_ret1\n.type u_ret1,@function\nu_ret1:\n\tret\n"
	".size u_ret1,.-u_ret1\n"
	".globl u_callrel\n.type u_callrel,@function\nu_callrel:\n"
	"\tcall u_ret1\n\tleaq 1(%rdi), %rax\n\tret\n"
	".size u_callrel,.-u_callrel\n"
	".globl u_callind\n.type u_callind,@function\nu_callind:\n"
	"\tcall *u_fnptr(%rip)\n\tleaq 2(%rdi), %rax\n\tret\n"
	".size u_callind,.-u_callind\n"
	".globl u_jmpfirst\n.type u_jmpfirst,@function\nu_jmpfirst:\n"
	"\tjmp 1f\n\tud2\n1:\tleaq 3(%rdi), %rax\n\tret\n"
	".size u_jmpfirst,.-u_jmpfirst\n"
	".globl u_jcc\n.type u_jcc,@function\nu_jcc:\n"
	"\txorl %eax, %eax\n\ttestq %rdi, %rdi\n"
	".globl u_jcc_at\n.type u_jcc_at,@function\nu_jcc_at:\n"
	"\tjz 1f\n\tmovl $1, %eax\n1:\tret\n"
	".size u_jcc_at,.-u_jcc_at\n.size u_jcc,.-u_jcc\n");

__attribute__((noinline)) long u_sigfn(long x)
{
	if (x >= 0)
		raise(SIGUSR1);
	__asm__ volatile("" ::: "memory");
	return x * 2;
}

static long in_handler;

static void on_usr1(int sig)
{
	(void)sig;
	in_handler += u_sigfn(-1);
}

static jmp_buf jb;

__attribute__((noinline)) void u_jump(long x)
{
	__asm__ volatile("" ::: "memory");
	longjmp(jb, (int)x + 1);
}

static long n_calls;
static volatile sig_atomic_t trapped;

static void on_trap(int sig)
{
	(void)sig;
	trapped++;
}

static volatile int nagging, nag_done;

/* Whether this process's tracer is its parent. */
static int traced_by_parent(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	int tracer = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &tracer) == 1)
			break;
	fclose(f);
	return tracer != 0 && tracer == getppid();
}

/* SIGINT to the tracer (maptap passes each on to us: ignored) until
 * the main thread is done, so that one comes while maptap waits for a
 * stop inside a hit (its handlers interrupt its waits). */
static void *nagger(void *arg)
{
	pid_t tracer = traced_by_parent() ? getppid() : 0;

	(void)arg;
	while (!nag_done) {
		if (tracer)
			kill(tracer, SIGINT);
		nagging = 1;
	}
	return NULL;
}

static void *worker(void *arg)
{
	long i, sum = 0;

	(void)arg;
	for (i = 0; i < n_calls; i++)
		sum += u_square(i);
	return (void *)sum;
}

/* Shared between u_calls seize's parent and child. */
struct seize_share {
	volatile pid_t tid;		/* the worker's */
	volatile long calls;
	volatile int stop;
};

static void *seize_worker(void *arg)
{
	struct seize_share *sh = arg;
	long sum = 0;

	sh->tid = (pid_t)syscall(SYS_gettid);
	while (!sh->stop) {
		sum += u_square(sh->calls);
		__atomic_add_fetch(&sh->calls, 1, __ATOMIC_SEQ_CST);
	}
	return (void *)sum;
}

/* The fork child's part of u_calls seize: its exit code. */
static int seize_watch(struct seize_share *sh, long n)
{
	pid_t tid = sh->tid;
	long from;
	int st, i;

	if (ptrace(PTRACE_SEIZE, tid, 0L, 0L) != 0)
		return 3;
	from = sh->calls;
	for (i = 0; i < 600000 && sh->calls - from < n; i++) {
		if (waitpid(tid, &st, __WALL | WNOHANG) == tid)
			return WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP ? 5 : 7;
		usleep(100);
	}
	if (sh->calls - from < n)
		return 6;
	if (ptrace(PTRACE_INTERRUPT, tid, 0L, 0L) != 0 ||
	    waitpid(tid, &st, __WALL) != tid)
		return 7;
	if (WSTOPSIG(st) == SIGTRAP && (st >> 16) != PTRACE_EVENT_STOP)
		return 5;
	return ptrace(PTRACE_DETACH, tid, 0L, 0L) ? 7 : 0;
}

int main(int argc, char **argv)
{
	long i, sum = 0;

	if (argc < 3)
		return 2;
	n_calls = atol(argv[argc - 1]);
	if (!strcmp(argv[1], "count")) {
		int rec;

		for (i = 0; i < n_calls; i++)
			sum += u_square(i);
		rec = u_rec(100);
		for (i = 0; i < n_calls; i++)
			u_riprel();
		for (i = 0; i < n_calls; i++)
			sum += u_inl(i);
		printf("sum %ld rec %d rip %d\n", sum, rec, u_counter);
	} else if (!strcmp(argv[1], "threads")) {
		int t, nt = atoi(argv[2]);
		pthread_t th[64];

		for (t = 0; t < nt && t < 64; t++)
			pthread_create(&th[t], NULL, worker, NULL);
		for (t = 0; t < nt && t < 64; t++) {
			void *r;

			pthread_join(th[t], &r);
			sum += (long)r;
		}
		printf("sum %ld\n", sum);
	} else if (!strcmp(argv[1], "fork")) {
		pid_t c;
		int st;

		sum = (long)worker(NULL);
		fflush(stdout);
		c = fork();
		if (c == 0) {
			n_calls *= 2;
			printf("child %ld\n", (long)worker(NULL));
			fflush(stdout);
			_exit(0);
		}
		waitpid(c, &st, 0);
		printf("parent %ld\n", sum);
	} else if (!strcmp(argv[1], "dlopen")) {
		void *h = dlopen(argv[2], RTLD_NOW);
		long (*fn)(long);

		if (!h)
			return 3;
		fn = (long (*)(long))dlsym(h, "u_libfn");
		for (i = 0; i < n_calls; i++)
			sum += fn(i);
		printf("sum %ld\n", sum);
	} else if (!strcmp(argv[1], "nag")) {
		pthread_t th;
		sigset_t set;

		/* Blocked: no thread stops for the SIGINTs maptap passes
		 * on, so the nagger keeps sending while the hit is handled. */
		sigemptyset(&set);
		sigaddset(&set, SIGINT);
		sigprocmask(SIG_BLOCK, &set, NULL);
		signal(SIGINT, SIG_IGN);
		if (pthread_create(&th, NULL, nagger, NULL))
			return 3;
		while (!nagging)
			;
		for (i = 0; i < n_calls; i++)
			sum += u_square(i);
		nag_done = 1;
		pthread_join(th, NULL);
		printf("sum %ld\n", sum);
	} else if (!strcmp(argv[1], "loop")) {
		char line[16];

		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 4;
		for (i = 0; i < n_calls; i++)
			sum += u_square(i);
		printf("sum %ld\n", sum);
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 0;
	} else if (!strcmp(argv[1], "tloop")) {
		int t, nt = atoi(argv[2]);
		pthread_t th[64];
		char line[16];

		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 4;
		for (t = 0; t < nt && t < 64; t++)
			pthread_create(&th[t], NULL, worker, NULL);
		for (t = 0; t < nt && t < 64; t++) {
			void *r;

			pthread_join(th[t], &r);
			sum += (long)r;
		}
		printf("sum %ld\n", sum);
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 0;
	} else if (!strcmp(argv[1], "trap")) {
		signal(SIGTRAP, on_trap);
		sum = u_square(3);
		raise(SIGTRAP);
		sum += u_square(4);
		printf("trapped %d sum %ld\n", (int)trapped, sum);
	} else if (!strcmp(argv[1], "edge")) {
		for (i = 0; i < n_calls; i++)
			sum += u_ret1(i) * 0 + u_callrel(i) + u_callind(i) +
			       u_jmpfirst(i) + u_jcc(i);
		printf("edge %ld\n", sum);
	} else if (!strcmp(argv[1], "sig")) {
		signal(SIGUSR1, on_usr1);
		for (i = 0; i < n_calls; i++)
			sum += u_sigfn(i);
		printf("sig %ld handler %ld\n", sum, in_handler);
	} else if (!strcmp(argv[1], "jmp")) {
		volatile long k = 0;

		if (setjmp(jb) && ++k == n_calls)
			goto done;
		u_jump(k);
done:
		for (i = 0; i < n_calls; i++)
			sum += u_square(i);
		printf("jmp %ld k %ld\n", sum, (long)k);
	} else if (!strcmp(argv[1], "exec")) {
		for (i = 0; i < n_calls; i++)
			sum += u_square(i);
		fflush(stdout);
		execl("/proc/self/exe", argv[0], "count", "7", (char *)NULL);
		return 5;
	} else if (!strcmp(argv[1], "dlre")) {
		void *h = dlopen(argv[2], RTLD_NOW), *h2, *blk;
		long (*fn)(long), (*fn2)(long);

		if (!h)
			return 3;
		fn = (long (*)(long))dlsym(h, "u_libfn");
		for (i = 0; i < n_calls; i++)
			sum += fn(i);
		dlclose(h);
		/* Hold the old place so that the library lands elsewhere. */
		blk = mmap((void *)((unsigned long)fn & ~0xfffUL), 4096,
			   PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			   MAP_FIXED_NOREPLACE, -1, 0);
		h2 = dlopen(argv[2], RTLD_NOW);
		if (!h2)
			return 3;
		fn2 = (long (*)(long))dlsym(h2, "u_libfn");
		for (i = 0; i < n_calls; i++)
			sum += fn2(i);
		printf("moved %d\nsum %ld\n", blk != MAP_FAILED && fn2 != fn,
		       sum);
	} else if (!strcmp(argv[1], "libloop")) {
		void *h = dlopen(argv[2], RTLD_NOW);
		long (*fn)(long);
		char line[16];

		if (!h)
			return 3;
		fn = (long (*)(long))dlsym(h, "u_libfn");
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 4;
		for (i = 0; i < n_calls; i++)
			sum += fn(i);
		printf("sum %ld\n", sum);
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 0;
	} else if (!strcmp(argv[1], "traceme")) {
		pid_t c;
		int st;

		u_square(1);	/* placed and hit before the fork */
		c = fork();
		if (c == 0) {
			if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0)
				_exit(3);
			for (i = 0; i < n_calls; i++)
				sum += u_square(i);
			_exit(sum == (n_calls - 1) * n_calls * (2 * n_calls - 1) / 6 ?
			      0 : 4);
		}
		waitpid(c, &st, 0);
		if (WIFSTOPPED(st)) {
			printf("child stopped by signal %d\n", WSTOPSIG(st));
			kill(c, SIGKILL);
			waitpid(c, &st, 0);
		} else {
			printf("child exited %d\n", WEXITSTATUS(st));
		}
	} else if (!strcmp(argv[1], "seize")) {
		struct seize_share *sh = mmap(NULL, sizeof(*sh),
					      PROT_READ | PROT_WRITE,
					      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		pthread_t th;
		pid_t c;
		int st;

		if (sh == MAP_FAILED)
			return 3;
		prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
		pthread_create(&th, NULL, seize_worker, sh);
		while (!sh->tid || sh->calls < 10)
			usleep(100);
		c = fork();
		if (c == 0)
			_exit(seize_watch(sh, n_calls));
		waitpid(c, &st, 0);
		sh->stop = 1;
		pthread_join(th, NULL);
		printf("seize %d\n", WIFEXITED(st) ? WEXITSTATUS(st) :
		       128 + WTERMSIG(st));
	} else if (!strcmp(argv[1], "malloc")) {
		for (i = 0; i < n_calls; i++)
			free(malloc((size_t)i + 1));
		printf("done\n");
	}
	return 0;
}
