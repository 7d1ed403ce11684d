/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/syscalls.h -- what maptap knows about system calls, as data.
 *
 * One table per architecture (runtime/tracer/syscalls_x86_64.h, the only one so
 * far) names each call and its class: whether it can change the address
 * space (and how to find the range it touched), replaces the program
 * image, or is ptrace itself.  The tracer consults the class; it never
 * switches on call numbers.
 */
#ifndef MAPTAP_SYSCALLS_H
#define MAPTAP_SYSCALLS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

/* What the tracer must do when a call of this class returns. */
enum maptap_syscall_class {
	MAPTAP_SC_NONE = 0,	/* nothing: not stopped on in launch mode */
	MAPTAP_SC_MAP,		/* may change the address space: refresh a range */
	MAPTAP_SC_EXEC,		/* execve/execveat: rebuilt at the exec event */
	MAPTAP_SC_PTRACE,	/* ptrace: may need maptap to let go of a tracee */
	MAPTAP_SC_CLONE,	/* clone: flags in the first argument; with
				 * CLONE_UNTRACED the tracer must intervene */
	MAPTAP_SC_CLONE3,	/* clone3: flags in the first word of the
				 * struct clone_args the first argument points to */
};

/* How to compute the address range a MAPTAP_SC_MAP call touched from its
 * entry arguments and return value (see maptap_syscall_range()). */
enum maptap_syscall_range {
	MAPTAP_RANGE_NONE = 0,
	MAPTAP_RANGE_ADDR_LEN,	/* [arg0, arg0 + arg1): mprotect, madvise, ... */
	MAPTAP_RANGE_UNMAP,	/* [arg0, arg0 + arg1), known to be unmapped
				 * when the call succeeded: munmap */
	MAPTAP_RANGE_MMAP,	/* [ret, ret + arg1) or, on failure with
				 * MAP_FIXED, [arg0, arg0 + arg1) */
	MAPTAP_RANGE_RET_LEN,	/* [ret, ret + arg1): map_shadow_stack */
	MAPTAP_RANGE_MREMAP,	/* old [arg0, arg0 + arg1), new [ret, ret + arg2) */
	MAPTAP_RANGE_BRK,	/* between the old and the new program break */
	MAPTAP_RANGE_PRCTL,	/* prctl(PR_SET_VMA, attr, addr, len, ...) */
	MAPTAP_RANGE_FULL,	/* unknown extent: re-read the whole mm */
};

/* One row of the table. */
struct maptap_syscall {
	int nr;				/* the call number on this arch */
	const char *name;		/* "mmap", as in syscall_64.tbl */
	enum maptap_syscall_class cls;
	enum maptap_syscall_range range;
};

/* The row for call NR on the AUDIT_ARCH_* architecture ARCH (the value
 * PTRACE_GET_SYSCALL_INFO reports, <linux/audit.h>), or NULL when NR is
 * unknown or ARCH is not supported (only AUDIT_ARCH_X86_64 so far).
 * O(1); the table is static: thread-safe. */
const struct maptap_syscall *maptap_syscall_lookup(uint32_t arch, int nr);

/* The row for call NAME on ARCH, or NULL.  O(n); thread-safe. */
const struct maptap_syscall *maptap_syscall_by_name(uint32_t arch,
						    const char *name);

/* The whole table for ARCH: its rows in *N (0 and NULL if unsupported). */
const struct maptap_syscall *maptap_syscall_table(uint32_t arch, unsigned *n);

/* The AUDIT_ARCH_* value of the architecture maptap was built for. */
uint32_t maptap_syscall_native_arch(void);

/* The range in bytes, page aligned, [*LO, *HI) that a MAPTAP_SC_MAP call
 * SC touched, from its six entry arguments ARGS and its return value RET
 * (a negative errno on failure, as the kernel returns it).  Returns 1 when
 * there is a range to refresh, 2 when the whole mm must be re-read, 0 when
 * nothing changed (e.g. a failed munmap, a prctl that is not PR_SET_VMA).
 * For MAPTAP_RANGE_MREMAP the new range is in [*LO2, *HI2) (else they are
 * equal); for MAPTAP_RANGE_BRK, *LO and *HI come back as 0 and 0 with
 * return 1 and the caller supplies the old break (the brk call's argument
 * does not say where the heap began).  Rules from the man pages mmap(2),
 * mremap(2), brk(2), prctl(2).  Pure; thread-safe. */
int maptap_syscall_range(const struct maptap_syscall *sc,
			 const uint64_t args[6], int64_t ret,
			 uint64_t *lo, uint64_t *hi,
			 uint64_t *lo2, uint64_t *hi2);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
