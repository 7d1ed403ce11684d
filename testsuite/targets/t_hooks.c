/* SPDX-License-Identifier: GPL-2.0-or-later */
/* t_hooks.c -- target of testsuite/unit/test_hooks.c (the tracer's hooks
 * for scripts: on_syscall, on_ready, get_regs, read_user, run_until).
 *
 * It talks to the test through raw system calls the test selects:
 * number MARK (0x1ff, unknown to the kernel: it returns -ENOSYS) with
 * six 64-bit arguments, made with an inline "syscall" instruction so the
 * stop's pc is in this program's own text.  The test reads the arguments
 * at the stop and answers nothing: the target never depends on it.
 *
 * Usage: t_hooks MODE [ARG]
 *   raw        MARK with the bit patterns below, twice; openat
 *              /dev/null; an mmap of one page; call 999999; exit 0
 *   mem        a string at the end of a page whose next page is unmapped,
 *              then MARK(string, its length, end of the page)
 *   threads    one thread exits, three block on a pipe, MARK(tid of a
 *              blocked one), then exit_group from main
 *   fork       fork; the child makes MARK(1) and exits; the parent waits
 *   exec       MARK(1), then execs itself in mode "raw"
 *   texec      a second thread execs itself in mode "raw" while the
 *              main thread blocks on a pipe
 *   pipe FD    read one byte from FD, then MARK(2), exit 0
 *   attach R W write one byte to W, read one from R, MARK patterns, exit
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MARK 0x1ff

static const uint64_t pattern[6] = {
	0x0123456789abcdefULL, 0xfedcba9876543210ULL, 0x8000000000000000ULL,
	0xffffffffffffffffULL, 0x7fffffffffffffffULL, 0x5555aaaa5555aaaaULL,
};

static long __attribute__((noinline)) raw6(long nr, uint64_t a1, uint64_t a2,
					   uint64_t a3, uint64_t a4,
					   uint64_t a5, uint64_t a6)
{
	register uint64_t r10 __asm__("r10") = a4;
	register uint64_t r8 __asm__("r8") = a5;
	register uint64_t r9 __asm__("r9") = a6;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10),
			   "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

static long mark(uint64_t a1, uint64_t a2, uint64_t a3)
{
	return raw6(MARK, a1, a2, a3, 0, 0, 0);
}

static int do_raw(void)
{
	void *p;
	int fd;

	if (raw6(MARK, pattern[0], pattern[1], pattern[2], pattern[3],
		 pattern[4], pattern[5]) != -38)	/* -ENOSYS */
		return 10;
	if (raw6(MARK, pattern[5], pattern[4], pattern[3], pattern[2],
		 pattern[1], pattern[0]) != -38)
		return 11;
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0)
		return 12;
	close(fd);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 13;
	if (raw6(999999, 1, 2, 3, 4, 5, 6) != -38)
		return 14;
	return 0;
}

static const char text[] = "maptap read_user: known string";

static int do_mem(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *s;

	if (p == MAP_FAILED || munmap(p + page, (size_t)page) != 0)
		return 20;
	s = p + page - sizeof(text);
	memcpy(s, text, sizeof(text));
	mark((uintptr_t)s, sizeof(text), (uintptr_t)(p + page));
	return 0;
}

static int block_fd[2];
static volatile pid_t blocked_tid;

static void *quick(void *arg)
{
	return arg;
}

static void *blocker(void *arg)
{
	char c;

	blocked_tid = (pid_t)syscall(SYS_gettid);
	/* Never written: the process ends in exit_group meanwhile. */
	if (read(block_fd[0], &c, 1) < 0)
		return NULL;
	return arg;
}

static int do_threads(void)
{
	pthread_t t;
	int i;

	if (pipe(block_fd) != 0)
		return 30;
	if (pthread_create(&t, NULL, quick, NULL) || pthread_join(t, NULL))
		return 31;
	for (i = 0; i < 3; i++)
		if (pthread_create(&t, NULL, blocker, NULL))
			return 32;
	while (!blocked_tid)
		sched_yield();
	mark((uint64_t)blocked_tid, 0, 0);
	exit(0);	/* exit_group with three threads alive */
}

static int do_fork(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 40;
	if (pid == 0) {
		mark(1, 0, 0);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || status != 0)
		return 41;
	return 0;
}

static int do_exec(const char *self)
{
	mark(1, 0, 0);
	execl(self, self, "raw", (char *)NULL);
	return 50;
}

static const char *self_path;

static void *exec_thread(void *arg)
{
	execl(self_path, self_path, "raw", (char *)NULL);
	return arg;
}

static int do_texec(const char *self)
{
	pthread_t t;
	char c;

	self_path = self;
	if (pipe(block_fd) != 0 ||
	    pthread_create(&t, NULL, exec_thread, NULL))
		return 55;
	/* Never written: the exec ends this thread. */
	if (read(block_fd[0], &c, 1) < 0)
		return 56;
	return 57;
}

static int do_pipe(const char *fd)
{
	char c;

	if (read(atoi(fd), &c, 1) != 1)
		return 60;
	mark(2, 0, 0);
	return 0;
}

static int do_attach(const char *r, const char *w)
{
	char c = 'r';

	if (write(atoi(w), &c, 1) != 1 || read(atoi(r), &c, 1) != 1)
		return 70;
	if (raw6(MARK, pattern[0], pattern[1], pattern[2], pattern[3],
		 pattern[4], pattern[5]) != -38)
		return 71;
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "raw"))
		return do_raw();
	if (!strcmp(mode, "mem"))
		return do_mem();
	if (!strcmp(mode, "threads"))
		return do_threads();
	if (!strcmp(mode, "fork"))
		return do_fork();
	if (!strcmp(mode, "exec"))
		return do_exec(argv[0]);
	if (!strcmp(mode, "texec"))
		return do_texec(argv[0]);
	if (!strcmp(mode, "pipe") && argc > 2)
		return do_pipe(argv[2]);
	if (!strcmp(mode, "attach") && argc > 3)
		return do_attach(argv[2], argv[3]);
	fprintf(stderr, "usage: %s raw|mem|threads|fork|exec|texec|pipe FD|attach R W\n",
		argv[0]);
	return 2;
}
