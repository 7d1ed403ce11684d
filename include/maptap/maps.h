/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/maps.h -- reading a process's VMAs from the kernel.
 *
 * Two sources behind one interface: the PROCMAP_QUERY ioctl on an open
 * /proc/PID/maps (Linux 6.11+, include/uapi/linux/fs.h; one ioctl per VMA,
 * cost independent of how many VMAs the process has) and, where the kernel
 * lacks it, the text of /proc/PID/maps (fs/proc/task_mmu.c).  Both fill
 * struct maptap_vma identically, names byte for byte as maps prints them.
 */
#ifndef MAPTAP_MAPS_H
#define MAPTAP_MAPS_H

#include <sys/types.h>

#include <maptap/vma.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

/* Parse one line of /proc/PID/maps (LINE[0..LEN), without the newline)
 * into *OUT.  OUT->name points into LINE (not NUL-terminated there: use
 * name_len) and is "" with name_len 0 for a nameless VMA.  Accepts hex
 * fields of any width (addresses up to 16 digits, device major and minor
 * of any width, offsets up to 16 digits), a decimal inode, and any bytes in
 * the name, which is everything after the run of spaces that follows the
 * inode.  OUT->kind is set with maptap_vma_kind_of().
 * Returns 0, or -EINVAL when the line is not a maps line (OUT undefined).
 * Pure; thread-safe. */
int maptap_maps_parse_line(const char *line, size_t len, struct maptap_vma *out);

/* Parse a whole maps text TEXT[0..LEN) into BUF (appending; names copied;
 * maptap_vma_buf_finish() called).  Returns 0, -EINVAL on the first bad
 * line (BUF then holds the lines before it), or -ENOMEM. */
int maptap_maps_parse(const char *text, size_t len, struct maptap_vma_buf *buf);

/* Which source a reader uses. */
enum maptap_maps_source {
	/* PROCMAP_QUERY if the kernel has it, else text; with the ioctl,
	 * whole-space reads (maptap_maps_read_all()) still use the text,
	 * which costs 5-7x less per VMA than one ioctl per VMA
	 * (bench/model/README.md). */
	MAPTAP_MAPS_AUTO = 0,
	MAPTAP_MAPS_QUERY,	/* PROCMAP_QUERY only */
	MAPTAP_MAPS_TEXT,	/* /proc/PID/maps text only */
};

/* An open reader of one process's address space.  The kernel binds an open
 * /proc/PID/maps to the mm it had at open time, so a reader must be
 * reopened after the process execs.  Not thread-safe. */
struct maptap_maps_reader;

/* Open /proc/PID/maps for reading with SOURCE.  The caller must be allowed
 * to read it (ptrace access mode PTRACE_MODE_READ_FSCREDS; a tracer is).
 * Returns the reader in *OUT and 0, or -errno: -ENOENT (no such process),
 * -EACCES/-EPERM, -EOPNOTSUPP (SOURCE is MAPTAP_MAPS_QUERY and the kernel
 * lacks PROCMAP_QUERY), -ENOMEM. */
int maptap_maps_open(pid_t pid, enum maptap_maps_source source,
		     struct maptap_maps_reader **out);

/* The source READER really uses for ranges (never MAPTAP_MAPS_AUTO). */
enum maptap_maps_source maptap_maps_source_of(const struct maptap_maps_reader *reader);

/* Append to BUF every VMA that intersects [LO, HI) (bytes), in address
 * order, whole (not clipped).  Calls maptap_vma_buf_finish().  Returns 0,
 * -ESRCH when the mm is gone (the process exited or exec'd; the text
 * source sees an empty file then), also when it went away during the
 * read (the text, read in several reads, then ends early: it counts
 * only if the mm is still there after its end), -ENOMEM, or -errno of
 * the read or ioctl.  On error BUF holds the VMAs read before it.
 * Names: PROCMAP_QUERY's are escaped like the text's ('\n' as "\012");
 * the gate VMA ([vsyscall]), which the ioctl never returns, and paths
 * longer than PATH_MAX, which it cannot, come from the text.  Cost with
 * PROCMAP_QUERY: one ioctl per VMA returned (~2 us); with the text: a
 * read and parse of the whole file (docs/model.md). */
int maptap_maps_read_range(struct maptap_maps_reader *reader, uint64_t lo,
			   uint64_t hi, struct maptap_vma_buf *buf);

/* Append every VMA to BUF; as maptap_maps_read_range(0, UINT64_MAX). */
int maptap_maps_read_all(struct maptap_maps_reader *reader,
			 struct maptap_vma_buf *buf);

/* Close READER (NULL is allowed). */
void maptap_maps_close(struct maptap_maps_reader *reader);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
