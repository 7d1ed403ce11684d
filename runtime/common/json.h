/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* json.h -- JSON output shared by the layers that print (output/,
 * report/).  No state; FP is the caller's. */
#ifndef MT_JSON_H
#define MT_JSON_H

#include <stddef.h>
#include <stdio.h>

/* FP gets BYTES[0..LEN) as a JSON string: RFC 8259 escapes; a byte that
 * does not start a valid UTF-8 sequence is written as \u00XX of its
 * value.  Errors are FP's (ferror(3)). */
void mt_json_str(FILE *fp, const char *bytes, size_t len);

#endif
