/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/vma.h -- one virtual memory area (VMA) as the kernel reports it.
 *
 * The fields mirror a line of /proc/PID/maps (fs/proc/task_mmu.c,
 * show_map_vma()) and struct procmap_query (include/uapi/linux/fs.h,
 * Linux 6.11+).  Both sources fill the same struct, so the rest of maptap
 * never knows which one was used.
 */
#ifndef MAPTAP_VMA_H
#define MAPTAP_VMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

/* Permission bits of a VMA, as the four letters "rwxp"/"rwxs" of maps. */
enum maptap_perm {
	MAPTAP_PERM_R = 1 << 0,		/* VM_READ */
	MAPTAP_PERM_W = 1 << 1,		/* VM_WRITE */
	MAPTAP_PERM_X = 1 << 2,		/* VM_EXEC */
	MAPTAP_PERM_S = 1 << 3,		/* VM_MAYSHARE: 's' instead of 'p' */
};

/* What a VMA is, derived from its name and inode (fs/proc/task_mmu.c,
 * get_vma_name()).  Only a hint for display and for the module layer: the
 * address-space function compares dev, inode, offset and name, never kind.
 */
enum maptap_vma_kind {
	MAPTAP_VMA_ANON = 0,	/* anonymous, no name */
	MAPTAP_VMA_FILE,	/* file-backed: inode != 0 (incl. memfd, /dev/zero shared) */
	MAPTAP_VMA_HEAP,	/* [heap] */
	MAPTAP_VMA_STACK,	/* [stack] (and [stack:TID] of old kernels) */
	MAPTAP_VMA_VDSO,	/* [vdso] */
	MAPTAP_VMA_VVAR,	/* [vvar], [vvar_vclock] */
	MAPTAP_VMA_VSYSCALL,	/* [vsyscall] */
	MAPTAP_VMA_ANON_NAMED,	/* [anon:NAME] (prctl PR_SET_VMA_ANON_NAME) */
	MAPTAP_VMA_SHMEM_NAMED,	/* [anon_shmem:NAME] */
	MAPTAP_VMA_SPECIAL,	/* any other "[...]" name, e.g. [uprobes] */
};

/* One VMA.  Addresses and offset are in bytes; [start, end) is half open
 * and page aligned.  NAME points into storage owned by whoever filled the
 * struct (a struct maptap_vma_buf, or a model); it is the text after the
 * inode column of /proc/PID/maps byte for byte (so a newline in a path is
 * the four bytes "\012", and " (deleted)" is kept as part of the name),
 * NUL-terminated, and NAME_LEN excludes the NUL.  NAME is "" (never NULL)
 * for an anonymous VMA without a name.
 */
struct maptap_vma {
	uint64_t start;		/* vm_start, bytes */
	uint64_t end;		/* vm_end, bytes */
	uint64_t offset;	/* vm_pgoff << PAGE_SHIFT, bytes; 0 when no file */
	uint64_t inode;		/* 0 when no file */
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t perms;		/* enum maptap_perm bits */
	uint32_t kind;		/* enum maptap_vma_kind */
	const char *name;
	size_t name_len;
};

/* True when V maps a file (inode != 0), so that its backing at an address
 * A inside it is (dev, inode, offset + (A - start)).  Pure; thread-safe. */
static inline bool maptap_vma_has_file(const struct maptap_vma *v)
{
	return v->inode != 0;
}

/* Classify NAME (as in /proc/PID/maps) with INODE into an enum
 * maptap_vma_kind.  "[anon_shmem:...]" is MAPTAP_VMA_SHMEM_NAMED even
 * though such a VMA has an inode (a path never starts with '['); any other
 * VMA with an inode is MAPTAP_VMA_FILE.  Pure; thread-safe. */
enum maptap_vma_kind maptap_vma_kind_of(const char *name, size_t name_len,
					uint64_t inode);

/* Write the permission letters of PERMS ("r-xp") into OUT, which must hold
 * 5 bytes; returns OUT.  Pure; thread-safe. */
char *maptap_perms_str(uint32_t perms, char out[5]);

/* Bytes maptap_dev_str() needs: two 8-digit numbers, ':' and NUL. */
#define MAPTAP_DEV_STR_MAX 18

/* Write "MAJ:MIN" in lower-case hex, each at least two digits, into OUT
 * (MAPTAP_DEV_STR_MAX bytes) and return OUT: what /proc/PID/maps shows
 * ("%02x:%02x", show_vma_header_prefix() in fs/proc/task_mmu.c), without
 * the cost of a printf.  Pure; thread-safe. */
char *maptap_dev_str(uint32_t major, uint32_t minor,
		     char out[MAPTAP_DEV_STR_MAX]);

/* A growable array of VMAs that owns their names.  Not thread-safe; one
 * owner at a time.  Zero-initialize, fill with maptap_vma_buf_push() or the
 * maps readers, release with maptap_vma_buf_free().
 */
struct maptap_vma_buf {
	struct maptap_vma *v;	/* V[0..N) */
	size_t n;
	size_t cap;
	char *names;		/* arena holding every V[i].name */
	size_t names_len;
	size_t names_cap;
};

/* Append a copy of *V (its name copied into the arena) to BUF.  Returns 0,
 * or -ENOMEM (BUF unchanged).  Names of earlier entries stay valid: they
 * are stored as offsets until maptap_vma_buf_finish(). */
int maptap_vma_buf_push(struct maptap_vma_buf *buf, const struct maptap_vma *v);

/* Make every V[i].name point into the arena.  Call after the last push and
 * before reading names; pushes after it need another finish.  */
void maptap_vma_buf_finish(struct maptap_vma_buf *buf);

/* Empty BUF, keeping its memory for reuse. */
void maptap_vma_buf_clear(struct maptap_vma_buf *buf);

/* Free BUF's memory and zero it. */
void maptap_vma_buf_free(struct maptap_vma_buf *buf);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
