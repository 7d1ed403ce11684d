/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maps_parse.c -- parse the text of /proc/PID/maps.
 *
 * A line is written by fs/proc/task_mmu.c, show_vma_header_prefix() and
 * show_map_vma():
 *
 *   seq_setwidth(m, 25 + sizeof(void *) * 6 - 1);     72 on 64-bit
 *   start "-" end " " rwxp " " pgoff " " major ":" minor " " ino " "
 *   then, for a VMA with a name, seq_pad(m, ' ') -- spaces up to column
 *   72, then one more space -- and the name (seq_path() with "\n"
 *   escaped as "\012" for files, the bracketed names otherwise).
 *
 * Hex fields are printed with seq_put_hex_ll() at a minimum width (8 for
 * addresses and offset, 2 for major and minor) and grow as needed, so we
 * accept any width whose value fits the field.  The name therefore starts
 * at column max(c, 72) + 1, where c is the column after the space that
 * follows the inode: that rule recovers a name exactly, even one that
 * begins with spaces.  Lines that do not follow the kernel's padding
 * (hand-written fixtures) fall back to "everything after the run of
 * spaces that follows the inode".
 *
 * sscanf() would cost several times more per line and cannot take a name
 * with spaces; this is on the path of every full read, so it is written
 * by hand.
 */
#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <maptap/maps.h>

/* Column at which seq_pad() stops padding on a 64-bit kernel. */
#define MAPS_NAME_COLUMN (25 + 8 * 6 - 1)

struct cursor {
	const char *p;
	const char *end;
};

/* Hex digit values + 1, 0 for a non-digit: one load per byte. */
static const unsigned char hex_val[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* At least one hex digit, any number of them (leading zeros included),
 * as long as the value fits in BITS bits.  Works on locals: through the
 * cursor the compiler must reload and store it for every byte. */
static int get_hex(struct cursor *c, unsigned bits, uint64_t *out)
{
	const unsigned char *p = (const unsigned char *)c->p;
	const unsigned char *end = (const unsigned char *)c->end;
	const unsigned char *first = p;
	uint64_t v = 0;
	unsigned d;

	while (p < end && (d = hex_val[*p]) != 0) {
		if (v >> (bits - 4))
			return -EINVAL;
		v = v << 4 | (d - 1);
		p++;
	}
	if (p == first)
		return -EINVAL;
	c->p = (const char *)p;
	*out = v;
	return 0;
}

static int get_dec(struct cursor *c, uint64_t *out)
{
	const char *p = c->p, *first = c->p;
	uint64_t v = 0;

	while (p < c->end && *p >= '0' && *p <= '9') {
		uint64_t d = (uint64_t)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
		p++;
	}
	if (p == first)
		return -EINVAL;
	c->p = p;
	*out = v;
	return 0;
}

static int expect(struct cursor *c, char ch)
{
	if (c->p >= c->end || *c->p != ch)
		return -EINVAL;
	c->p++;
	return 0;
}

static int get_perms(struct cursor *c, uint32_t *perms)
{
	const char *p = c->p;

	if (c->end - p < 4)
		return -EINVAL;
	if ((p[0] != 'r' && p[0] != '-') || (p[1] != 'w' && p[1] != '-') ||
	    (p[2] != 'x' && p[2] != '-') || (p[3] != 's' && p[3] != 'p'))
		return -EINVAL;
	*perms = (p[0] == 'r' ? MAPTAP_PERM_R : 0) |
		 (p[1] == 'w' ? MAPTAP_PERM_W : 0) |
		 (p[2] == 'x' ? MAPTAP_PERM_X : 0) |
		 (p[3] == 's' ? MAPTAP_PERM_S : 0);
	c->p = p + 4;
	return 0;
}

/* C->p is just after the space that follows the inode, at column COL. */
static void get_name(const struct cursor *c, size_t col, struct maptap_vma *out)
{
	size_t avail = (size_t)(c->end - c->p);
	size_t pad = col < MAPS_NAME_COLUMN ? MAPS_NAME_COLUMN - col : 0;
	const char *q = c->p;
	size_t i;

	for (i = 0; i <= pad && i < avail && q[i] == ' '; i++)
		;
	if (i == pad + 1 && avail > pad + 1) {
		/* The kernel's layout: the name is exactly what follows. */
		out->name = q + pad + 1;
		out->name_len = avail - pad - 1;
		return;
	}
	while (q < c->end && *q == ' ')
		q++;
	out->name = q;
	out->name_len = (size_t)(c->end - q);
}

int maptap_maps_parse_line(const char *line, size_t len, struct maptap_vma *out)
{
	struct cursor c = { line, line + len };
	uint64_t major, minor;

	if (get_hex(&c, 64, &out->start) || expect(&c, '-') ||
	    get_hex(&c, 64, &out->end) || expect(&c, ' ') ||
	    get_perms(&c, &out->perms) || expect(&c, ' ') ||
	    get_hex(&c, 64, &out->offset) || expect(&c, ' ') ||
	    get_hex(&c, 32, &major) || expect(&c, ':') ||
	    get_hex(&c, 32, &minor) || expect(&c, ' ') ||
	    get_dec(&c, &out->inode))
		return -EINVAL;
	if (out->start >= out->end)
		return -EINVAL;
	out->dev_major = (uint32_t)major;
	out->dev_minor = (uint32_t)minor;
	out->name = line + len;
	out->name_len = 0;
	if (c.p < c.end) {
		if (expect(&c, ' '))
			return -EINVAL;
		get_name(&c, (size_t)(c.p - line), out);
	}
	if (out->name_len == 0)
		out->name = "";
	out->kind = maptap_vma_kind_of(out->name, out->name_len, out->inode);
	return 0;
}

int maptap_maps_parse(const char *text, size_t len, struct maptap_vma_buf *buf)
{
	const char *p = text;
	const char *end = text + len;
	int err = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		struct maptap_vma v;

		err = maptap_maps_parse_line(p, (size_t)(eol - p), &v);
		if (err)
			break;
		err = maptap_vma_buf_push(buf, &v);
		if (err)
			break;
		p = nl ? nl + 1 : end;
	}
	maptap_vma_buf_finish(buf);
	return err;
}
