/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* syscalls.c -- lookups in the per-architecture system call tables and the
 * range rules of the address-space changing calls.
 */
#include <maptap/syscalls.h>

#include <linux/audit.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41	/* <linux/prctl.h>, Linux 5.17 */
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* x86_64 base pages are 4 KiB; every range the kernel acts on is aligned to
 * them (mm/mmap.c, mm/mprotect.c round len up with PAGE_ALIGN). */
#define PAGE_SIZE_X86_64 4096ULL

static const struct maptap_syscall x86_64_table[] = {
#define SYSCALL(nr, name, cls, range) \
	{ nr, #name, MAPTAP_SC_##cls, MAPTAP_##range },
#include "syscalls_x86_64.h"
#undef SYSCALL
};

static const struct maptap_syscall *x86_64_lookup(int nr)
{
	size_t lo = 0, hi = sizeof(x86_64_table) / sizeof(x86_64_table[0]);

	/* The rows are sorted by number: binary search, no mutable index. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (x86_64_table[mid].nr == nr)
			return &x86_64_table[mid];
		if (x86_64_table[mid].nr < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct maptap_syscall *maptap_syscall_table(uint32_t arch, unsigned *n)
{
	if (arch != AUDIT_ARCH_X86_64) {
		*n = 0;
		return NULL;
	}
	*n = sizeof(x86_64_table) / sizeof(x86_64_table[0]);
	return x86_64_table;
}

const struct maptap_syscall *maptap_syscall_lookup(uint32_t arch, int nr)
{
	if (arch != AUDIT_ARCH_X86_64)
		return NULL;
	return x86_64_lookup(nr);
}

const struct maptap_syscall *maptap_syscall_by_name(uint32_t arch,
						    const char *name)
{
	unsigned i, n;
	const struct maptap_syscall *t = maptap_syscall_table(arch, &n);

	for (i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}

uint32_t maptap_syscall_native_arch(void)
{
	return AUDIT_ARCH_X86_64;
}

static uint64_t page_down(uint64_t a)
{
	return a & ~(PAGE_SIZE_X86_64 - 1);
}

/* Round up, saturating at the top of the address space instead of
 * wrapping: a bogus length from the target must not make an empty range. */
static uint64_t page_up(uint64_t a)
{
	if (a > UINT64_MAX - (PAGE_SIZE_X86_64 - 1))
		return page_down(UINT64_MAX);
	return page_down(a + PAGE_SIZE_X86_64 - 1);
}

static uint64_t end_of(uint64_t start, uint64_t len)
{
	if (len > UINT64_MAX - start)
		return page_down(UINT64_MAX);
	return page_up(start + len);
}

static int set_range(uint64_t start, uint64_t len, uint64_t *lo, uint64_t *hi)
{
	*lo = page_down(start);
	*hi = end_of(start, len);
	return *hi > *lo;
}

int maptap_syscall_range(const struct maptap_syscall *sc,
			 const uint64_t args[6], int64_t ret,
			 uint64_t *lo, uint64_t *hi,
			 uint64_t *lo2, uint64_t *hi2)
{
	bool failed = ret < 0 && ret >= -4095;

	*lo = *hi = *lo2 = *hi2 = 0;
	switch (sc->range) {
	case MAPTAP_RANGE_NONE:
		return 0;
	case MAPTAP_RANGE_FULL:
		return 2;
	case MAPTAP_RANGE_ADDR_LEN:
		/* mprotect and mlock can fail half way (ENOMEM after the first
		 * VMAs changed): refresh even on failure. */
		return set_range(args[0], args[1], lo, hi);
	case MAPTAP_RANGE_UNMAP:
		if (failed)
			return 0;	/* munmap(2) fails before changing anything */
		return set_range(args[0], args[1], lo, hi);
	case MAPTAP_RANGE_MMAP:
		if (!failed)
			return set_range((uint64_t)ret, args[1], lo, hi);
		/* mmap(2): a failed MAP_FIXED may already have unmapped the
		 * old range. */
		if (args[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE))
			return set_range(args[0], args[1], lo, hi);
		return 0;
	case MAPTAP_RANGE_RET_LEN:
		if (failed)
			return 0;
		return set_range((uint64_t)ret, args[1], lo, hi);
	case MAPTAP_RANGE_MREMAP:
		set_range(args[0], args[1], lo, hi);
		if (failed)
			return *hi > *lo;
		/* In place (same address): one range covering both sizes. */
		if ((uint64_t)ret == page_down(args[0])) {
			*hi = end_of(args[0], args[1] > args[2] ? args[1] : args[2]);
			return 1;
		}
		set_range((uint64_t)ret, args[2], lo2, hi2);
		return 1;
	case MAPTAP_RANGE_BRK:
		return 1;
	case MAPTAP_RANGE_PRCTL:
		if (args[0] != PR_SET_VMA)
			return 0;
		return set_range(args[2], args[3], lo, hi);
	}
	return 0;
}
