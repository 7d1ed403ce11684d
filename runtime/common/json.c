/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* json.c -- the one JSON string writer of libmaptap, for the event log's
 * JSON Lines (output/event.c) and the report (report/report_print.c).
 * Moved from output/event.c, whose only tie to report/ it was.
 */
#include <config.h>

#include "json.h"

/* A JSON string of BYTES[0..LEN): RFC 8259 escapes; a byte that does not
 * start a valid UTF-8 sequence is written as \u00XX of its value. */
void mt_json_str(FILE *fp, const char *bytes, size_t len)
{
	const unsigned char *p = (const unsigned char *)bytes, *end = p + len;

	fputc('"', fp);
	while (p < end) {
		unsigned c = *p;
		size_t n = 0, i;

		if (c == '"' || c == '\\') {
			fputc('\\', fp);
			fputc((int)c, fp);
			p++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(fp, "\\u%04x", c);
			p++;
			continue;
		}
		if (c < 0x80) {
			fputc((int)c, fp);
			p++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3;
		for (i = 1; n && i <= n; i++)
			if (p + i >= end || (p[i] & 0xc0) != 0x80)
				n = 0;
		if (!n) {
			fprintf(fp, "\\u%04x", c);
			p++;
			continue;
		}
		fwrite(p, 1, n + 1, fp);
		p += n + 1;
	}
	fputc('"', fp);
}
