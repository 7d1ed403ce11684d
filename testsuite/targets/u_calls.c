/* u_calls.c -- target of uprobes.py: probed functions called a known
 * number of times.
 *
 *   u_calls count N      u_square(i) for i < N; u_rec(100); u_riprel()
 *                        N times; prints "sum S rec R rip C"
 *   u_calls threads T N  T threads, each u_square(i) for i < N; prints
 *                        "sum S"
 *   u_calls fork N       N calls in the parent, then a child makes 2N;
 *                        prints the parent's and the child's sums
 *   u_calls dlopen LIB N dlopen(LIB) after start, its u_libfn() N times
 *   u_calls loop N       prints "ready PID", waits for a line on stdin,
 *                        u_square(i) for i < N, prints "sum S", waits
 *                        for another line (or EOF)
 *   u_calls trap 1       a SIGTRAP of its own (raise) around a probed
 *                        call: prints "trapped 1" when its handler ran
 *   u_calls malloc N     malloc and free N times
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
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

static long n_calls;
static volatile sig_atomic_t trapped;

static void on_trap(int sig)
{
	(void)sig;
	trapped++;
}

static void *worker(void *arg)
{
	long i, sum = 0;

	(void)arg;
	for (i = 0; i < n_calls; i++)
		sum += u_square(i);
	return (void *)sum;
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
	} else if (!strcmp(argv[1], "trap")) {
		signal(SIGTRAP, on_trap);
		sum = u_square(3);
		raise(SIGTRAP);
		sum += u_square(4);
		printf("trapped %d sum %ld\n", (int)trapped, sum);
	} else if (!strcmp(argv[1], "malloc")) {
		for (i = 0; i < n_calls; i++)
			free(malloc((size_t)i + 1));
		printf("done\n");
	}
	return 0;
}
