/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run_probe.c -- test support: one probe handler at a test's stop
 * (run_probe.h). */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "interp.h"
#include "run_probe.h"

char *run_probe(const char *script, struct tr_target *tgt,
		const struct run_probe_limits *lim, long *errors)
{
	struct tr_options o;
	struct tr_session s;
	struct src_file f = { .name = "<test>" };
	struct tr_file *tf;
	struct interp I;
	char *out = NULL;
	size_t outlen = 0;
	FILE *mem = open_memstream(&out, &outlen);

	*errors = -1;
	if (!mem)
		return NULL;
	memset(&o, 0, sizeof(o));
	o.last_pass = 5;
	tr_session_init(&s, &o);
	tr_interp_builtins(&s);
	s.err = mem;
	if (lim && lim->maxbacktrace)
		s.limits.maxbacktrace = lim->maxbacktrace;
	if (lim && lim->maxaction)
		s.limits.maxaction = lim->maxaction;
	f.text = script;
	f.len = strlen(script);
	tf = tr_parse_file(&s, &f);
	if (!s.parse_errors && tr_elaborate(&s, tf) >= 0 &&
	    tr_interp_init(&I, &s, mem) >= 0) {
		I.tgt = tgt;
		tr_interp_run_probe(&I, s.elab->probes.v[0]);
		tr_interp_flush(&I);
		*errors = I.errors;
		tr_interp_fini(&I);
	}
	tr_session_fini(&s);
	fclose(mem);
	return out;
}
