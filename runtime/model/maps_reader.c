/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maps_reader.c -- read a process's VMAs: PROCMAP_QUERY or maps text.
 *
 * Both sources must fill struct maptap_vma identically (maptap/maps.h).
 * The kernel builds the name for both from get_vma_name() in
 * fs/proc/task_mmu.c, with two differences we undo here:
 *  - the text escapes '\n' in a file's path as "\012" (seq_path() with
 *    esc "\n", fs/seq_file.c mangle_path()); the ioctl returns the raw
 *    d_path(), so we escape it the same way;
 *  - the ioctl copies the name through a buffer of at most PATH_MAX bytes
 *    and fails with ENAMETOOLONG for a longer path, which the text still
 *    prints; for such a VMA we take the line from the text.
 * Giving the kernel a bigger buffer cannot help (it clamps to PATH_MAX),
 * so the name buffer is PATH_MAX bytes from the start.
 *
 * The ioctl also never returns the gate VMA ([vsyscall] on x86_64,
 * get_gate_vma()), which the text appends after the mm's own VMAs because
 * it is not in the mm's VMA tree.  The first query that runs past the last
 * VMA learns it from one text read and keeps it: it depends only on the
 * mm (vsyscall= mode, 64-bit or compat), which a reader is bound to.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <maptap/maps.h>

#include "procmap_query.h"

struct maptap_maps_reader {
	int fd;
	enum maptap_maps_source source;
	char *text;		/* last full text read */
	size_t text_cap;
	char name[PATH_MAX];	/* the ioctl's name buffer */
	char *esc;		/* the name with "\n" escaped */
	size_t esc_cap;
	bool full_by_text;	/* AUTO: whole-space reads use the text */
	int gate_known;		/* gate[] below is valid */
	struct maptap_vma_buf gate;	/* above user space: [vsyscall] */
};

static int mm_gone(int err)
{
	return err == ESRCH || err == ENOENT ? -ESRCH : -err;
}

/* 1 when the kernel knows PROCMAP_QUERY, 0 when not. */
static int probe_query(int fd)
{
	struct procmap_query q;

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA;
	if (ioctl(fd, PROCMAP_QUERY, &q) == 0)
		return 1;
	/* ENOENT (no VMA) and ESRCH (mm gone) come from the handler. */
	return errno != ENOTTY && errno != EINVAL;
}

int maptap_maps_open(pid_t pid, enum maptap_maps_source source,
		     struct maptap_maps_reader **out)
{
	struct maptap_maps_reader *r;
	char path[64];
	int has_query;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		int err = -errno;

		free(r);
		return err;
	}
	has_query = source == MAPTAP_MAPS_TEXT ? 0 : probe_query(r->fd);
	if (source == MAPTAP_MAPS_QUERY && !has_query) {
		maptap_maps_close(r);
		return -EOPNOTSUPP;
	}
	r->source = has_query ? MAPTAP_MAPS_QUERY : MAPTAP_MAPS_TEXT;
	/* One ioctl per VMA costs 5-7 times what parsing the text costs per
	 * VMA (bench/model/README.md), so a full read is cheaper as text. */
	r->full_by_text = source == MAPTAP_MAPS_AUTO;
	*out = r;
	return 0;
}

enum maptap_maps_source
maptap_maps_source_of(const struct maptap_maps_reader *reader)
{
	return reader->source;
}

void maptap_maps_close(struct maptap_maps_reader *reader)
{
	if (!reader)
		return;
	close(reader->fd);
	free(reader->text);
	free(reader->esc);
	maptap_vma_buf_free(&reader->gate);
	free(reader);
}

/* Whether the mm R reads is still there: the first line of the text
 * can be read.  The file's end and an mm gone look alike to read(2):
 * seq_file ends the text when m_start() cannot take the mm
 * (fs/proc/task_mmu.c, mmget_not_zero()). */
static bool mm_alive(struct maptap_maps_reader *r)
{
	char c;
	ssize_t got;

	do
		got = pread(r->fd, &c, 1, 0);
	while (got < 0 && errno == EINTR);
	return got == 1;
}

/* The whole text into reader->text; returns its length or -errno.
 * The text comes in several reads (one per buffer), each taking the mm
 * anew: when the last thread lets go of it between two, the file just
 * ends, and what was read is the low part of the address space only.
 * Taken for the whole, it made every VMA above the cut an unmap (--verify
 * saw "model rw-p, kernel none" from 0x7f.. up while a killed process's
 * threads left their exit stops).  So the end counts only if the mm
 * outlived it; it cannot come back, so then nothing was cut. */
static ssize_t read_text(struct maptap_maps_reader *r)
{
	size_t len = 0;
	ssize_t got;

	for (;;) {
		if (r->text_cap - len < 8192) {
			size_t ncap = r->text_cap ? r->text_cap * 2 : 65536;
			char *nt = realloc(r->text, ncap);

			if (!nt)
				return -ENOMEM;
			r->text = nt;
			r->text_cap = ncap;
		}
		/* Sequential offsets let seq_file continue where it
		 * stopped instead of walking the VMAs again. */
		got = pread(r->fd, r->text + len, r->text_cap - len,
			    (off_t)len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return mm_gone(errno);
		if (got == 0)
			break;
		len += (size_t)got;
	}
	/* A live mm always has VMAs; none means the mm is gone. */
	return len && mm_alive(r) ? (ssize_t)len : -ESRCH;
}

/* A VMA starting at START is about to be appended after BUF's entries
 * from index N0 on: drop those it overlaps, cut one it overlaps in part.
 * Neither the query walk nor a read of the text in chunks is atomic: a
 * VMA next to the last one read can grow over it meanwhile (a sibling
 * thread's mapping merged with it), and the walk then meets its new
 * extent, which starts before where it stands.
 * The later view wins; the read stays sorted, as maptap_mm_update()
 * requires (it refused the whole read, and the model lost a mapping a
 * munmap's re-read had found: "model none, kernel rw-p" in thread
 * storms, testsuite/system/mapstorm.py). */
static void drop_overlapped(struct maptap_vma_buf *buf, size_t n0,
			    uint64_t start)
{
	while (buf->n > n0 && buf->v[buf->n - 1].start >= start) {
		buf->n--;
		buf->names_len -= buf->v[buf->n].name_len + 1;
	}
	if (buf->n > n0 && buf->v[buf->n - 1].end > start)
		buf->v[buf->n - 1].end = start;
}

/* Call FN on every line of the text whose VMA intersects [LO, HI). */
static int text_range(struct maptap_maps_reader *r, uint64_t lo, uint64_t hi,
		      struct maptap_vma_buf *buf, uint64_t only_start)
{
	ssize_t len = read_text(r);
	size_t n0 = buf->n;
	const char *p, *end;

	if (len < 0)
		return (int)len;
	p = r->text;
	end = r->text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		struct maptap_vma v;
		int err;

		if (maptap_maps_parse_line(p, (size_t)(eol - p), &v))
			return -EIO;
		p = nl ? nl + 1 : end;
		if (v.start >= hi)
			break;
		if (v.end <= lo)
			continue;
		if (only_start != UINT64_MAX && v.start != only_start)
			continue;
		drop_overlapped(buf, n0, v.start);
		err = maptap_vma_buf_push(buf, &v);
		if (err)
			return err;
	}
	return 0;
}

/* NAME[0..LEN) with '\n' written as "\012", as seq_path() does. */
static int escape_name(struct maptap_maps_reader *r, const char *name,
		       size_t len, const char **out, size_t *out_len)
{
	size_t i, n = 0, nl = 0;

	for (i = 0; i < len; i++)
		nl += name[i] == '\n';
	if (!nl) {
		*out = name;
		*out_len = len;
		return 0;
	}
	if (r->esc_cap < len + 3 * nl) {
		char *ne = realloc(r->esc, len + 3 * nl);

		if (!ne)
			return -ENOMEM;
		r->esc = ne;
		r->esc_cap = len + 3 * nl;
	}
	for (i = 0; i < len; i++) {
		if (name[i] != '\n') {
			r->esc[n++] = name[i];
			continue;
		}
		memcpy(r->esc + n, "\\012", 4);
		n += 4;
	}
	*out = r->esc;
	*out_len = n;
	return 0;
}

static uint32_t perms_of(uint64_t f)
{
	return (f & PROCMAP_QUERY_VMA_READABLE ? MAPTAP_PERM_R : 0) |
	       (f & PROCMAP_QUERY_VMA_WRITABLE ? MAPTAP_PERM_W : 0) |
	       (f & PROCMAP_QUERY_VMA_EXECUTABLE ? MAPTAP_PERM_X : 0) |
	       (f & PROCMAP_QUERY_VMA_SHARED ? MAPTAP_PERM_S : 0);
}

static int query_to_vma(struct maptap_maps_reader *r,
			const struct procmap_query *q, struct maptap_vma *v)
{
	size_t name_len = q->vma_name_size ? q->vma_name_size - 1 : 0;
	int err;

	memset(v, 0, sizeof(*v));
	v->start = q->vma_start;
	v->end = q->vma_end;
	v->offset = q->vma_offset;
	v->inode = q->inode;
	v->dev_major = q->dev_major;
	v->dev_minor = q->dev_minor;
	v->perms = perms_of(q->vma_flags);
	err = escape_name(r, r->name, name_len, &v->name, &v->name_len);
	if (err)
		return err;
	v->kind = maptap_vma_kind_of(v->name, v->name_len, v->inode);
	return 0;
}

static int query_one(struct maptap_maps_reader *r, uint64_t addr,
		     bool with_name, struct procmap_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA;
	q->query_addr = addr;
	if (with_name) {
		q->vma_name_addr = (__u64)(uintptr_t)r->name;
		q->vma_name_size = sizeof(r->name);
	}
	return ioctl(r->fd, PROCMAP_QUERY, q) ? -errno : 0;
}

/* The VMA at or after ADDR has a path longer than PATH_MAX: get its
 * extent from the ioctl and the whole line from the text. */
static int query_long_name(struct maptap_maps_reader *r, uint64_t addr,
			   struct maptap_vma_buf *buf, size_t n0,
			   uint64_t *next)
{
	struct procmap_query q;
	int err = query_one(r, addr, false, &q);

	if (err)
		return err == -ENOENT ? err : mm_gone(-err);
	*next = q.vma_end;
	drop_overlapped(buf, n0, q.vma_start);
	return text_range(r, q.vma_start, q.vma_end, buf, q.vma_start);
}

/* Append the gate VMAs that intersect [LO, HI).  They live in the top
 * half of the address space, above every VMA of the mm. */
static int gate_range(struct maptap_maps_reader *r, uint64_t lo, uint64_t hi,
		      struct maptap_vma_buf *buf)
{
	size_t i;
	int err;

	if (!r->gate_known) {
		err = text_range(r, 1ULL << 63, UINT64_MAX, &r->gate,
				 UINT64_MAX);
		if (err)
			return err;
		maptap_vma_buf_finish(&r->gate);
		r->gate_known = 1;
	}
	for (i = 0; i < r->gate.n; i++) {
		if (r->gate.v[i].end <= lo || r->gate.v[i].start >= hi)
			continue;
		err = maptap_vma_buf_push(buf, &r->gate.v[i]);
		if (err)
			return err;
	}
	return 0;
}

static int query_range(struct maptap_maps_reader *r, uint64_t lo, uint64_t hi,
		       struct maptap_vma_buf *buf)
{
	uint64_t addr = lo;
	struct procmap_query q;
	struct maptap_vma v;
	size_t n0 = buf->n;
	int err;

	while (addr < hi) {
		uint64_t next;

		err = query_one(r, addr, true, &q);
		if (err == -ENAMETOOLONG) {
			err = query_long_name(r, addr, buf, n0, &next);
		} else if (!err && q.vma_start < hi) {
			next = q.vma_end;
			err = query_to_vma(r, &q, &v);
			if (!err) {
				drop_overlapped(buf, n0, v.start);
				err = maptap_vma_buf_push(buf, &v);
			}
		} else if (!err) {
			break;
		}
		if (err == -ENOENT)
			return gate_range(r, addr, hi, buf);
		if (err)
			return err == -ENOMEM ? err : mm_gone(-err);
		if (next <= addr)
			break;
		addr = next;
	}
	return 0;
}

int maptap_maps_read_range(struct maptap_maps_reader *reader, uint64_t lo,
			   uint64_t hi, struct maptap_vma_buf *buf)
{
	int err;

	bool whole = lo == 0 && hi == UINT64_MAX;

	if (reader->source == MAPTAP_MAPS_QUERY &&
	    !(whole && reader->full_by_text))
		err = query_range(reader, lo, hi, buf);
	else
		err = text_range(reader, lo, hi, buf, UINT64_MAX);
	maptap_vma_buf_finish(buf);
	return err;
}

int maptap_maps_read_all(struct maptap_maps_reader *reader,
			 struct maptap_vma_buf *buf)
{
	return maptap_maps_read_range(reader, 0, UINT64_MAX, buf);
}
