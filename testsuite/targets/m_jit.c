/* SPDX-License-Identifier: GPL-2.0-or-later */
/* m_jit.c -- target for the perf map test: "JIT" two functions into
 * executable anonymous memory, describe them in /tmp/perf-PID.map the way
 * JITs do for perf (tools/perf/Documentation/jit-interface.txt), print
 * "jit NAME ADDR SIZE" for each and "ready", and wait for a line on
 * stdin.  A second line describing a third function is appended after
 * "ready" is acknowledged with "more", to test that a grown map is
 * re-read. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void describe(FILE *map, const char *name, unsigned char *at,
		     size_t size)
{
	fprintf(map, "%lx %zx %s\n", (unsigned long)at, size, name);
	fflush(map);
	printf("jit %s %p %zu\n", name, (void *)at, size);
}

int main(void)
{
	unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64], line[16];
	FILE *map;

	if (code == MAP_FAILED)
		return 1;
	memset(code, 0xc3, 4096);	/* ret */
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(path, "w");
	if (!map)
		return 1;
	describe(map, "jit_first", code, 32);
	describe(map, "jit::second(int)", code + 64, 48);
	printf("ready\n");
	fflush(stdout);
	if (fgets(line, sizeof(line), stdin) && strncmp(line, "more", 4) == 0) {
		describe(map, "jit_third", code + 256, 16);
		printf("ready\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			line[0] = 0;
	}
	fclose(map);
	unlink(path);
	return 0;
}
