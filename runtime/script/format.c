/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* format.c -- printf formats: compile once, check at pass 2, render.
 *
 * Parsing follows stap's translator (staptree.cxx,
 * print_format::string_to_components): "%%" and a '%' that ends the
 * format are literal percent signs; flags, then a width (digits or '*'),
 * then an optional '.' and precision (digits or '*'), then one of
 * "bcsmMdiouxXp".  Anything else is the parse error "invalid or missing
 * conversion specifier", and a format that ends inside a conversion is
 * "trailing incomplete print format conversion".  stap reads a single
 * flag; maptap reads any number, a superset that accepts every format
 * stap accepts.
 *
 * Rendering follows stap's runtime (runtime/vsprintf.c, _stp_vsnprintf),
 * which is the kernel's vsnprintf with every number 64-bit: "%#x" of 0 is
 * "0x0", '0' and a precision combine, "%p" is "%#x", "%c" with '#'
 * escapes, "%b" writes raw bytes, a '0' flag on %s/%m/%M appends a NUL.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <maptap/script_format.h>

/* Widths and precisions are clamped here when rendering, as stap clamps
 * them to its print buffer size. */
#define FMT_FIELD_MAX 65536

struct maptap_script_fmt {
	struct maptap_script_fmt_piece *pieces;
	size_t npieces;
	size_t nargs;
	enum maptap_script_type *arg_types;	/* [nargs] */
	char *text;				/* literal bytes */
	size_t text_len;
};

/* ----- compiling ----- */

struct parser {
	const char *p, *end;
	struct maptap_script_fmt *f;
	size_t cap_pieces, cap_text, cap_args;
};

static int grow_array(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 8;
	void *a;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	a = realloc(*arr, n * elem);
	if (!a)
		return -ENOMEM;
	*arr = a;
	*cap = n;
	return 0;
}

static int add_text(struct parser *ps, char c)
{
	struct maptap_script_fmt *f = ps->f;
	struct maptap_script_fmt_piece *last;

	if (grow_array((void **)&f->text, &ps->cap_text, f->text_len + 2, 1))
		return -ENOMEM;
	last = f->npieces ? &f->pieces[f->npieces - 1] : NULL;
	if (!last || last->conv) {
		if (grow_array((void **)&f->pieces, &ps->cap_pieces,
			       f->npieces + 1, sizeof(*f->pieces)))
			return -ENOMEM;
		last = &f->pieces[f->npieces++];
		memset(last, 0, sizeof(*last));
		last->width = last->precision = MAPTAP_SCRIPT_FMT_NONE;
		last->lit_off = f->text_len;
	}
	f->text[f->text_len++] = c;
	f->text[f->text_len] = '\0';
	last->lit_len++;
	return 0;
}

static int add_arg(struct parser *ps, enum maptap_script_type t)
{
	struct maptap_script_fmt *f = ps->f;

	if (grow_array((void **)&f->arg_types, &ps->cap_args, f->nargs + 1,
		       sizeof(*f->arg_types)))
		return -ENOMEM;
	f->arg_types[f->nargs++] = t;
	return 0;
}

static unsigned parse_flags(struct parser *ps)
{
	unsigned flags = 0;

	for (; ps->p < ps->end; ps->p++) {
		switch (*ps->p) {
		case '-':
			flags |= MAPTAP_SCRIPT_FMT_LEFT;
			break;
		case '+':
			flags |= MAPTAP_SCRIPT_FMT_PLUS;
			break;
		case ' ':
			flags |= MAPTAP_SCRIPT_FMT_SPACE;
			break;
		case '#':
			flags |= MAPTAP_SCRIPT_FMT_ALT;
			break;
		case '0':
			flags |= MAPTAP_SCRIPT_FMT_ZERO;
			break;
		default:
			return flags;
		}
	}
	return flags;
}

/* A number or '*' at ps->p; MAPTAP_SCRIPT_FMT_NONE when neither. */
static int parse_field(struct parser *ps)
{
	int v = 0;

	if (ps->p < ps->end && *ps->p == '*') {
		ps->p++;
		return MAPTAP_SCRIPT_FMT_STAR;
	}
	if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
		return MAPTAP_SCRIPT_FMT_NONE;
	for (; ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9'; ps->p++)
		if (v < FMT_FIELD_MAX)
			v = v * 10 + (*ps->p - '0');
	return v > FMT_FIELD_MAX ? FMT_FIELD_MAX : v;
}

static int parse_conversion(struct parser *ps, struct maptap_script_error *err)
{
	struct maptap_script_fmt_piece c = { 0 };
	struct maptap_script_fmt *f = ps->f;

	c.flags = parse_flags(ps);
	c.width = parse_field(ps);
	c.precision = MAPTAP_SCRIPT_FMT_NONE;
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		c.precision = parse_field(ps);
	}
	if (ps->p >= ps->end)
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_FORMAT,
				"trailing incomplete print format conversion");
	if (!strchr("bcsmMdiouxXp", *ps->p) || !*ps->p)
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_FORMAT,
				"invalid or missing conversion specifier");
	c.conv = *ps->p++;
	if ((c.width == MAPTAP_SCRIPT_FMT_STAR &&
	     add_arg(ps, MAPTAP_SCRIPT_LONG)) ||
	    (c.precision == MAPTAP_SCRIPT_FMT_STAR &&
	     add_arg(ps, MAPTAP_SCRIPT_LONG)) ||
	    add_arg(ps, c.conv == 's' ? MAPTAP_SCRIPT_STRING :
				       MAPTAP_SCRIPT_LONG) ||
	    grow_array((void **)&f->pieces, &ps->cap_pieces, f->npieces + 1,
		       sizeof(*f->pieces)))
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_NOMEM,
					       "out of memory");
	f->pieces[f->npieces++] = c;
	return 0;
}

static int parse(struct parser *ps, struct maptap_script_error *err)
{
	int rc;

	while (ps->p < ps->end) {
		if (*ps->p != '%') {
			rc = add_text(ps, *ps->p++);
		} else if (ps->p + 1 == ps->end || ps->p[1] == '%') {
			ps->p += ps->p + 1 == ps->end ? 1 : 2;
			rc = add_text(ps, '%');
		} else {
			ps->p++;
			rc = parse_conversion(ps, err);
			if (rc)
				return rc;
			continue;
		}
		if (rc)
			return maptap_script_error_set(err,
					MAPTAP_SCRIPT_E_NOMEM, "out of memory");
	}
	return 0;
}

int maptap_script_fmt_compile(const char *fmt, size_t len,
			      struct maptap_script_fmt **out,
			      struct maptap_script_error *err)
{
	struct parser ps = { .p = fmt, .end = fmt + len };
	int rc;

	ps.f = calloc(1, sizeof(*ps.f));
	if (!ps.f)
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_NOMEM,
					       "out of memory");
	rc = parse(&ps, err);
	if (!rc && !ps.f->text)
		rc = grow_array((void **)&ps.f->text, &ps.cap_text, 1, 1);
	if (rc) {
		if (rc == -ENOMEM)
			maptap_script_error_set(err, MAPTAP_SCRIPT_E_NOMEM,
						"out of memory");
		maptap_script_fmt_free(ps.f);
		return rc;
	}
	ps.f->text[ps.f->text_len] = '\0';
	*out = ps.f;
	return 0;
}

void maptap_script_fmt_free(struct maptap_script_fmt *f)
{
	if (!f)
		return;
	free(f->pieces);
	free(f->arg_types);
	free(f->text);
	free(f);
}

const struct maptap_script_fmt_piece *
maptap_script_fmt_pieces(const struct maptap_script_fmt *f, size_t *n)
{
	*n = f->npieces;
	return f->pieces;
}

const char *maptap_script_fmt_text(const struct maptap_script_fmt *f)
{
	return f->text;
}

size_t maptap_script_fmt_nargs(const struct maptap_script_fmt *f)
{
	return f->nargs;
}

enum maptap_script_type
maptap_script_fmt_arg_type(const struct maptap_script_fmt *f, size_t i)
{
	return i < f->nargs ? f->arg_types[i] : MAPTAP_SCRIPT_ANY;
}

int maptap_script_fmt_check(const struct maptap_script_fmt *f,
			    const enum maptap_script_type *types, size_t n,
			    size_t *bad_arg, struct maptap_script_error *err)
{
	size_t i;

	if (n != f->nargs) {
		if (bad_arg)
			*bad_arg = n;
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_FORMAT,
			"Wrong number of args to formatted print operator");
	}
	for (i = 0; i < n; i++) {
		if (types[i] == f->arg_types[i])
			continue;
		if (bad_arg)
			*bad_arg = i;
		return maptap_script_error_set(err, MAPTAP_SCRIPT_E_FORMAT,
				"type mismatch (%s vs. %s)",
				maptap_script_type_name(types[i]),
				maptap_script_type_name(f->arg_types[i]));
	}
	return 0;
}
