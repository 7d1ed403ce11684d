/* SPDX-License-Identifier: GPL-2.0-or-later */
/* m_main.c -- target of the module tests.  Prints the addresses of its
 * own symbols, of the symbols of the libraries it is told to load, and the
 * load bias of every object as the dynamic linker sees it
 * (dl_iterate_phdr), then "ready", and waits for a line on stdin.
 *
 * Arguments, each MODE:PATH, loading PATH as library "libN" (N = 1, 2..):
 *   dlopen:PATH   dlopen(3) it
 *   deleted:PATH  dlopen it, then unlink the file
 *   memfd:PATH    copy it into a memfd and dlopen /proc/self/fd/FD
 *   close:PATH    dlopen it, print its symbols, dlclose it
 * Output lines: "sym TAG NAME ADDR", "bias ADDR NAME", "vdso ADDR".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int m_data = 7;
const char m_rodata[] = "module test rodata";
char m_bss_a[64] __attribute__((aligned(64)));
char m_bss_b[64] __attribute__((aligned(64)));
char m_bss_big[3 * 4096];

int m_func(int x)
{
	return x + m_data + m_bss_a[x & 63] + m_bss_b[x & 63] + m_bss_big[x];
}

static int print_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	printf("bias %#lx %s\n", (unsigned long)info->dlpi_addr,
	       info->dlpi_name[0] ? info->dlpi_name : "-");
	return 0;
}

static void print_lib(void *h, const char *tag)
{
	static const char *const names[] = {
		"m_lib_func", "m_lib_data", "m_lib_bss",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		printf("sym %s %s %p\n", tag, names[i], dlsym(h, names[i]));
}

static void *open_memfd(const char *path)
{
	char buf[65536], fdpath[64];
	int in = open(path, O_RDONLY), fd = memfd_create("m_lib", 0);
	ssize_t n;

	if (in < 0 || fd < 0)
		return NULL;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			return NULL;
	close(in);
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	return dlopen(fdpath, RTLD_NOW | RTLD_LOCAL);
}

static int load(const char *arg, int n)
{
	const char *path = strchr(arg, ':');
	char tag[16];
	void *h;

	if (!path)
		return -1;
	path++;
	snprintf(tag, sizeof(tag), "lib%d", n);
	if (strncmp(arg, "memfd:", 6) == 0)
		h = open_memfd(path);
	else
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "m_main: %s: %s\n", path, dlerror());
		return -1;
	}
	print_lib(h, tag);
	if (strncmp(arg, "deleted:", 8) == 0)
		unlink(path);
	if (strncmp(arg, "close:", 6) == 0)
		dlclose(h);
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec ts;
	char line[16];
	int i;

	for (i = 1; i < argc; i++)
		if (load(argv[i], i) != 0)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("sym main m_func %p\n", (void *)m_func);
	printf("sym main m_data %p\n", (void *)&m_data);
	printf("sym main m_rodata %p\n", (void *)m_rodata);
	printf("sym main m_bss_a %p\n", (void *)m_bss_a);
	printf("sym main m_bss_b %p\n", (void *)m_bss_b);
	printf("sym main m_bss_big %p\n", (void *)m_bss_big);
	printf("vdso %#lx\n", getauxval(AT_SYSINFO_EHDR));
	dl_iterate_phdr(print_bias, NULL);
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return m_func(line[0] & 7) == 0;
}
