/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_syscalls.c -- the syscall table and the range rules. */
#include <config.h>

#include <maptap/syscalls.h>

#include <linux/audit.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "../lib/tap.h"

#define PR_SET_VMA 0x53564d41

static const struct maptap_syscall *by_name(const char *name)
{
	return maptap_syscall_by_name(AUDIT_ARCH_X86_64, name);
}

static void test_table(void)
{
	static const char *const mapping[] = {
		"mmap", "munmap", "mprotect", "pkey_mprotect", "mremap", "brk",
		"shmat", "shmdt", "remap_file_pages", "madvise", "mlock",
		"mlock2", "munlock", "mlockall", "mbind", "mseal", "io_setup",
		"io_destroy", "map_shadow_stack", "prctl",
	};
	const struct maptap_syscall *t;
	unsigned i, n;

	t = maptap_syscall_table(AUDIT_ARCH_X86_64, &n);
	tap_ok(t && n > 380, "x86_64 table has every call (%u rows)", n);
	for (i = 1; i < n; i++)
		if (t[i].nr <= t[i - 1].nr)
			break;
	tap_ok(i == n, "rows sorted by number, no duplicates");
	for (i = 0; i < sizeof(mapping) / sizeof(mapping[0]); i++) {
		const struct maptap_syscall *sc = by_name(mapping[i]);

		tap_ok(sc && sc->cls == MAPTAP_SC_MAP, "%s changes the address space",
		       mapping[i]);
	}
	tap_ok(by_name("execve")->cls == MAPTAP_SC_EXEC, "execve is exec");
	tap_ok(by_name("execveat")->cls == MAPTAP_SC_EXEC, "execveat is exec");
	tap_ok(by_name("ptrace")->cls == MAPTAP_SC_PTRACE, "ptrace is ptrace");
	tap_ok(by_name("read")->cls == MAPTAP_SC_NONE, "read is not traced");
	tap_ok(maptap_syscall_lookup(AUDIT_ARCH_X86_64, SYS_mmap) == by_name("mmap"),
	       "lookup by number agrees with the name");
	tap_ok(maptap_syscall_lookup(AUDIT_ARCH_X86_64, 462) == by_name("mseal"),
	       "mseal is 462 (newer than the system headers)");
	tap_ok(maptap_syscall_lookup(AUDIT_ARCH_X86_64, -1) == NULL &&
	       maptap_syscall_lookup(AUDIT_ARCH_X86_64, 100000) == NULL,
	       "out-of-range numbers are unknown");
	tap_ok(maptap_syscall_lookup(AUDIT_ARCH_I386, SYS_mmap) == NULL,
	       "other ABIs are not decoded");
}

static int range(const char *name, uint64_t a0, uint64_t a1, uint64_t a2,
		 uint64_t a3, int64_t ret, uint64_t r[4])
{
	uint64_t args[6] = { a0, a1, a2, a3, 0, 0 };

	return maptap_syscall_range(by_name(name), args, ret, &r[0], &r[1],
				    &r[2], &r[3]);
}

static void test_ranges(void)
{
	uint64_t r[4];
	int k;

	k = range("mprotect", 0x1234, 0x1000, 1, 0, 0, r);
	tap_ok(k == 1 && r[0] == 0x1000 && r[1] == 0x3000,
	       "mprotect range is page aligned outward");
	k = range("mprotect", 0x1000, 0x1000, 1, 0, -12, r);
	tap_ok(k == 1, "a failed mprotect is still refreshed (it can fail half way)");
	k = range("munmap", 0x1000, 0x1000, 0, 0, -22, r);
	tap_ok(k == 0, "a failed munmap changed nothing");
	k = range("munmap", 0x5000, 1, 0, 0, 0, r);
	tap_ok(k == 1 && r[0] == 0x5000 && r[1] == 0x6000, "munmap of 1 byte is a page");
	k = range("mmap", 0, 0x1800, 3, MAP_PRIVATE | MAP_ANONYMOUS, 0x7000, r);
	tap_ok(k == 1 && r[0] == 0x7000 && r[1] == 0x9000, "mmap range from its result");
	k = range("mmap", 0, 0x1000, 3, MAP_PRIVATE | MAP_ANONYMOUS, -12, r);
	tap_ok(k == 0, "a failed mmap without MAP_FIXED changed nothing");
	k = range("mmap", 0x4000, 0x1000, 3, MAP_PRIVATE | MAP_FIXED, -12, r);
	tap_ok(k == 1 && r[0] == 0x4000 && r[1] == 0x5000,
	       "a failed MAP_FIXED mmap refreshes its range (it may have unmapped)");
	k = range("mremap", 0x10000, 0x2000, 0x4000, 1, 0x10000, r);
	tap_ok(k == 1 && r[0] == 0x10000 && r[1] == 0x14000 && r[2] == r[3],
	       "mremap in place: one range covering the larger size");
	k = range("mremap", 0x10000, 0x2000, 0x4000, 1, 0x80000, r);
	tap_ok(k == 1 && r[0] == 0x10000 && r[1] == 0x12000 &&
	       r[2] == 0x80000 && r[3] == 0x84000, "mremap move: old and new range");
	k = range("prctl", PR_SET_VMA, 0, 0x3000, 0x2000, 0, r);
	tap_ok(k == 1 && r[0] == 0x3000 && r[1] == 0x5000, "prctl(PR_SET_VMA) range");
	k = range("prctl", 15 /* PR_SET_NAME */, 0, 0, 0, 0, r);
	tap_ok(k == 0, "other prctl options change nothing");
	k = range("shmat", 1, 0, 0, 0, 0x1000, r);
	tap_ok(k == 2, "shmat re-reads the whole mm");
	k = range("munmap", UINT64_MAX - 0x1000, 0x10000, 0, 0, 0, r);
	tap_ok(k == 1 && r[1] > r[0], "a length past the top saturates, never wraps");
	k = range("mprotect", 0x1000, UINT64_MAX, 0, 0, -22, r);
	tap_ok(k == 1 && r[1] > r[0], "a huge length saturates");
}

int main(void)
{
	test_table();
	test_ranges();
	return tap_done();
}
