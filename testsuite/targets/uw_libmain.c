/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uw_libmain.c -- calls into uw_lib.c's library: main -> u_lib_entry ->
 * u_lib_inner -> raise(SIGSTOP).
 *
 *   uw_libmain               linked against the library
 *   uw_libmain unlink PATH   the same, after deleting PATH (the library)
 *   uw_libmain memfd PATH    a copy of PATH in a memfd, dlopen'ed through
 *                            /proc/self/fd/N, so the code is in no file
 *                            that has a name
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int u_lib_entry(int x);

static int (*from_memfd(const char *path))(int)
{
	char buf[65536], name[64];
	int in = open(path, O_RDONLY), fd = memfd_create("u_lib", 0);
	ssize_t n;
	void *h;

	if (in < 0 || fd < 0)
		return NULL;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			return NULL;
	close(in);
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	return h ? (int (*)(int))dlsym(h, "u_lib_entry") : NULL;
}

int main(int argc, char **argv)
{
	int (*entry)(int) = u_lib_entry;

	if (argc == 3 && strcmp(argv[1], "unlink") == 0)
		unlink(argv[2]);
	if (argc == 3 && strcmp(argv[1], "memfd") == 0)
		entry = from_memfd(argv[2]);
	if (!entry)
		return 2;
	return entry(1) == 12345;
}
