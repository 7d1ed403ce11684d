/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sdt_marks.c -- a program with its own <sys/sdt.h> markers (sdt.py).
 *
 * Built with -DWITH_SEMA, every marker has a semaphore
 * (_SDT_HAS_SEMAPHORES), and sdtt:guarded runs only while a tracer has
 * set its semaphore; without, it always runs.  For every marker it
 * fires, the program prints the line a probe printing its arguments
 * should print ("triple -5 -5 zero"), so a test compares the two.
 *
 *   sdt_marks N        fire the markers N times, then print "sema V"
 *   sdt_marks fork N   the same in a forked child (the parent waits)
 *   sdt_marks exec N   fire them N times, then exec "sdt_marks N"
 *   sdt_marks dlopen LIB N   the same, from LIB: this file built with
 *                      -DSDT_LIB -shared, dlopen'ed (sdt_lib_fire())
 *   sdt_marks wait     print "ready PID", then for each line read on
 *                      stdin print "sema V" and fire the markers once
 */
#ifdef WITH_SEMA
#define _SDT_HAS_SEMAPHORES 1
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef WITH_SEMA
#define SDTT_SEMA(name) __extension__ unsigned short sdtt_##name##_semaphore \
	__attribute__((unused)) __attribute__((section(".probes")))
SDTT_SEMA(triple);
SDTT_SEMA(small);
SDTT_SEMA(mem);
SDTT_SEMA(constant);
SDTT_SEMA(guarded);
#define GUARD() (sdtt_guarded_semaphore != 0)
#define SEMA() ((int)sdtt_guarded_semaphore)
#else
#define GUARD() 1
#define SEMA() (-1)
#endif

static const char *const names[] = { "zero", "one", "two", "three" };
static long table[4] = { 11, 22, 33, 44 };

struct pair {
	int a;
	long b;
};

__attribute__((noinline)) static void fire(int i)
{
	struct pair p = { i * 3, -(long)i * 7 };
	signed char c = (signed char)-i;
	unsigned short u = (unsigned short)(60000 + i);
	long big = (long)i * 1000000000L - 5;
	const char *nm = names[i % 4];

	STAP_PROBE3(sdtt, triple, i - 5, big, nm);
	printf("triple %d %ld %s\n", i - 5, big, nm);
	DTRACE_PROBE2(sdtt, small, c, u);
	printf("small %d %u\n", c, u);
	STAP_PROBE2(sdtt, mem, p.b, table[i % 4]);
	printf("mem %ld %ld\n", p.b, table[i % 4]);
	STAP_PROBE1(sdtt, constant, 5);
	printf("constant 5\n");
	if (GUARD()) {
		STAP_PROBE1(sdtt, guarded, i);
		printf("guarded %d\n", i);
	}
	(void)p.a;
}

#ifdef SDT_LIB
/* The library's whole interface: fire the markers N times, then print
 * the guard's semaphore. */
void sdt_lib_fire(int n)
{
	int i;

	for (i = 0; i < n; i++)
		fire(i);
	printf("sema %d\n", SEMA());
}
#else
int main(int argc, char **argv)
{
	char line[64];
	int i, n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "wait")) {
		printf("ready %d\n", (int)getpid());
		for (i = 0; fgets(line, sizeof(line), stdin); i++) {
			printf("sema %d\n", SEMA());
			fire(i);
		}
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "fork")) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid > 0)
			return waitpid(pid, &i, 0) == pid && i == 0 ? 0 : 1;
		argv++;
	} else if (argc > 3 && !strcmp(argv[1], "dlopen")) {
		void *h = dlopen(argv[2], RTLD_NOW);
		void (*f)(int) = h ? (void (*)(int))dlsym(h, "sdt_lib_fire") :
				 NULL;

		if (!f) {
			fprintf(stderr, "sdt_marks: %s\n", dlerror());
			return 1;
		}
		f(atoi(argv[3]));
		return 0;
	} else if (argc > 2 && !strcmp(argv[1], "exec")) {
		n = atoi(argv[2]);
		for (i = 0; i < n; i++)
			fire(i);
		printf("sema %d\n", SEMA());
		execl("/proc/self/exe", argv[0], argv[2], (char *)NULL);
		return 1;
	}
	n = argc > 1 ? atoi(argv[1]) : 1;
	for (i = 0; i < n; i++)
		fire(i);
	printf("sema %d\n", SEMA());
	return 0;
}
#endif
