/* SPDX-License-Identifier: GPL-2.0-or-later */
/* demo.c -- the Quick start's target: a small program that exercises every
 * kind of address-space change maptap reports, slowly enough to read.
 *
 * It dlopens a library and closes it, maps a file, changes protections
 * (splitting a mapping), names anonymous memory (where the kernel has
 * CONFIG_ANON_VMA_NAME), grows and moves a mapping with mremap, forks a
 * child that maps memory of its own, and finally execs demo-child.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

static void step(const char *what)
{
	fprintf(stderr, "demo[%d]: %s\n", (int)getpid(), what);
}

static void library(void)
{
	double (*cosine)(double);
	void *h;

	step("dlopen libm.so.6, call cos(), dlclose");
	h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "demo: dlopen: %s\n", dlerror());
		return;
	}
	cosine = (double (*)(double))dlsym(h, "cos");
	if (cosine && cosine(0.0) != 1.0)
		fprintf(stderr, "demo: cos(0) != 1\n");
	dlclose(h);
}

static void file_mapping(void)
{
	int fd = open("/etc/os-release", O_RDONLY);
	void *p;

	step("map /etc/os-release read-only, then unmap it");
	if (fd < 0)
		return;
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p != MAP_FAILED)
		munmap(p, 4096);
}

static void protections(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *q;

	if (p == MAP_FAILED)
		return;
	step("map 4 anonymous pages, make the 2nd read-only, name them");
	memset(p, 1, 4 * pg);
	mprotect(p + pg, pg, PROT_READ);
	if (prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, p, 4 * pg, "demo-buffer"))
		fprintf(stderr, "demo: naming anonymous memory: %s (the kernel needs CONFIG_ANON_VMA_NAME)\n",
			strerror(errno));
	step("grow the mapping with mremap, then move it");
	q = mremap(p + 2 * pg, 2 * pg, 8 * pg, MREMAP_MAYMOVE);
	if (q != MAP_FAILED)
		munmap(q, 8 * pg);
	munmap(p, 2 * pg);
}

static void child_process(void)
{
	pid_t pid;

	step("fork a child that maps 1 MiB and exits");
	pid = fork();
	if (pid == 0) {
		void *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED)
			munmap(p, 1 << 20);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], child[PATH_MAX + 16];
	ssize_t n;
	char *slash;

	(void)argc;
	library();
	file_mapping();
	protections();
	child_process();
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	snprintf(child, sizeof(child), "%s/demo-child", self);
	step("exec demo-child");
	execl(child, "demo-child", (char *)NULL);
	fprintf(stderr, "demo: exec %s: %s\n", child, strerror(errno));
	(void)argv;
	return 1;
}
