/* SPDX-License-Identifier: GPL-2.0-or-later */
/* u_main.c -- target of testsuite/system/funcs.py (user-symbol and
 * user-memory script functions).
 *
 * It asks the script questions through write(2) on fd -1, which fails
 * with EBADF before the kernel touches the buffer: the buffer argument
 * is an address, the count says what to do with it (see funcs.py).  It
 * writes what it knows about itself (its own &symbol values, sizes) to
 * the report file argv[1], and a copy of /proc/self/maps to argv[2]
 * before it exits, so the test can compute every expected answer without
 * maptap.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

extern int u_lib_data[4];
extern int u_lib_func(int x);
extern void u_lib_handler(int sig);

enum { Q_SYM = 1, Q_STRING = 2, Q_READERS = 3, Q_VMA = 4 };

int u_main_data[8] = { 5, 6, 7, 8 };
static const char u_string[] = "hello, \"funcs\"\n";
static const unsigned char u_pattern[8] = {
	0xf1, 0x82, 0x03, 0x84, 0x05, 0x86, 0x07, 0x88,
};
static volatile sig_atomic_t u_main_hits;

__attribute__((noinline)) int u_main_func(int x)
{
	return x + u_main_data[x & 7];
}

void u_main_handler(int sig)
{
	u_main_hits += sig;
}

static void ask(const void *addr, size_t what)
{
	/* the raw call: glibc's write() could check nothing, but be sure
	 * the kernel sees exactly these arguments */
	syscall(SYS_write, -1, addr, what);
}

static void report(FILE *f, const char *key, const void *addr)
{
	fprintf(f, "%s 0x%lx\n", key, (unsigned long)(uintptr_t)addr);
}

static void install(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void copy_maps(const char *path)
{
	char buf[4096];
	FILE *in = fopen("/proc/self/maps", "r"), *out = fopen(path, "w");
	size_t n;

	if (!in || !out)
		exit(2);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	fclose(out);
}

int main(int argc, char **argv)
{
	struct timespec ts;
	FILE *f;

	if (argc < 3)
		return 2;
	f = fopen(argv[1], "w");
	if (!f)
		return 2;
	report(f, "u_main_func", (const void *)u_main_func);
	report(f, "u_main_data", u_main_data);
	report(f, "u_lib_func", (const void *)u_lib_func);
	report(f, "u_lib_data", u_lib_data);
	report(f, "u_main_handler", (const void *)u_main_handler);
	report(f, "u_lib_handler", (const void *)u_lib_handler);
	report(f, "u_string", u_string);
	report(f, "u_pattern", u_pattern);
	fclose(f);

	ask(u_main_func, Q_SYM);
	ask((const char *)u_main_func + 3, Q_SYM);
	ask(&u_main_data[2], Q_SYM);
	ask(u_lib_func, Q_SYM);
	ask(&u_lib_data[1], Q_SYM);
	ask(u_string, Q_STRING);
	ask(u_string + 7, Q_STRING);
	ask((const void *)16, Q_STRING);
	ask(u_pattern, Q_READERS);
	ask((const void *)16, Q_READERS);
	ask(u_main_func, Q_VMA);
	ask(u_main_data, Q_VMA);
	ask(u_lib_func, Q_VMA);

	install(SIGUSR1, u_main_handler);
	install(SIGUSR2, u_lib_handler);
	/* the vDSO has no fast path for this clock: its fallback makes the
	 * system call from inside the vDSO */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	if (getuid() == (uid_t)-1)
		return 3;
	raise(SIGUSR1);
	raise(SIGUSR2);
	copy_maps(argv[2]);
	return u_main_func(1) + u_lib_func(2) > 0 ? 0 : 4;
}
