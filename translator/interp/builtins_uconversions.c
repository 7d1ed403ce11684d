/* SPDX-License-Identifier: GPL-2.0-or-later */
/* builtins_uconversions.c -- script functions that read user memory:
 * user_string and its kin (_n, _warn, _quoted, utf32, utf16),
 * user_buffer_quoted, and the integer readers user_char .. user_uint64,
 * as stap's tapset/uconversions.stp has them (issue 5).  The ucontext
 * and symbol functions that shared builtins_user.c with these are in
 * builtins_ucontext.c and builtins_usymbols.c, as in stap's tapsets.
 *
 * Group 5 of builtins.c's groups: ids from 5 * TR_BUILTIN_GROUP_BASE.
 * All read what the memory holds now, which the thread may change once
 * it runs on (tr_builtin_at_stop()).
 */
#include <config.h>

#include <errno.h>
#include <string.h>

#include <maptap/session.h>

#include "builtins_user.h"

#define ID(n) (5 * TR_BUILTIN_GROUP_BASE + (n))

enum {
	U_STRING = ID(0), U_STRING2, U_STRING_N, U_STRING_N2,
	U_STRING_WARN, U_STRING2_WARN, U_STRING_N_WARN, U_STRING2_N_WARN,
	U_STRING_QUOTED, U_STRING_N_QUOTED, U_STRING_N2_QUOTED,
	U_UTF32, U_UTF32_2, U_UTF32_QUOTED, U_UTF16, U_UTF16_2, U_UTF16_QUOTED,
	U_BUFFER_QUOTED, U_BUFFER_QUOTED_ERROR,
	U_READER0,	/* first of readers[] below */
};

/* The integer readers of uconversions.stp are data: size, signedness,
 * and what a fault does.  The _warn forms name the type in stap's own
 * words (and only user_char's message says "at"). */
enum fault_mode { F_ZERO, F_ERROR, F_WARN };

struct reader {
	unsigned char size;	/* bytes */
	bool is_signed;
	enum fault_mode mode;
	const char *what;	/* F_WARN: the type in the warning */
	const char *at;		/* F_WARN: "at " or "" before the address */
};

/* NAME, NAME_error and NAME_warn */
#define R3(sz, sg, what, at)						\
	{ sz, sg, F_ZERO, NULL, NULL },					\
	{ sz, sg, F_ERROR, NULL, NULL },				\
	{ sz, sg, F_WARN, what, at }
/* NAME and NAME_error */
#define R2(sz, sg)							\
	{ sz, sg, F_ZERO, NULL, NULL },					\
	{ sz, sg, F_ERROR, NULL, NULL }

/* In the order of their entries in table[] below. */
static const struct reader readers[] = {
	R3(1, true, "char", "at "),		/* user_char */
	R3(2, true, "short", ""),		/* user_short */
	R3(2, false, "unsigned short", ""),	/* user_ushort */
	R3(4, true, "int", ""),			/* user_int */
	R3(8, true, "long", ""),		/* user_long */
	R3(8, false, "unsigned long", ""),	/* user_ulong */
	R2(1, true),				/* user_int8 */
	R2(1, false),				/* user_uint8 */
	R2(2, true),				/* user_int16 */
	R2(2, false),				/* user_uint16 */
	R2(4, true),				/* user_int32 */
	R2(4, false),				/* user_uint32 */
	R2(8, true),				/* user_int64 */
	R2(8, false),				/* user_uint64 */
};

#undef R3
#undef R2

#define N_READERS (sizeof(readers) / sizeof(readers[0]))

#define L TY_LONG
#define S TY_STRING
#define U TY_UNKNOWN
/* The readers' entries come last, in the order of readers[]. */
static const struct tr_builtin table[] = {
	{ "user_string", 1, 2, { L, S }, S, U_STRING },
	{ "user_string2", 2, 2, { L, S }, S, U_STRING2 },
	{ "user_string_n", 2, 3, { L, L, S }, S, U_STRING_N },
	{ "user_string_n2", 3, 3, { L, L, S }, S, U_STRING_N2 },
	{ "user_string_warn", 1, 2, { L, S }, S, U_STRING_WARN },
	{ "user_string2_warn", 2, 2, { L, S }, S, U_STRING2_WARN },
	{ "user_string_n_warn", 2, 3, { L, L, S }, S, U_STRING_N_WARN },
	{ "user_string2_n_warn", 3, 3, { L, L, S }, S, U_STRING2_N_WARN },
	{ "user_string_quoted", 1, 1, { L }, S, U_STRING_QUOTED },
	{ "user_string_n_quoted", 2, 3, { L, L, L }, S, U_STRING_N_QUOTED },
	{ "user_string_n2_quoted", 3, 3, { L, L, L }, S, U_STRING_N2_QUOTED },
	{ "user_string_utf32", 1, 2, { L, S }, S, U_UTF32 },
	{ "user_string2_utf32", 2, 2, { L, S }, S, U_UTF32_2 },
	{ "user_string_quoted_utf32", 1, 1, { L }, S, U_UTF32_QUOTED },
	{ "user_string_utf16", 1, 2, { L, S }, S, U_UTF16 },
	{ "user_string2_utf16", 2, 2, { L, S }, S, U_UTF16_2 },
	{ "user_string_quoted_utf16", 1, 1, { L }, S, U_UTF16_QUOTED },
	{ "user_buffer_quoted", 3, 3, { L, L, L }, S, U_BUFFER_QUOTED },
	{ "user_buffer_quoted_error", 3, 3, { L, L, L }, S,
	  U_BUFFER_QUOTED_ERROR },
	{ "user_char", 1, 1, { L }, L, U_READER0 + 0 },
	{ "user_char_error", 1, 1, { L }, L, U_READER0 + 1 },
	{ "user_char_warn", 1, 1, { L }, L, U_READER0 + 2 },
	{ "user_short", 1, 1, { L }, L, U_READER0 + 3 },
	{ "user_short_error", 1, 1, { L }, L, U_READER0 + 4 },
	{ "user_short_warn", 1, 1, { L }, L, U_READER0 + 5 },
	{ "user_ushort", 1, 1, { L }, L, U_READER0 + 6 },
	{ "user_ushort_error", 1, 1, { L }, L, U_READER0 + 7 },
	{ "user_ushort_warn", 1, 1, { L }, L, U_READER0 + 8 },
	{ "user_int", 1, 1, { L }, L, U_READER0 + 9 },
	{ "user_int_error", 1, 1, { L }, L, U_READER0 + 10 },
	{ "user_int_warn", 1, 1, { L }, L, U_READER0 + 11 },
	{ "user_long", 1, 1, { L }, L, U_READER0 + 12 },
	{ "user_long_error", 1, 1, { L }, L, U_READER0 + 13 },
	{ "user_long_warn", 1, 1, { L }, L, U_READER0 + 14 },
	{ "user_ulong", 1, 1, { L }, L, U_READER0 + 15 },
	{ "user_ulong_error", 1, 1, { L }, L, U_READER0 + 16 },
	{ "user_ulong_warn", 1, 1, { L }, L, U_READER0 + 17 },
	{ "user_int8", 1, 1, { L }, L, U_READER0 + 18 },
	{ "user_int8_error", 1, 1, { L }, L, U_READER0 + 19 },
	{ "user_uint8", 1, 1, { L }, L, U_READER0 + 20 },
	{ "user_uint8_error", 1, 1, { L }, L, U_READER0 + 21 },
	{ "user_int16", 1, 1, { L }, L, U_READER0 + 22 },
	{ "user_int16_error", 1, 1, { L }, L, U_READER0 + 23 },
	{ "user_uint16", 1, 1, { L }, L, U_READER0 + 24 },
	{ "user_uint16_error", 1, 1, { L }, L, U_READER0 + 25 },
	{ "user_int32", 1, 1, { L }, L, U_READER0 + 26 },
	{ "user_int32_error", 1, 1, { L }, L, U_READER0 + 27 },
	{ "user_uint32", 1, 1, { L }, L, U_READER0 + 28 },
	{ "user_uint32_error", 1, 1, { L }, L, U_READER0 + 29 },
	{ "user_int64", 1, 1, { L }, L, U_READER0 + 30 },
	{ "user_int64_error", 1, 1, { L }, L, U_READER0 + 31 },
	{ "user_uint64", 1, 1, { L }, L, U_READER0 + 32 },
	{ "user_uint64_error", 1, 1, { L }, L, U_READER0 + 33 },
};

#undef L
#undef S
#undef U

_Static_assert(sizeof(table) / sizeof(table[0]) ==
	       (U_READER0 - ID(0)) + N_READERS,
	       "one table entry per function and per reader");

/* ---- user memory ---- */

/* Read LEN bytes at ADDR of the current process.  True when all were
 * read. */
static bool read_exact(struct interp *I, uint64_t addr, void *buf,
		       size_t len)
{
	pid_t pid = cur_pid(I);

	if (pid <= 0)
		return false;
	return maptap_read_user(pid, addr, buf, len) == (ssize_t)len;
}

static int64_t call_reader(struct interp *I, struct node *n,
			   const struct reader *r)
{
	uint64_t addr = (uint64_t)arg_l(I, n, 0);
	unsigned char raw[8];
	uint64_t v = 0;
	char msg[128];

	if (!read_exact(I, addr, raw, r->size)) {
		if (r->mode == F_ERROR)
			/* loc2c-runtime.h DEREF_FAULT: "0x%p" of the
			 * address, 16 digits */
			tr_rt_error(I, n->tok,
				    "read fault [man error::fault] at 0x%016"
				    PRIx64 " (addr)", addr);
		if (r->mode == F_WARN) {
			snprintf(msg, sizeof(msg), "user %s copy fault %s0x%"
				 PRIx64 " [man error::fault]", r->what, r->at,
				 addr);
			warn(I, msg);
		}
		return 0;
	}
	/* x86_64 is little-endian: the low bytes come first */
	memcpy(&v, raw, r->size);
	if (!r->is_signed || r->size == 8)
		return (int64_t)v;
	if (r->size == 1)
		return (int8_t)v;
	if (r->size == 2)
		return (int16_t)v;
	return (int32_t)v;
}

/* _stp_strncpy_from_user(dst, addr, len) as the user_string_n family
 * uses it: at most LEN bytes up to and including a NUL; a fault before
 * the NUL or the LEN-th byte fails the whole copy.  The result keeps at
 * most LEN - 1 bytes.  Returns 0, or -EFAULT. */
static int copy_string(struct interp *I, uint64_t addr, size_t len,
		       struct maptap_script_buf *b)
{
	pid_t pid = cur_pid(I);
	char *nul;
	ssize_t got;

	if (pid <= 0)
		return -EFAULT;
	maptap_script_buf_clear(b);
	if (maptap_script_buf_reserve(b, len) < 0)
		return -ENOMEM;
	/* one read: process_vm_readv() stops short at an unmapped page,
	 * and a NUL before it is all a string needs */
	got = maptap_read_user(pid, addr, b->s, len);
	if (got <= 0)
		return -EFAULT;
	nul = memchr(b->s, '\0', (size_t)got);
	if (!nul && (size_t)got < len)
		return -EFAULT;
	b->len = nul ? (size_t)(nul - b->s) : (size_t)got;
	if (b->len > len - 1)
		b->len = len - 1;
	b->s[b->len] = '\0';
	return 0;
}

/* The LEN of user_string_n(addr, n): clamp(n + 1, 1, MAXSTRINGLEN - 1)
 * as in uconversions.stp. */
static size_t string_n_len(const struct interp *I, int64_t n)
{
	int64_t max = (int64_t)I->lim.maxstringlen - 1;

	if (n >= max - 1)
		return (size_t)max;
	if (n < 0)
		return 1;
	return (size_t)n + 1;
}

/* The arguments of one user_string* call. */
struct string_call {
	int64_t n;		/* user_string_n's n; INT64_MAX: all */
	int64_t outlen;		/* the _quoted forms' output limit */
	const char *alt;	/* the text on a fault, or NULL: error */
	bool warn;
	bool quoted;
};

static void string_fault(struct interp *I, struct node *n, uint64_t addr,
			 const struct string_call *c,
			 struct maptap_script_buf *b)
{
	char msg[128];

	if (!c->alt)
		tr_rt_error(I, n->tok,
			    "user string copy fault -14 at 0x%" PRIx64
			    " [man error::fault]", addr);
	if (c->warn) {
		/* sic: stap's user_string_n_warn prints "0x%ld" of -14 */
		snprintf(msg, sizeof(msg), "user string copy fault 0x-14 "
			 "at 0x%" PRIx64 " [man error::fault]", addr);
		warn(I, msg);
	}
	maptap_script_buf_clear(b);
	check(I, n, maptap_script_buf_adds(b, c->alt));
}

static void read_string(struct interp *I, struct node *n, uint64_t addr,
			const struct string_call *c,
			struct maptap_script_buf *b)
{
	int rc = copy_string(I, addr, string_n_len(I, c->n), b);

	if (rc == -ENOMEM)
		check(I, n, rc);
	if (rc < 0)
		string_fault(I, n, addr, c, b);
}

/* user_string_quoted and user_string_n_quoted (stap >= 3.0): the
 * string read into RAW, quoted into B and cut to OUTLEN with "\"...";
 * the address in hex when it cannot be read. */
static void quoted(struct interp *I, struct node *n, uint64_t addr,
		   const struct string_call *c, struct maptap_script_buf *raw,
		   struct maptap_script_buf *b)
{
	int rc = copy_string(I, addr, string_n_len(I, c->n), raw);

	if (rc == -ENOMEM)
		check(I, n, rc);
	if (rc < 0) {
		check(I, n, add_hex(b, addr));
		return;
	}
	if (maptap_script_text_strn(I->ctx, raw->s, raw->len, 0, 1, b) < 0)
		tr_rt_ctx_error(I, n->tok);
	if (c->outlen >= 0 && (int64_t)b->len > c->outlen - 2) {
		maptap_script_buf_truncate(b, c->outlen > 4 ? c->outlen - 4
							    : 0);
		check(I, n, maptap_script_buf_adds(b, "\"..."));
	}
}

/* The arguments after the address of the user_string* functions. */
static void string_args(struct interp *I, struct node *n, int id,
			struct string_call *c)
{
	int nargs = n->list.n;

	c->n = INT64_MAX;
	c->outlen = -1;
	switch (id) {
	case U_STRING_QUOTED:
		c->quoted = true;
		return;
	case U_STRING_N_QUOTED:
	case U_STRING_N2_QUOTED:
		c->quoted = true;
		c->n = arg_l(I, n, 1);
		c->outlen = nargs > 2 ? arg_l(I, n, 2) :
			    (int64_t)I->lim.maxstringlen;
		return;
	case U_STRING_N:
	case U_STRING_N2:
	case U_STRING_N_WARN:
	case U_STRING2_N_WARN:
		c->n = arg_l(I, n, 1);
		if (nargs > 2)
			c->alt = arg_s(I, n, 2).p;
		break;
	default:
		if (nargs > 1)
			c->alt = arg_s(I, n, 1).p;
	}
	c->warn = id == U_STRING_WARN || id == U_STRING2_WARN ||
		  id == U_STRING_N_WARN || id == U_STRING2_N_WARN;
	if (c->warn && !c->alt)
		c->alt = "";
}

/* Returns the buffer that holds the result. */
static struct maptap_script_buf *
call_user_string(struct interp *I, struct node *n, uint64_t addr,
		 const struct string_call *c, struct maptap_script_buf *b)
{
	struct maptap_script_buf *out;

	if (!c->quoted) {
		read_string(I, n, addr, c, b);
		return b;
	}
	out = tr_tmp_get(I);	/* temporaries never move: B stays valid */
	quoted(I, n, addr, c, b, out);
	return out;
}

/* ---- UTF-32 and UTF-16 strings ---- */

/* A window over the current process's memory, so a string read one
 * code unit at a time costs one read per window, not one per unit. */
struct uwin {
	pid_t pid;
	uint64_t base;
	size_t have;
	unsigned char buf[1024];
};

/* The SIZE-byte little-endian unit at ADDR, or false on a fault. */
static bool uwin_get(struct uwin *w, uint64_t addr, size_t size,
		     uint32_t *v)
{
	ssize_t got;

	if (addr < w->base || addr - w->base + size > w->have) {
		got = w->pid > 0 ? maptap_read_user(w->pid, addr, w->buf,
						    sizeof(w->buf)) : -EFAULT;
		w->base = addr;
		w->have = got > 0 ? (size_t)got : 0;
		if (w->have < size)
			return false;
	}
	*v = 0;
	memcpy(v, w->buf + (addr - w->base), size);
	return true;
}

/* Code point C as UTF-8 at OUT with ROOM bytes (NUL included), as
 * stap's _stp_convert_utf32(): the length, 0 when it does not fit, -1
 * for a surrogate or a value above U+10FFFF (RFC 3629). */
static int utf8_put(char *out, size_t room, uint32_t c)
{
	int n, i;

	if (c >= 0xd800 && c <= 0xdfff)
		return -1;
	if (c <= 0x7f)
		n = 1;
	else if (c <= 0x7ff)
		n = 2;
	else if (c <= 0xffff)
		n = 3;
	else if (c <= 0x10ffff)
		n = 4;
	else
		return -1;
	if (room < (size_t)n + 1)
		return 0;
	if (n == 1) {
		out[0] = (char)c;
		return 1;
	}
	for (i = n - 1; i > 0; i--, c >>= 6)
		out[i] = (char)(0x80 | (c & 0x3f));
	out[0] = (char)(((0xff00 >> n) & 0xff) | c);
	return n;
}

/* The next code point of a UTF-16 string at *AT: a surrogate pair is
 * combined, a lone high surrogate is returned as is (and then refused
 * by utf8_put), as in stap's user_string_utf16(). */
static bool utf16_next(struct uwin *w, uint64_t *at, uint32_t *c)
{
	uint32_t lo;

	if (!uwin_get(w, *at, 2, c))
		return false;
	if (*c < 0xd800 || *c > 0xdbff)
		return true;
	*at += 2;
	if (!uwin_get(w, *at, 2, &lo))
		return false;	/* the fault is at the low half */
	if (lo >= 0xdc00 && lo <= 0xdfff)
		*c = 0x10000 + ((*c & 0x3ff) << 10) + (lo & 0x3ff);
	else
		*at -= 2;	/* a lone high half, reported where it is */
	return true;
}

/* user_string_utf32/utf16(ADDR) converted to UTF-8 into B, at most
 * MAXSTRINGLEN - 1 bytes (a character that does not fit ends it).
 * Returns 0, or -1 with the error message of stap's functions in MSG. */
static int read_utf(struct interp *I, uint64_t addr, unsigned unit,
		    struct maptap_script_buf *b, char msg[128])
{
	struct uwin w = { .pid = cur_pid(I) };
	size_t room = I->lim.maxstringlen;
	uint64_t at = addr;
	uint32_t c;
	bool ok;
	int n;

	maptap_script_buf_clear(b);
	if (maptap_script_buf_reserve(b, room) < 0)
		return -ENOMEM;
	for (; room > 1; at += unit) {
		ok = unit == 4 ? uwin_get(&w, at, 4, &c) : utf16_next(&w, &at,
								       &c);
		if (!ok) {
			snprintf(msg, 128, "user string copy fault at 0x%"
				 PRIx64 " [man error::fault]", at);
			return -1;
		}
		if (c == 0)
			break;
		n = utf8_put(b->s + b->len, room, c);
		if (n < 0) {
			snprintf(msg, 128, "invalid UTF-%u character U+%X at "
				 "0x%" PRIx64, unit * 8, c, at);
			return -1;
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
		room -= (size_t)n;
	}
	b->s[b->len] = '\0';
	return 0;
}

/* The six UTF functions: the plain form raises, the two-argument forms
 * return ALT, the quoted forms quote or give the address. */
static void call_utf(struct interp *I, struct node *n, int id,
		     uint64_t addr, const char *alt,
		     struct maptap_script_buf *raw, struct maptap_script_buf *b)
{
	unsigned unit = id <= U_UTF32_QUOTED ? 4 : 2;
	bool quote = id == U_UTF32_QUOTED || id == U_UTF16_QUOTED;
	char msg[128];
	int rc = read_utf(I, addr, unit, quote ? raw : b, msg);

	if (rc == -ENOMEM)
		check(I, n, rc);
	if (rc < 0) {
		maptap_script_buf_clear(b);
		if (quote)
			check(I, n, add_hex(b, addr));
		else if (alt)
			check(I, n, maptap_script_buf_adds(b, alt));
		else
			tr_rt_error(I, n->tok, "%s", msg);
		return;
	}
	if (quote && maptap_script_text_strn(I->ctx, raw->s, raw->len, 0, 1,
					     b) < 0)
		tr_rt_ctx_error(I, n->tok);
}

/* ---- buffers ---- */

/* user_buffer_quoted(addr, inlen, outlen) and user_buffer_quoted_error
 * (uconversions.stp): exactly C->N bytes at ADDR (at most MAXSTRINGLEN:
 * no more can show) read into RAW, quoted into B with NUL bytes escaped
 * (maptap_script_text_buffer()) and cut to C->OUTLEN.  When the bytes
 * cannot all be read: the address in hex, or for the _error form stap's
 * copy-fault error. */
static void call_buffer(struct interp *I, struct node *n, int id,
			uint64_t addr, const struct string_call *c,
			struct maptap_script_buf *raw,
			struct maptap_script_buf *b)
{
	uint64_t max = I->lim.maxstringlen;
	size_t want = c->n <= 0 ? 0 : (uint64_t)c->n < max ? (size_t)c->n :
		      (size_t)max;
	pid_t pid = cur_pid(I);
	ssize_t got = 0;

	maptap_script_buf_clear(raw);
	check(I, n, maptap_script_buf_reserve(raw, want + 1));
	if (want)
		got = pid > 0 ? maptap_read_user(pid, addr, raw->s, want) :
				-EFAULT;
	if (got < (ssize_t)want) {
		if (id == U_BUFFER_QUOTED_ERROR)
			tr_rt_error(I, n->tok,
				    "user string copy fault -14 at 0x%" PRIx64
				    " [man error::fault]", addr);
		check(I, n, add_hex(b, addr));
		return;
	}
	raw->len = want;
	raw->s[want] = '\0';
	if (maptap_script_text_buffer(I->ctx, raw->s, raw->len, c->outlen,
				      b) < 0)
		tr_rt_ctx_error(I, n->tok);
}

/* ---- dispatch ---- */

static void call_string(struct interp *I, struct node *n, int id,
			struct sref *s)
{
	uint64_t addr = (uint64_t)arg_l(I, n, 0);
	struct string_call c = { .n = INT64_MAX };
	struct maptap_script_buf *b;

	if (id >= U_STRING && id <= U_STRING_N2_QUOTED)
		string_args(I, n, id, &c);
	if (id >= U_UTF32 && id <= U_UTF16_QUOTED && n->list.n > 1)
		c.alt = arg_s(I, n, 1).p;
	if (id == U_BUFFER_QUOTED || id == U_BUFFER_QUOTED_ERROR) {
		c.n = arg_l(I, n, 1);
		c.outlen = arg_l(I, n, 2);
	}
	/* temporaries only after the arguments: evaluating one may grow
	 * (and move) the array they live in */
	b = tr_tmp_get(I);
	switch (id) {
	case U_UTF32:
	case U_UTF32_2:
	case U_UTF32_QUOTED:
	case U_UTF16:
	case U_UTF16_2:
	case U_UTF16_QUOTED:
	{
		struct maptap_script_buf *raw = b;

		b = tr_tmp_get(I);
		call_utf(I, n, id, addr, c.alt, raw, b);
		break;
	}
	case U_BUFFER_QUOTED:
	case U_BUFFER_QUOTED_ERROR:
	{
		struct maptap_script_buf *raw = b;

		b = tr_tmp_get(I);
		call_buffer(I, n, id, addr, &c, raw, b);
		break;
	}
	default:
		b = call_user_string(I, n, addr, &c, b);
	}
	result(I, b, s);
}

static void call(struct interp *I, struct node *n, int64_t *l,
		 struct sref *s)
{
	int id = n->builtin;

	*l = 0;
	if (id >= U_READER0) {
		*l = call_reader(I, n, &readers[id - U_READER0]);
		return;
	}
	call_string(I, n, id, s);
}

/* The user memory readers read what the memory holds now, which the
 * thread may change once it runs on. */
static bool at_stop(int id)
{
	(void)id;
	return true;
}

const struct tr_builtin_group tr_builtins_uconversions = {
	.set = {
		.table = table,
		.n = sizeof(table) / sizeof(table[0]),
		.at_stop = at_stop,
	},
	.call = call,
};
