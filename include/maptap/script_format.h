/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* maptap/script_format.h -- the printf engine of the SystemTap script
 * language: printf, sprintf and the formatting part of print/println.
 *
 * A format is compiled once (at pass 2 or 3) into a list of literal runs
 * and conversions; the same compiled format checks the argument types at
 * pass 2 and renders at run time without parsing again.
 *
 * Conversions (SystemTap Language Reference, "printf"; stap(1)):
 *   %d %i    signed decimal        %u       unsigned decimal
 *   %x %X    unsigned hex          %o       unsigned octal
 *   %s       string                %c       the byte whose value is given
 *   %p       address, as %#x       %b       the value's raw bytes: width 1,
 *                                            2, 4 or 8 (default 8), host order
 *   %m       target memory as text: precision bytes (default 1) at the
 *            address given, read through a caller callback
 *   %M       the same memory as hex digits, two per byte
 *   %%       a '%'
 * with the flags '-' '+' ' ' '#' '0', a width and a precision (".N"),
 * each a number or '*' (taken from a long argument before the value).
 * Every number is 64-bit, and as in stap there are no length modifiers:
 * "%ld" is an invalid conversion.  "%%" and a '%' that ends the format
 * are a literal '%'.  Not thread-safe per object; distinct objects are
 * independent.
 */
#ifndef MAPTAP_SCRIPT_FORMAT_H
#define MAPTAP_SCRIPT_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <maptap/script_error.h>
#include <maptap/script_value.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)	/* libmaptap is built -fvisibility=hidden */
#endif

/* Conversion flags, as bits. */
enum maptap_script_fmt_flag {
	MAPTAP_SCRIPT_FMT_LEFT = 1 << 0,	/* '-' */
	MAPTAP_SCRIPT_FMT_PLUS = 1 << 1,	/* '+' */
	MAPTAP_SCRIPT_FMT_SPACE = 1 << 2,	/* ' ' */
	MAPTAP_SCRIPT_FMT_ALT = 1 << 3,		/* '#' */
	MAPTAP_SCRIPT_FMT_ZERO = 1 << 4,	/* '0' */
};

/* Width or precision: absent, a number, or '*'. */
#define MAPTAP_SCRIPT_FMT_NONE (-1)
#define MAPTAP_SCRIPT_FMT_STAR (-2)

/* One piece of a compiled format.  CONV is 0 for a literal run
 * FMT_TEXT[LIT_OFF .. LIT_OFF + LIT_LEN) (with "%%" already folded into a
 * '%'), else the conversion letter ('d', 'i', 'u', 'x', 'X', 'o', 's',
 * 'c', 'p', 'b', 'm', 'M'). */
struct maptap_script_fmt_piece {
	char conv;
	unsigned flags;		/* enum maptap_script_fmt_flag bits */
	int width;		/* >= 0, MAPTAP_SCRIPT_FMT_NONE or _STAR */
	int precision;		/* like width */
	size_t lit_off;		/* literal pieces only, into the text */
	size_t lit_len;
};

/* A compiled format: owned by the caller, immutable after compile. */
struct maptap_script_fmt;

/* Compile the format FMT[0..LEN) (stap parses formats at pass 1, in
 * staptree.cxx print_format::string_to_components).  Returns 0 and *OUT;
 * -EINVAL with ERR set to stap's parse error text: "invalid or missing
 * conversion specifier" for an unknown conversion letter (length
 * modifiers included), "trailing incomplete print format conversion"
 * when FMT ends inside a conversion; -ENOMEM.  Widths and precisions
 * above 65536 are clamped to 65536. */
int maptap_script_fmt_compile(const char *fmt, size_t len,
			      struct maptap_script_fmt **out,
			      struct maptap_script_error *err);

/* Free F (NULL is fine). */
void maptap_script_fmt_free(struct maptap_script_fmt *f);

/* The pieces of F, in order; *N receives their count.  Valid while F is. */
const struct maptap_script_fmt_piece *
maptap_script_fmt_pieces(const struct maptap_script_fmt *f, size_t *n);

/* The literal text a literal piece points into ('%%' folded). */
const char *maptap_script_fmt_text(const struct maptap_script_fmt *f);

/* The number of arguments F consumes: one per conversion plus one per
 * '*' width or precision. */
size_t maptap_script_fmt_nargs(const struct maptap_script_fmt *f);

/* The type argument I (0-based) must have: MAPTAP_SCRIPT_STRING for %s,
 * MAPTAP_SCRIPT_LONG for everything else (numbers, %c, %p, %b, the
 * address of %m/%M, and '*' values).  MAPTAP_SCRIPT_ANY when I >= nargs. */
enum maptap_script_type
maptap_script_fmt_arg_type(const struct maptap_script_fmt *f, size_t i);

/* Pass-2 check of a call's arguments: N arguments of types TYPES against
 * F (stap: elaborate.cxx, typeresolution_info::visit_print_format).
 * Returns 0; -EINVAL with ERR set when the count differs ("Wrong number
 * of args to formatted print operator") or an argument has the wrong
 * type ("type mismatch (string vs. long)": the argument's type, then the
 * type the conversion wants).
 * *BAD_ARG receives the index of the offending argument (N when the
 * count is wrong), for the caller's caret; BAD_ARG may be NULL. */
int maptap_script_fmt_check(const struct maptap_script_fmt *f,
			    const enum maptap_script_type *types, size_t n,
			    size_t *bad_arg, struct maptap_script_error *err);

/* How the renderer reads target memory for %m and %M: copy LEN bytes at
 * address ADDR of the traced process into DST; return 0 or a negative
 * errno.  NULL READ_MEM: %m/%M fail with -EFAULT. */
struct maptap_script_fmt_ops {
	int (*read_mem)(void *arg, uint64_t addr, void *dst, size_t len);
	void *arg;
};

/* Render F with ARGS[0..N) (types as fmt_arg_type() says; N must be
 * nargs) and append the text to OUT.  OPS may be NULL.  The output is
 * stap's byte for byte (runtime/vsprintf.c): "%#x" of 0 is "0x0", "%#o"
 * prefixes a '0', a precision on a number is a minimum digit count and
 * combines with the '0' flag, a precision on %s truncates, "%#c" escapes
 * quotes, backslashes and unprintable bytes (\n, \ooo), "%b" writes raw
 * bytes padded with NULs, and a '0' flag on %s, %m or %M appends one NUL
 * byte (so OUT may hold NULs).  A '*' width below 0 left-justifies.
 * The result is not cut to MAXSTRINGLEN (sprintf's caller does that with
 * maptap_script_buf_truncate()).  Returns 0; -EINVAL (ERR set) on a
 * wrong count or type; -EFAULT (ERR set) when %m/%M memory cannot be
 * read; -ENOMEM. */
int maptap_script_fmt_render(const struct maptap_script_fmt *f,
			     const struct maptap_script_value *args, size_t n,
			     const struct maptap_script_fmt_ops *ops,
			     struct maptap_script_buf *out,
			     struct maptap_script_error *err);

/* Append V as print(), println() and sprint() show a value: a long in
 * decimal, a string as is.  An aggregate is not printable this way (the
 * translator prints @hist_* with maptap_script_stat_print_hist()).
 * Returns 0, -EINVAL for a stats or wildcard value, -ENOMEM. */
int maptap_script_print_value(const struct maptap_script_value *v,
			      struct maptap_script_buf *out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
