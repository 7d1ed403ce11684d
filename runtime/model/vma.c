/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* vma.c -- VMA kinds, permission strings, and the VMA buffer.
 *
 * The buffer keeps every name in one arena so that a full read of a
 * process with 60,000 VMAs costs two allocations that grow geometrically,
 * not 60,000.  While pushing, the arena may move, so names are kept as
 * offsets and turned into pointers once by maptap_vma_buf_finish().
 */
#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <maptap/vma.h>

#include "mm_priv.h"

static bool name_is(const char *name, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	return len == n && memcmp(name, lit, n) == 0;
}

static bool name_starts(const char *name, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(name, prefix, n) == 0;
}

/* The bracketed names come from fs/proc/task_mmu.c get_vma_name(),
 * arch/x86/entry/vdso/vma.c and mm/ (anon_vma_name). */
enum maptap_vma_kind maptap_vma_kind_of(const char *name, size_t name_len,
					uint64_t inode)
{
	/* Named shared anonymous memory is a shmem file with an inode, but
	 * its bracketed name says more than "file"; a path never starts
	 * with '['. */
	if (name_starts(name, name_len, "[anon_shmem:"))
		return MAPTAP_VMA_SHMEM_NAMED;
	if (inode != 0)
		return MAPTAP_VMA_FILE;
	if (name_len == 0)
		return MAPTAP_VMA_ANON;
	if (name[0] != '[' || name[name_len - 1] != ']')
		return MAPTAP_VMA_SPECIAL;
	if (name_is(name, name_len, "[heap]"))
		return MAPTAP_VMA_HEAP;
	if (name_is(name, name_len, "[stack]") ||
	    name_starts(name, name_len, "[stack:"))
		return MAPTAP_VMA_STACK;
	if (name_is(name, name_len, "[vdso]"))
		return MAPTAP_VMA_VDSO;
	if (name_is(name, name_len, "[vvar]") ||
	    name_is(name, name_len, "[vvar_vclock]"))
		return MAPTAP_VMA_VVAR;
	if (name_is(name, name_len, "[vsyscall]"))
		return MAPTAP_VMA_VSYSCALL;
	if (name_starts(name, name_len, "[anon:"))
		return MAPTAP_VMA_ANON_NAMED;
	return MAPTAP_VMA_SPECIAL;
}

char *maptap_perms_str(uint32_t perms, char out[5])
{
	out[0] = perms & MAPTAP_PERM_R ? 'r' : '-';
	out[1] = perms & MAPTAP_PERM_W ? 'w' : '-';
	out[2] = perms & MAPTAP_PERM_X ? 'x' : '-';
	out[3] = perms & MAPTAP_PERM_S ? 's' : 'p';
	out[4] = '\0';
	return out;
}

/* N in lower-case hex, at least two digits, at OUT; returns the end. */
static char *hex02(char *out, uint32_t n)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[8], *p = tmp + sizeof(tmp);

	do {
		*--p = digits[n & 15];
		n >>= 4;
	} while (n);
	if (p == tmp + sizeof(tmp) - 1)
		*--p = '0';
	memcpy(out, p, (size_t)(tmp + sizeof(tmp) - p));
	return out + (tmp + sizeof(tmp) - p);
}

char *maptap_dev_str(uint32_t major, uint32_t minor,
		     char out[MAPTAP_DEV_STR_MAX])
{
	char *p = hex02(out, major);

	*p++ = ':';
	*hex02(p, minor) = '\0';
	return out;
}

int maptap_vma_buf_push(struct maptap_vma_buf *buf, const struct maptap_vma *v)
{
	size_t need = buf->names_len + v->name_len + 1;
	struct maptap_vma *slot;

	if (buf->n == buf->cap &&
	    mm_reserve((void **)&buf->v, &buf->cap, buf->n + 1, sizeof(*buf->v)))
		return -ENOMEM;
	if (need > buf->names_cap &&
	    mm_reserve((void **)&buf->names, &buf->names_cap, need, 1))
		return -ENOMEM;
	if (v->name_len)
		memcpy(buf->names + buf->names_len, v->name, v->name_len);
	buf->names[buf->names_len + v->name_len] = '\0';
	slot = &buf->v[buf->n++];
	*slot = *v;
	/* An offset until finish(): the arena may still move. */
	slot->name = (const char *)(uintptr_t)buf->names_len;
	buf->names_len = need;
	return 0;
}

void maptap_vma_buf_finish(struct maptap_vma_buf *buf)
{
	size_t off = 0;
	size_t i;

	/* Names sit in the arena in push order, each NUL-terminated, so
	 * their offsets follow from the lengths; that also re-resolves
	 * entries that an earlier finish() had already turned into
	 * pointers into an arena that has moved since. */
	for (i = 0; i < buf->n; i++) {
		buf->v[i].name = buf->names + off;
		off += buf->v[i].name_len + 1;
	}
}

void maptap_vma_buf_clear(struct maptap_vma_buf *buf)
{
	buf->n = 0;
	buf->names_len = 0;
}

void maptap_vma_buf_free(struct maptap_vma_buf *buf)
{
	free(buf->v);
	free(buf->names);
	memset(buf, 0, sizeof(*buf));
}
