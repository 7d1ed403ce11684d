/* SPDX-License-Identifier: GPL-2.0-or-later */
/* listing.c -- maptap -l / -L (stap(1)'s listing mode): after pass 2 of
 * "probe POINT ? {}", each concrete probe point by the name stap gives
 * it -- the alias it came through ("syscall.mmap2" for "syscall.mm*"),
 * else the point itself (process("/usr/bin/ls").function("main@ls.c:12"))
 * -- and with -L its variables: the locals of the alias prologue, then
 * the target variables, each NAME:TYPE.  Which target variables a probe
 * has comes from one callback per probe kind (vars_of() below), so a
 * kind that learns new variables adds them there; a breakpoint probe
 * lists the DWARF variables in scope at its address (maptap_tvar_list()).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include <maptap/tvar.h>
#include <maptap/uprobe.h>

#include "arena.h"
#include "cvar_table.h"
#include "elaborate.h"
#include "listing.h"

struct line_buf {
	struct tr_session *s;
	char *text;
};

static void add_var(const char *name, enum tr_type type, void *arg)
{
	struct line_buf *b = arg;

	b->text = arena_printf(&b->s->arena, "%s %s:%s", b->text, name,
			       tr_type_name(type));
}

/* add_var() but for $return, which DWARF gave with its type */
static void add_var_typed(const char *name, enum tr_type type, void *arg)
{
	if (strcmp(name, "$return"))
		add_var(name, type, arg);
}

static int add_param(const char *name, const char *type, void *arg)
{
	struct line_buf *b = arg;

	b->text = arena_printf(&b->s->arena, "%s $%s:%s", b->text, name,
			       type);
	return 0;
}

/* The target variables of DP, by kind. */
static void vars_of(struct tr_session *s, const struct tr_dprobe *dp,
		    struct line_buf *b)
{
	const char *sdt;

	switch (dp->kind) {
	case PK_UPROBE:
		if (dp->sdt) {
			sdt = tr_sdt_cvar_list(s, dp);
			if (*sdt)
				b->text = arena_printf(&s->arena, "%s %s",
						       b->text, sdt);
			return;
		}
		/* .function/.statement: the DWARF variables in scope at
		 * the probe address ($return first in .return, typed),
		 * as stap -L; without DWARF, the untyped $return and
		 * .plt's $$name */
		if (!dp->up_abs && !dp->up_plt && dp->up_module &&
		    maptap_tvar_list(dp->up_module, dp->up_vaddr,
				     dp->is_return, add_param, b) > 0) {
			tr_cvar_foreach(dp, add_var_typed, b);
			return;
		}
		tr_cvar_foreach(dp, add_var, b);
		return;
	case PK_SYSCALL:
	case PK_EVENT:
		tr_cvar_foreach(dp, add_var, b);
		return;
	default:
		return;		/* begin, end, timers, process.*, perf */
	}
}

static char *line_of(struct tr_session *s, const struct tr_dprobe *dp,
		     bool vars)
{
	struct line_buf b = { s, NULL };
	int i;

	b.text = arena_strdup(&s->arena, dp->alias ? dp->alias : dp->name);
	if (!vars)
		return b.text;
	for (i = 0; i < dp->locals.n; i++) {
		const struct tr_sym *l = dp->locals.v[i];

		if (l->type != TY_UNKNOWN && l->arity == 0)
			add_var(l->name, l->type, &b);
	}
	vars_of(s, dp, &b);
	return b.text;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int tr_list_probes(struct tr_session *s, FILE *out, bool vars)
{
	const struct ptr_vec *p = &s->elab->probes;
	char **lines;
	int i, m = 0, n = 0;

	if (!p->n)
		return 0;
	lines = arena_alloc(&s->arena, sizeof(*lines) * (size_t)p->n);
	for (i = 0; i < p->n; i++) {
		const struct tr_dprobe *dp = p->v[i];

		/* the point's own probes, not a tapset's (probe init) */
		if (dp->tok && dp->tok->loc.file &&
		    dp->tok->loc.file->is_tapset)
			continue;
		lines[m++] = line_of(s, dp, vars);
	}
	qsort(lines, (size_t)m, sizeof(*lines), cmp_str);
	for (i = 0; i < m; i++) {
		if (i && !strcmp(lines[i], lines[i - 1]))
			continue;
		fprintf(out, "%s\n", lines[i]);
		n++;
	}
	return n;
}
