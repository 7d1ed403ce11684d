/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sdt_cvar_table.c -- context variables of SDT markers at pass 2: which
 * a marker offers ($arg1..$argN of its note's argument descriptors,
 * $$name, $$provider, $$parms), their ids and types, and the list -L
 * prints.  Pass 5 reads their values (interp/sdt_vars.c).  Split from
 * interp/sdt_vars.c, whose pass-2 half it was; the code is as it was
 * there.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cvar_table.h"
#include "sdt_points.h"

int tr_sdt_cvar_lookup(const struct tr_dprobe *dp, const char *name,
		       enum tr_type *type, const char **why)
{
	const struct tr_sdt *m = dp->sdt;
	char *end;
	long n;

	*type = TY_STRING;
	if (!strcmp(name, "$$name"))
		return TR_SDT_CV_NAME;
	if (!strcmp(name, "$$provider"))
		return TR_SDT_CV_PROVIDER;
	if (!strcmp(name, "$$parms") || !strcmp(name, "$$vars"))
		return TR_SDT_CV_PARMS;
	*type = TY_LONG;
	if (strncmp(name, "$arg", 4) || name[4] < '1' || name[4] > '9') {
		*why = "target variables of a marker are $arg1..$argN, "
		       "$$name, $$provider, $$parms and $$vars";
		return -1;
	}
	n = strtol(name + 4, &end, 10);
	if (*end || n < 1 || n > m->nargs) {
		*why = "invalid argument number: the marker has fewer "
		       "arguments";
		return -1;
	}
	if (m->bad >> (n - 1) & 1) {
		*why = "cannot read this marker argument: its operand is "
		       "one maptap does not know (a floating-point "
		       "register?)";
		return -1;
	}
	return TR_SDT_CVAR_BASE + (int)n;
}

const char *tr_sdt_cvar_list(struct tr_session *s, const struct tr_dprobe *dp)
{
	const struct tr_sdt *m = dp->sdt;
	const char *out = "";
	int i;

	for (i = 1; m && i <= m->nargs; i++)
		if (!(m->bad >> (i - 1) & 1))
			out = arena_printf(&s->arena, "%s%s$arg%d:long", out,
					   *out ? " " : "", i);
	return out;
}
