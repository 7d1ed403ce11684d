/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* procmap_query.h -- private: the PROCMAP_QUERY ioctl of /proc/PID/maps.
 *
 * Linux 6.11 added it (include/uapi/linux/fs.h, fs/proc/task_mmu.c
 * do_procmap_query()); Debian 12's linux-libc-dev predates it, so the ABI
 * is restated here from the uapi header.  The struct is extensible: the
 * kernel reads SIZE and accepts any size at least up to query_addr.
 */
#ifndef MAPTAP_PROCMAP_QUERY_H
#define MAPTAP_PROCMAP_QUERY_H

#include <linux/ioctl.h>
#include <linux/types.h>

#ifndef PROCMAP_QUERY

enum procmap_query_flags {
	PROCMAP_QUERY_VMA_READABLE = 0x01,
	PROCMAP_QUERY_VMA_WRITABLE = 0x02,
	PROCMAP_QUERY_VMA_EXECUTABLE = 0x04,
	PROCMAP_QUERY_VMA_SHARED = 0x08,
	/* return the VMA covering query_addr or, if none, the next one */
	PROCMAP_QUERY_COVERING_OR_NEXT_VMA = 0x10,
	PROCMAP_QUERY_FILE_BACKED_VMA = 0x20,
};

struct procmap_query {
	__u64 size;		/* in: sizeof(struct procmap_query) */
	__u64 query_flags;	/* in */
	__u64 query_addr;	/* in */
	__u64 vma_start;	/* out */
	__u64 vma_end;		/* out */
	__u64 vma_flags;	/* out: PROCMAP_QUERY_VMA_* */
	__u64 vma_page_size;	/* out */
	__u64 vma_offset;	/* out: bytes; 0 without a file */
	__u64 inode;		/* out */
	__u32 dev_major;	/* out */
	__u32 dev_minor;	/* out */
	__u32 vma_name_size;	/* in/out: buffer size, then length + NUL */
	__u32 build_id_size;	/* in/out */
	__u64 vma_name_addr;	/* in */
	__u64 build_id_addr;	/* in */
};

#define PROCMAP_QUERY _IOWR('f', 17, struct procmap_query)

#endif
#endif
