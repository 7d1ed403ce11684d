/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_parse.c -- fuzz target for the translator's passes 1 and 2.
 *
 * LLVMFuzzerTestOneInput() takes any bytes as a script, parses and (when
 * it parses) elaborates it, and throws the session away.  Diagnostics go
 * to /dev/null.  Built two ways: with clang -fsanitize=fuzzer by
 * fuzz-libfuzzer.sh, and with fuzz_main.c as a bounded stand-alone run
 * that works with any compiler.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "interp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tr_options o;
	struct tr_session s;
	struct src_file *f;
	struct tr_file *tf;
	FILE *null = fopen("/dev/null", "w");

	if (!null)
		return 0;
	memset(&o, 0, sizeof(o));
	o.last_pass = 2;
	tr_session_init(&s, &o);
	tr_interp_builtins(&s);
	s.err = s.out = null;
	s.no_tapsets = true;
	f = arena_alloc(&s.arena, sizeof(*f));
	f->name = "<fuzz>";
	f->text = arena_strndup(&s.arena, (const char *)data, size);
	f->len = size;
	tf = tr_parse_file(&s, f);
	if (!s.parse_errors) {
		tr_dump_file(&s, null, tf);
		if (tr_elaborate(&s, tf) == 0)
			tr_dump_elab(&s, null);
	}
	tr_session_fini(&s);
	fclose(null);
	return 0;
}
