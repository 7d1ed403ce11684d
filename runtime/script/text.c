/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* text.c -- text_str(), text_strn() and string_quoted(): a string with
 * everything that is not printable ASCII escaped, as stap's runtime
 * escapes it (runtime/linux/string.c, _stp_text_str and
 * _stp_decode_utf8): C escapes for \a \b \f \n \r \t \v \" \\, \uXXXX or
 * \UXXXXXXXX for valid UTF-8, \ooo for any other byte; never a partial
 * escape; when quoted and cut short, "..." after the closing quote.
 */
#include <stdbool.h>
#include <string.h>
#include "ctx_priv.h"
#include <maptap/script_string.h>

/* Decode one UTF-8 sequence at S (N bytes left).  Returns its length and
 * the code point in *C; a byte that does not start a valid, shortest,
 * non-surrogate sequence up to U+10FFFF comes back alone, as itself. */
static int decode_utf8(const unsigned char *s, size_t n, unsigned *c)
{
	unsigned b = s[0], v;
	int len, i;

	*c = b;
	if (b < 0x80)
		return 1;
	if ((b & 0xe0) == 0xc0)
		len = 2, v = b & 0x1f;
	else if ((b & 0xf0) == 0xe0)
		len = 3, v = b & 0x0f;
	else if ((b & 0xf8) == 0xf0)
		len = 4, v = b & 0x07;
	else
		return 1;
	if ((size_t)len > n)
		return 1;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 1;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if ((v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff || v < 0x80 ||
	    (len == 3 && v < 0x800) || (len == 4 && v < 0x10000))
		return 1;
	*c = v;
	return len;
}

static char c_escape(unsigned c)
{
	static const char from[] = "\a\b\f\n\r\t\v\"\\";
	static const char to[] = "abfnrtv\"\\";
	const char *p = c ? strchr(from, (int)c) : NULL;

	return p ? to[p - from] : 0;
}

/* Escape code point C (LEN input bytes) into E; returns its length. */
static int escape(unsigned c, int len, char e[11])
{
	static const char hex[] = "0123456789abcdef";
	int n, i;

	if (len > 1) {
		n = c <= 0xffff ? 6 : 10;
		e[0] = '\\';
		e[1] = c <= 0xffff ? 'u' : 'U';
		for (i = 0; i < n - 2; i++)
			e[2 + i] = hex[(c >> (4 * (n - 3 - i))) & 15];
		return n;
	}
	if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
		e[0] = c;
		return 1;
	}
	e[0] = '\\';
	if (c_escape(c)) {
		e[1] = c_escape(c);
		return 2;
	}
	e[1] = '0' + ((c >> 6) & 3);
	e[2] = '0' + ((c >> 3) & 7);
	e[3] = '0' + (c & 7);
	return 4;
}

/* text_strn() and text_buffer(): BUFFER escapes a NUL byte (\000) and
 * goes on, as stap's _stp_text_str() does for its buffer functions;
 * otherwise a NUL ends the input. */
static int text_escape(struct maptap_script_ctx *ctx, const char *s,
		       size_t slen, int64_t len, int quoted, bool buffer,
		       struct maptap_script_buf *out)
{
	size_t max = ctx_maxlen(ctx), in = slen < max ? slen : max;
	int64_t room = len <= 0 || (uint64_t)len > max ? (int64_t)max : len;
	const unsigned char *p = (const unsigned char *)s;
	unsigned c = 0;
	bool cut = false;
	char e[11];

	maptap_script_buf_clear(out);
	if (quoted) {
		room = (room > 5 ? room : 5) - 2;
		if (maptap_script_buf_addc(out, '"'))
			goto nomem;
	}
	while (in > 0) {
		int n = decode_utf8(p, in, &c), elen;

		if ((c == 0 && !buffer) || room <= 0) {
			cut = c != 0 || buffer;	/* input is left */
			break;
		}
		p += n;
		in -= n;
		elen = escape(c, n, e);
		if (room < elen) {
			/* as stap: a last character that does not fit is
			 * dropped without the "..." mark */
			cut = in > 0;
			break;
		}
		if (maptap_script_buf_add(out, e, elen))
			goto nomem;
		room -= elen;
	}
	if (quoted && cut) {
		/* overwrite the last bytes so that the closing quote and
		 * the dots end exactly at the length limit */
		maptap_script_buf_truncate(out, out->len + room - 3);
		if (maptap_script_buf_adds(out, "\"..."))
			goto nomem;
	} else if (quoted && maptap_script_buf_addc(out, '"')) {
		goto nomem;
	}
	return 0;
nomem:
	return maptap_script_error_set(&ctx->err, MAPTAP_SCRIPT_E_NOMEM,
				       "out of memory");
}

int maptap_script_text_strn(struct maptap_script_ctx *ctx, const char *s,
			    size_t slen, int64_t len, int quoted,
			    struct maptap_script_buf *out)
{
	return text_escape(ctx, s, slen, len, quoted, false, out);
}

int maptap_script_text_buffer(struct maptap_script_ctx *ctx, const char *s,
			      size_t slen, int64_t len,
			      struct maptap_script_buf *out)
{
	return text_escape(ctx, s, slen, len, 1, true, out);
}
