/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* render.c -- turn a compiled printf format and its arguments into text,
 * byte for byte as stap's runtime (runtime/vsprintf.c) does; see
 * format.c for the rules and their source.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <maptap/script_format.h>

#define FIELD_MAX 65536

/* One conversion with its '*' fields resolved: width and precision are
 * -1 when unspecified, as in the kernel's vsnprintf. */
struct spec {
	char conv;
	unsigned flags;
	int width;
	int precision;
};

static bool has(const struct spec *s, unsigned flag)
{
	return s->flags & flag;
}

static int pad(struct maptap_script_buf *out, char c, int n)
{
	return n > 0 ? maptap_script_buf_addrep(out, c, n) : 0;
}

/* NUM's digits in BASE (8, 10 or 16), written backwards from END;
 * returns how many.  Division by a constant, not by a variable: this
 * runs for every number of every printf. */
static int to_digits(char *end, uint64_t num, unsigned base, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *p = end;

	switch (base) {
	case 16:
		do {
			*--p = digits[num & 15];
			num >>= 4;
		} while (num);
		break;
	case 8:
		do {
			*--p = (char)('0' + (num & 7));
			num >>= 3;
		} while (num);
		break;
	default:
		do {
			*--p = (char)('0' + num % 10);
			num /= 10;
		} while (num);
	}
	return (int)(end - p);
}

/* The kernel's number(): sign, "0x"/"0" prefix, zero or space padding,
 * precision as a minimum digit count.  The whole field is laid out
 * first and written with one reservation of OUT. */
static int render_number(struct maptap_script_buf *out, uint64_t num,
			 const struct spec *s)
{
	unsigned base = 10;
	bool sign = s->conv == 'd' || s->conv == 'i';
	bool special = has(s, MAPTAP_SCRIPT_FMT_ALT) || s->conv == 'p';
	bool left = has(s, MAPTAP_SCRIPT_FMT_LEFT);
	bool zero = has(s, MAPTAP_SCRIPT_FMT_ZERO) && !left;
	int size = s->width, precision = s->precision, i, nprefix = 0;
	size_t lead, zeros, trail, total;
	char tmp[66], prefix[3], *w;
	int rc;

	if (s->conv == 'o')
		base = 8;
	else if (s->conv == 'x' || s->conv == 'X' || s->conv == 'p')
		base = 16;
	if (sign) {
		if ((int64_t)num < 0) {
			prefix[nprefix++] = '-';
			num = -num;
			size--;
		} else if (has(s, MAPTAP_SCRIPT_FMT_PLUS)) {
			prefix[nprefix++] = '+';
			size--;
		} else if (has(s, MAPTAP_SCRIPT_FMT_SPACE)) {
			prefix[nprefix++] = ' ';
			size--;
		}
	}
	if (special && base == 16) {
		prefix[nprefix++] = '0';
		prefix[nprefix++] = s->conv == 'X' ? 'X' : 'x';
		size -= 2;
	} else if (special && base == 8) {
		prefix[nprefix++] = '0';
		size--;
	}
	i = to_digits(tmp + sizeof(tmp), num, base, s->conv == 'X');
	if (i > precision)
		precision = i;
	size -= precision;
	lead = !zero && !left && size > 0 ? (size_t)size : 0;
	zeros = (zero && size > 0 ? (size_t)size : 0) +
		(size_t)(precision - i);
	trail = left && size > 0 ? (size_t)size : 0;
	total = lead + (size_t)nprefix + zeros + (size_t)i + trail;
	rc = maptap_script_buf_reserve(out, total);
	if (rc)
		return rc;
	w = out->s + out->len;
	/* Most numbers have no padding: a libc call for zero bytes costs
	 * more than the test (three a number, callgrind). */
	if (lead)
		memset(w, ' ', lead);
	w += lead;
	if (nprefix)
		memcpy(w, prefix, (size_t)nprefix);
	w += nprefix;
	if (zeros)
		memset(w, '0', zeros);
	w += zeros;
	memcpy(w, tmp + sizeof(tmp) - i, (size_t)i);
	w += i;
	if (trail)
		memset(w, ' ', trail);
	out->len += total;
	out->s[out->len] = '\0';
	return 0;
}

/* %c: the byte, or with '#' its C escape, padded to the width. */
static int render_char(struct maptap_script_buf *out, unsigned char c,
		       const struct spec *s)
{
	static const char esc_from[] = "\a\b\f\n\r\t\v'\\";
	static const char esc_to[] = "abfnrtv'\\";
	const char *e = c ? strchr(esc_from, c) : NULL;
	char buf[4];
	int n = 1, rc = 0;

	buf[0] = c;
	if (has(s, MAPTAP_SCRIPT_FMT_ALT) &&
	    (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\')) {
		buf[0] = '\\';
		if (e) {
			buf[1] = esc_to[e - esc_from];
			n = 2;
		} else {
			buf[1] = '0' + ((c >> 6) & 3);
			buf[2] = '0' + ((c >> 3) & 7);
			buf[3] = '0' + (c & 7);
			n = 4;
		}
	}
	if (!has(s, MAPTAP_SCRIPT_FMT_LEFT))
		rc = pad(out, ' ', s->width - n);
	if (!rc)
		rc = maptap_script_buf_add(out, buf, n);
	if (!rc && has(s, MAPTAP_SCRIPT_FMT_LEFT))
		rc = pad(out, ' ', s->width - n);
	return rc;
}

/* Text of LEN bytes at P (already hex-expanded for %M), padded to the
 * width; a '0' flag appends a NUL, as stap's runtime does. */
static int render_text(struct maptap_script_buf *out, const char *p,
		       size_t len, const struct spec *s)
{
	int rc = 0;

	if (!has(s, MAPTAP_SCRIPT_FMT_LEFT) && (size_t)s->width > len &&
	    s->width > 0)
		rc = pad(out, ' ', s->width - (int)len);
	if (!rc)
		rc = maptap_script_buf_add(out, p, len);
	if (!rc && has(s, MAPTAP_SCRIPT_FMT_LEFT) && s->width > 0 &&
	    (size_t)s->width > len)
		rc = pad(out, ' ', s->width - (int)len);
	if (!rc && has(s, MAPTAP_SCRIPT_FMT_ZERO))
		rc = maptap_script_buf_addc(out, '\0');
	return rc;
}

static int render_string(struct maptap_script_buf *out,
			 const struct maptap_script_value *v,
			 const struct spec *s)
{
	size_t len = v->u.s.len;

	if (s->precision >= 0 && (size_t)s->precision < len)
		len = s->precision;
	return render_text(out, v->u.s.p, len, s);
}

static int render_memory(struct maptap_script_buf *out, uint64_t addr,
			 const struct spec *s,
			 const struct maptap_script_fmt_ops *ops,
			 struct maptap_script_error *err)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = s->precision > 0 ? (size_t)s->precision : 1, i;
	unsigned char *mem;
	char *text;
	int rc;

	if (!ops || !ops->read_mem)
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_MEMORY,
				"cannot read memory at 0x%" PRIx64
				" without a target process", addr);
	mem = malloc(len);
	text = malloc(2 * len);
	if (!mem || !text) {
		free(mem);
		free(text);
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_NOMEM,
					       "out of memory");
	}
	rc = ops->read_mem(ops->arg, addr, mem, len);
	if (rc) {
		rc = maptap_script_error_set(err, MAPTAP_SCRIPT_E_MEMORY,
			"read fault at 0x%" PRIx64 " [man error::fault]",
				addr);
	} else if (s->conv == 'm') {
		rc = render_text(out, (const char *)mem, len, s);
	} else {
		for (i = 0; i < len; i++) {
			text[2 * i] = hex[mem[i] >> 4];
			text[2 * i + 1] = hex[mem[i] & 15];
		}
		rc = render_text(out, text, 2 * len, s);
	}
	free(mem);
	free(text);
	return rc;
}

static int binary_size(int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8 ? n : -1;
}

/* %b: the low PRECISION bytes of the value in host byte order, padded
 * with NUL bytes to the width; either defaults to the other, both to 8. */
static int render_binary(struct maptap_script_buf *out, int64_t num,
			 const struct spec *s)
{
	int width = s->width, prec = binary_size(s->precision), rc = 0;
	union {
		int64_t l;
		int32_t i;
		int16_t h;
		int8_t b;
		char bytes[8];
	} u;

	if (width < 0) {
		if (prec < 0)
			prec = 8;
		width = prec;
	} else if (prec < 0) {
		prec = binary_size(width);
		if (prec < 0)
			prec = 8;
	}
	if (prec == 1)
		u.b = (int8_t)num;
	else if (prec == 2)
		u.h = (int16_t)num;
	else if (prec == 4)
		u.i = (int32_t)num;
	else
		u.l = num;
	if (!has(s, MAPTAP_SCRIPT_FMT_LEFT))
		rc = pad(out, '\0', width - prec);
	if (!rc)
		rc = maptap_script_buf_add(out, u.bytes, prec);
	if (!rc && has(s, MAPTAP_SCRIPT_FMT_LEFT))
		rc = pad(out, '\0', width - prec);
	return rc;
}

static int clamp_field(int64_t v)
{
	if (v < 0)
		return 0;
	return v > FIELD_MAX ? FIELD_MAX : (int)v;
}

/* Resolve '*' fields from ARGS starting at *AI (a negative '*' width
 * means left-justify, a negative '*' precision means 0, as in C). */
static void resolve(const struct maptap_script_fmt_piece *pc,
		    const struct maptap_script_value *args, size_t *ai,
		    struct spec *s)
{
	s->conv = pc->conv;
	s->flags = pc->flags;
	s->width = pc->width;
	s->precision = pc->precision;
	if (pc->width == MAPTAP_SCRIPT_FMT_STAR) {
		int64_t w = args[(*ai)++].u.l;

		if (w < 0) {
			s->flags |= MAPTAP_SCRIPT_FMT_LEFT;
			w = w == INT64_MIN ? INT64_MAX : -w;
		}
		s->width = clamp_field(w);
	}
	if (pc->precision == MAPTAP_SCRIPT_FMT_STAR)
		s->precision = clamp_field(args[(*ai)++].u.l);
}

static int render_one(const struct spec *s, const struct maptap_script_value *v,
		      const struct maptap_script_fmt_ops *ops,
		      struct maptap_script_buf *out,
		      struct maptap_script_error *err)
{
	switch (s->conv) {
	case 's':
		return render_string(out, v, s);
	case 'c':
		return render_char(out, (unsigned char)v->u.l, s);
	case 'b':
		return render_binary(out, v->u.l, s);
	case 'm':
	case 'M':
		return render_memory(out, (uint64_t)v->u.l, s, ops, err);
	default:
		return render_number(out, (uint64_t)v->u.l, s);
	}
}

static int check_args(const struct maptap_script_fmt *f,
		      const struct maptap_script_value *args, size_t n,
		      struct maptap_script_error *err)
{
	size_t i;

	if (n != maptap_script_fmt_nargs(f))
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_FORMAT,
			"Wrong number of args to formatted print operator");
	for (i = 0; i < n; i++) {
		enum maptap_script_type want = maptap_script_fmt_arg_type(f, i);

		if (args[i].type != want)
			return maptap_script_error_set(err,
					MAPTAP_SCRIPT_E_FORMAT,
					"type mismatch (%s vs. %s)",
					maptap_script_type_name(args[i].type),
					maptap_script_type_name(want));
	}
	return 0;
}

int maptap_script_fmt_render(const struct maptap_script_fmt *f,
			     const struct maptap_script_value *args, size_t n,
			     const struct maptap_script_fmt_ops *ops,
			     struct maptap_script_buf *out,
			     struct maptap_script_error *err)
{
	const struct maptap_script_fmt_piece *pc;
	const char *text = maptap_script_fmt_text(f);
	size_t npieces, i, ai = 0;
	struct spec s;
	int rc;

	rc = check_args(f, args, n, err);
	if (rc)
		return rc;
	pc = maptap_script_fmt_pieces(f, &npieces);
	for (i = 0; i < npieces && !rc; i++) {
		if (!pc[i].conv) {
			rc = maptap_script_buf_add(out, text + pc[i].lit_off,
						   pc[i].lit_len);
			continue;
		}
		resolve(&pc[i], args, &ai, &s);
		rc = render_one(&s, &args[ai++], ops, out, err);
	}
	if (rc == -ENOMEM)
		maptap_script_error_set(err, MAPTAP_SCRIPT_E_NOMEM,
					"out of memory");
	return rc;
}

int maptap_script_print_value(const struct maptap_script_value *v,
			      struct maptap_script_buf *out)
{
	if (v->type == MAPTAP_SCRIPT_LONG)
		return maptap_script_buf_printf(out, "%" PRId64, v->u.l);
	if (v->type == MAPTAP_SCRIPT_STRING)
		return maptap_script_buf_add(out, v->u.s.p, v->u.s.len);
	return -EINVAL;
}
