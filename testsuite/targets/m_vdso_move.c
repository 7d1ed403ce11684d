/* SPDX-License-Identifier: GPL-2.0-or-later */
/* m_vdso_move.c -- target of the module tests: moves its [vdso] with
 * mremap(2) to a new address, as CRIU does on restore (the kernel allows
 * moving the whole vdso: arch/x86/entry/vdso/vma.c vdso_mremap), maps
 * nameless executable memory that is not ELF (as a JIT would) where it
 * was, then prints "vdso OLD NEW SIZE AUXV" (AUXV: AT_SYSINFO_EHDR, which
 * still says OLD) and "ready", and waits for a line on stdin.  After the move
 * the C library's vdso pointers are stale, so nothing here may call
 * clock_gettime or gettimeofday any more. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>

static int vdso_range(unsigned long *lo, unsigned long *hi)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = -1;

	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%lx-%lx", lo, hi) == 2)
			found = 0;
	fclose(f);
	return found;
}

int main(void)
{
	unsigned long lo, hi, size;
	void *to, *got;
	char line[16];

	if (vdso_range(&lo, &hi) != 0)
		return 1;
	size = hi - lo;
	/* A free place for it: reserve, then move over the reservation. */
	to = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (to == MAP_FAILED)
		return 1;
	got = mremap((void *)lo, size, size, MREMAP_MAYMOVE | MREMAP_FIXED,
		     to);
	if (got != to) {
		perror("m_vdso_move: mremap");
		return 1;
	}
	/* Code that is not the vdso at the stale AT_SYSINFO_EHDR. */
	to = mmap((void *)lo, size, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (to != (void *)lo)
		return 1;
	memset(to, 0xc3, size);
	if (mprotect(to, size, PROT_READ | PROT_EXEC) != 0)
		return 1;
	printf("vdso %#lx %#lx %#lx %#lx\n", lo, (unsigned long)got, size,
	       getauxval(AT_SYSINFO_EHDR));
	printf("ready\n");
	fflush(stdout);
	return fgets(line, sizeof(line), stdin) ? 0 : 0;
}
