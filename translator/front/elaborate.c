/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elaborate.c -- pass 2: tapsets, probe points, symbols.
 *
 * As stap's elaborate.cxx: the script's probe points are matched against
 * probe aliases (the script's and the tapsets') and the built-in probe
 * families; every identifier is bound to a local, a global or a
 * function; tapset files are pulled in when the script uses something
 * they define.  Types are inferred afterwards (types.c).
 */
#include <config.h>

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <maptap/profile.h>
#include <maptap/syscalls.h>
#include <maptap/uprobe.h>

#include "cvar_table.h"
#include "dwvar_bind.h"
#include "elab_int.h"
#include "sdt_points.h"
#include "tapset_index.h"

struct scope {
	struct elab *e;
	struct tr_file *file;
	struct ptr_vec *locals;
	struct tr_func *func;
	const struct tr_dprobe *dp;	/* the probe being resolved */
};

/* ---- cloning (each derived probe owns its body) ---- */

static void clone_list(struct tr_session *s, struct ptr_vec *dst,
		       const struct ptr_vec *src)
{
	int i;

	memset(dst, 0, sizeof(*dst));
	for (i = 0; i < src->n; i++)
		vec_push(&s->arena, dst, tr_clone(s, src->v[i]));
}

struct node *tr_clone(struct tr_session *s, const struct node *n)
{
	struct node *c;

	if (!n)
		return NULL;
	c = arena_alloc(&s->arena, sizeof(*c));
	*c = *n;
	c->a = tr_clone(s, n->a);
	c->b = tr_clone(s, n->b);
	c->c = tr_clone(s, n->c);
	c->d = tr_clone(s, n->d);
	clone_list(s, &c->list, &n->list);
	if (n->fe) {
		struct foreach_info *fe = arena_alloc(&s->arena, sizeof(*fe));

		*fe = *n->fe;
		clone_list(s, &fe->keys, &n->fe->keys);
		clone_list(s, &fe->slice, &n->fe->slice);
		fe->value = tr_clone(s, n->fe->value);
		fe->array = tr_clone(s, n->fe->array);
		fe->limit = tr_clone(s, n->fe->limit);
		fe->body = tr_clone(s, n->fe->body);
		c->fe = fe;
	}
	return c;
}

/* ---- symbols ---- */

static struct tr_sym *find_in(struct ptr_vec *v, const char *name)
{
	int i;

	for (i = 0; v && i < v->n; i++) {
		struct tr_sym *sym = v->v[i];

		if (!strcmp(sym->name, name))
			return sym;
	}
	return NULL;
}

static void add_global(struct elab *e, struct tr_sym *g)
{
	int i;

	for (i = 0; i < e->out->globals.n; i++)
		if (e->out->globals.v[i] == g)
			return;
	g->slot = e->out->globals.n;
	vec_push(&e->s->arena, &e->out->globals, g);
}

static void use_file(struct elab *e, struct tr_file *f);

static struct tr_sym *find_global(struct elab *e, struct tr_file *from,
				  const char *name)
{
	int i;

	tr_need_name(e, TR_DEF_GLOBAL, name);
	for (i = 0; i < e->files.n; i++) {
		struct tr_file *f = e->files.v[i];
		struct tr_sym *g = f ? find_in(&f->globals, name) : NULL;

		if (!g || (g->is_private && f != from))
			continue;
		use_file(e, f);
		add_global(e, g);
		return g;
	}
	return NULL;
}

static struct tr_func *find_function(struct elab *e, struct tr_file *from,
				     const char *name, bool script_only)
{
	int i, k;

	if (!script_only)
		tr_need_name(e, TR_DEF_FUNCTION, name);
	for (i = 0; i < e->files.n; i++) {
		struct tr_file *f = e->files.v[i];

		if (script_only && f != e->script)
			break;
		for (k = 0; f && k < f->functions.n; k++) {
			struct tr_func *fn = f->functions.v[k];

			if (strcmp(fn->name, name) ||
			    (fn->is_private && f != from))
				continue;
			return fn;
		}
	}
	return NULL;
}

static void use_function(struct elab *e, struct tr_func *f)
{
	if (f->used)
		return;
	f->used = true;
	use_file(e, f->file);
	vec_push(&e->s->arena, &e->out->functions, f);
	vec_push(&e->s->arena, &e->func_queue, f);
}

static struct tr_sym *new_local(struct scope *sc, const struct token *tok,
				const char *name)
{
	struct tr_sym *sym = arena_alloc(&sc->e->s->arena, sizeof(*sym));

	sym->name = name;
	sym->tok = tok;
	sym->scope = SYM_LOCAL;
	sym->slot = sc->locals->n;
	vec_push(&sc->e->s->arena, sc->locals, sym);
	return sym;
}

/* A scalar name: a local, a global, or a new local. */
static struct tr_sym *bind_var(struct scope *sc, struct node *n)
{
	struct tr_sym *sym = find_in(sc->locals, n->str);

	if (sym)
		return sym;
	sym = find_global(sc->e, sc->file, n->str);
	if (sym)
		return sym;
	return new_local(sc, n->tok, n->str);
}

static struct tr_sym *bind_array(struct scope *sc, struct node *n)
{
	struct tr_sym *sym = find_global(sc->e, sc->file, n->str);

	if (!sym)
		tr_sema_error(sc->e->s, n->tok, "array locals not supported, "
			      "missing global declaration?");
	return sym;
}

static void mark(struct tr_sym *sym, bool read, bool written)
{
	if (!sym)
		return;
	sym->read |= read;
	sym->written |= written;
}

static void resolve(struct scope *sc, struct node *n, bool lv);

static void resolve_list(struct scope *sc, struct ptr_vec *v)
{
	int i;

	for (i = 0; i < v->n; i++)
		if (v->v[i])
			resolve(sc, v->v[i], false);
}

/* The value of @defined(X): a target variable is defined when the
 * probe point has it (cvar_table.c), or its DWARF has it with a location at
 * the probe's address (dwvar_bind.c). */
static bool defined_value(const struct scope *sc, const struct node *n)
{
	enum tr_type t;
	const char *why;

	if (n->a->kind == N_TARGET &&
	    tr_dwvar_applies(sc->e->s, sc->dp, n->a)) {
		struct node *probe = node_new(sc->e->s, N_TARGET, n->tok);
		char *err = NULL;
		bool ok;

		*probe = *n->a;	/* bound, then dropped: a trial */
		resolve_list((struct scope *)sc, &probe->list);
		ok = tr_dwvar_bind(sc->e->s, (struct tr_dprobe *)sc->dp,
				   probe, false, &err) == 0;
		if (ok && probe->num > 0)	/* no entry slot for a trial */
			((struct tr_dprobe *)sc->dp)->up_entry.n--;
		free(err);
		return ok;
	}
	if (n->a->kind == N_TARGET)
		return tr_cvar_lookup(sc->dp, n->a->str, &t, &why) >= 0;
	return n->a->kind != N_EMBEDDED_EXPR;
}

/* $name of a probe on a traced process: bound to its DWARF variable
 * (dwvar_bind.c; N->aux), or to its context variable id (in NUM), and
 * typed now. */
static void resolve_target(struct scope *sc, struct node *n, bool lv)
{
	const char *why;
	int id;

	if (lv && (n->tok->text[0] == '$' || !strcmp(n->tok->text, "@cast"))
	    && (tr_dwvar_applies(sc->e->s, sc->dp, n) ||
		(sc->dp && sc->dp->kind == PK_UPROBE))) {
		tr_sema_error(sc->e->s, n->tok, "write to target variable "
			      "not permitted; need stap -g (guru mode, "
			      "which maptap does not have)");
		return;
	}
	if (tr_dwvar_applies(sc->e->s, sc->dp, n)) {
		char *err = NULL;
		bool addr = n->op == OP_TARGET_ADDR;

		resolve_list(sc, &n->list);
		if (n->a)
			resolve(sc, n->a, false);
		if (tr_dwvar_bind(sc->e->s, (struct tr_dprobe *)sc->dp, n,
				  addr, &err))
			tr_sema_error(sc->e->s, n->tok, "%s",
				      err ? err : "out of memory");
		free(err);
		return;
	}
	id = tr_cvar_lookup(sc->dp, n->str, &n->type, &why);
	if (id < 0) {
		if (why)
			tr_sema_error(sc->e->s, n->tok, "%s", why);
		else	/* the shape of stap's dwarf message */
			tr_sema_error(sc->e->s, n->tok, "unable to find local "
				      "'%s', (alternatives: see "
				      "docs/probes.md)", n->str + 1);
		return;
	}
	if (lv) {
		tr_sema_error(sc->e->s, n->tok, "'%s' is read-only", n->str);
		return;
	}
	n->num = id;
}

/* Fold `@defined(x) ? a : b` and `if (@defined(x)) ...` so that the
 * unresolvable branch is never elaborated, as stap does. */
static bool fold_defined(struct scope *sc, struct node *n)
{
	struct node *c = n->a;
	bool neg = false, v;

	if (c->kind == N_UNARY && c->op == OP_NOT) {
		neg = true;
		c = c->a;
	}
	if (c->kind != N_DEFINED)
		return false;
	v = defined_value(sc, c) != neg;
	if (n->kind == N_TERNARY) {
		*n = *(v ? n->b : n->c);
	} else if (v) {
		*n = *n->b;
	} else if (n->c) {
		*n = *n->c;
	} else {
		struct node *null = node_new(sc->e->s, N_NULL, n->tok);

		*n = *null;
	}
	resolve(sc, n, false);
	return true;
}

static void resolve_call(struct scope *sc, struct node *n)
{
	struct elab *e = sc->e;
	struct tr_func *f = find_function(e, sc->file, n->str, true);
	const struct tr_builtin *b = NULL;

	if (!f)
		b = tr_builtin_find(e->s, n->str);
	if (!f && !b)
		f = find_function(e, sc->file, n->str, false);
	resolve_list(sc, &n->list);
	if (b) {
		if (n->list.n < b->min_args || n->list.n > b->max_args)
			tr_sema_error(e->s, n->tok, "Wrong number of arguments "
				      "to function '%s'", n->str);
		n->builtin = b->id;
		if (tr_builtin_at_stop(e->s, b))
			e->out->at_stop = true;
		return;
	}
	if (!f) {
		tr_sema_error(e->s, n->tok, "unresolved function");
		return;
	}
	if (f->params.n != n->list.n) {
		tr_sema_error(e->s, n->tok, "Wrong number of arguments to "
			      "function '%s'", n->str);
		return;
	}
	if (f->has_embedded)
		tr_sema_error(e->s, n->tok, "function '%s' is embedded C "
			      "(%s), which maptap does not run", n->str,
			      f->file->src->name);
	n->func = f;
	use_function(e, f);
}

static void resolve_foreach(struct scope *sc, struct node *n)
{
	struct foreach_info *fe = n->fe;
	int i;

	if (fe->array->kind == N_HIST)
		resolve(sc, fe->array, false);
	else
		fe->array->sym = bind_array(sc, fe->array);
	mark(fe->array->sym, true, false);
	for (i = 0; i < fe->keys.n; i++) {
		struct node *k = fe->keys.v[i];

		k->sym = bind_var(sc, k);
		mark(k->sym, false, true);
	}
	if (fe->value) {
		fe->value->sym = bind_var(sc, fe->value);
		mark(fe->value->sym, false, true);
	}
	resolve_list(sc, &fe->slice);
	if (fe->limit)
		resolve(sc, fe->limit, false);
	resolve(sc, fe->body, false);
}

static void resolve_expr(struct scope *sc, struct node *n, bool lv)
{
	struct tr_session *s = sc->e->s;

	switch (n->kind) {
	case N_VAR:
		n->sym = bind_var(sc, n);
		mark(n->sym, !lv, lv);
		break;
	case N_INDEX:
		n->sym = bind_array(sc, n);
		mark(n->sym, !lv, lv);
		resolve_list(sc, &n->list);
		break;
	case N_CALL:
		resolve_call(sc, n);
		break;
	case N_ASSIGN:
		resolve(sc, n->a, true);
		if (n->op != OP_ASSIGN && n->a->sym)
			n->a->sym->read = true;
		resolve(sc, n->b, false);
		break;
	case N_STATS_ADD:
		resolve(sc, n->a, true);
		resolve(sc, n->b, false);
		break;
	case N_PRE:
	case N_POST:
		resolve(sc, n->a, true);
		mark(n->a->sym, true, true);
		break;
	case N_TERNARY:
		if (fold_defined(sc, n))
			return;
		resolve(sc, n->a, false);
		resolve(sc, n->b, false);
		resolve(sc, n->c, false);
		break;
	case N_IN:
		n->a->sym = bind_array(sc, n->a);
		mark(n->a->sym, true, false);
		resolve_list(sc, &n->list);
		break;
	case N_DEFINED: {
		struct node *num = node_new(s, N_NUM, n->tok);

		num->num = defined_value(sc, n);
		*n = *num;
		break;
	}
	case N_TARGET:
		resolve_target(sc, n, lv);
		break;
	case N_UNARY:
		if (n->op == OP_ADDR && n->a->kind != N_TARGET) {
			tr_sema_error(s, n->tok, "'&' needs a target variable");
			break;
		}
		if (n->op == OP_ADDR)	/* resolve_target(): its address */
			n->a->op = OP_TARGET_ADDR;
		resolve(sc, n->a, false);
		break;
	case N_ENTRY:
		resolve(sc, n->a, false);
		if (sc->dp && sc->dp->kind == PK_UPROBE && sc->dp->is_return) {
			char *err = NULL;

			if (tr_dwvar_entry_slot(s, (struct tr_dprobe *)sc->dp,
						n, &err))
				tr_sema_error(s, n->tok, "%s", err ? err :
					      "out of memory");
			free(err);
		}
		break;
	case N_EMBEDDED_EXPR:
		tr_sema_error(s, n->tok, "embedded C expressions are not "
			      "supported by maptap");
		break;
	default:
		if (n->a)
			resolve(sc, n->a, false);
		if (n->b)
			resolve(sc, n->b, false);
		if (n->c)
			resolve(sc, n->c, false);
		resolve_list(sc, &n->list);
	}
}

static void resolve(struct scope *sc, struct node *n, bool lv)
{
	struct tr_file *saved = sc->file;

	if (n->file)
		sc->file = n->file;
	switch (n->kind) {
	case N_FOREACH:
		resolve_foreach(sc, n);
		break;
	case N_IF:
		if (fold_defined(sc, n))
			break;
		resolve(sc, n->a, false);
		resolve(sc, n->b, false);
		if (n->c)
			resolve(sc, n->c, false);
		break;
	case N_DELETE:
		resolve(sc, n->a, true);
		break;
	case N_TRY:
		resolve(sc, n->a, false);
		if (n->c) {
			n->c->sym = bind_var(sc, n->c);
			mark(n->c->sym, false, true);
		}
		resolve(sc, n->b, false);
		break;
	case N_RETURN:
		if (!sc->func)
			tr_sema_error(sc->e->s, n->tok, "found 'return' not "
				      "in function context");
		if (n->a)
			resolve(sc, n->a, false);
		break;
	case N_EMBEDDED:
		tr_sema_error(sc->e->s, n->tok, "embedded C code is not "
			      "supported by maptap");
		break;
	case N_NEXT:
		if (sc->func)
			tr_sema_error(sc->e->s, n->tok, "found 'next' in "
				      "function context");
		break;
	default:
		if (n->kind < N_BLOCK)
			resolve_expr(sc, n, lv);
		else {
			if (n->a)
				resolve(sc, n->a, false);
			if (n->b)
				resolve(sc, n->b, false);
			if (n->c)
				resolve(sc, n->c, false);
			if (n->d)
				resolve(sc, n->d, false);
			resolve_list(sc, &n->list);
		}
	}
	sc->file = saved;
}

static void resolve_function(struct elab *e, struct tr_func *f)
{
	struct scope sc = { .e = e, .file = f->file, .locals = &f->locals,
			    .func = f };
	int i;

	for (i = 0; i < f->params.n; i++) {
		struct tr_sym *p = f->params.v[i];

		p->slot = i;
		vec_push(&e->s->arena, &f->locals, p);
	}
	if (!f->has_embedded)
		resolve(&sc, f->body, false);
}

/* ---- probe points ---- */

/* fnmatch() with {a,b} alternatives. */
bool tr_glob_match(const char *pat, const char *str)
{
	const char *open = strchr(pat, '{'), *close, *p;
	char buf[1024];

	if (!open || !(close = strchr(open, '}')))
		return fnmatch(pat, str, 0) == 0;
	for (p = open + 1; p <= close; ) {
		size_t alt = strcspn(p, ",}");

		if (p + alt > close)
			alt = (size_t)(close - p);
		snprintf(buf, sizeof(buf), "%.*s%.*s%s", (int)(open - pat),
			 pat, (int)alt, p, close + 1);
		if (tr_glob_match(buf, str))
			return true;
		p += alt + 1;
	}
	return false;
}

static const char *literal_text(struct tr_session *s, const struct node *n)
{
	if (!n)
		return NULL;
	if (n->kind == N_NUM)
		return arena_printf(&s->arena, "%" PRId64, n->num);
	return arena_printf(&s->arena, "\"%s\"", n->str);
}

const char *tr_pp_name(struct tr_session *s,
		       const struct tr_probe_point *pp)
{
	char *out = "";
	int i;

	for (i = 0; i < pp->comps.n; i++) {
		const struct tr_component *c = pp->comps.v[i];
		const char *arg = literal_text(s, c->arg);

		out = arena_printf(&s->arena, "%s%s%s%s%s%s", out,
				   i ? "." : "", c->name, arg ? "(" : "",
				   arg ? arg : "", arg ? ")" : "");
	}
	return out;
}

static bool comp_is(const struct tr_probe_point *pp, int i, const char *name)
{
	const struct tr_component *c;

	if (i >= pp->comps.n)
		return false;
	c = pp->comps.v[i];
	return tr_glob_match(c->name, name);
}

static int64_t comp_num(const struct tr_probe_point *pp, int i, bool *ok)
{
	const struct tr_component *c = pp->comps.v[i];

	if (!c->arg || c->arg->kind != N_NUM) {
		*ok = false;
		return 0;
	}
	return c->arg->num;
}

struct pending {
	struct tr_dprobe *dp;
};

static struct tr_dprobe *new_dprobe(struct elab *e,
				    const struct tr_probe_point *pp,
				    enum probe_kind kind)
{
	struct tr_dprobe *dp = arena_alloc(&e->s->arena, sizeof(*dp));

	dp->kind = kind;
	dp->name = dp->origin = tr_pp_name(e->s, pp);
	dp->tok = pp->tok;
	return dp;
}

/* timer.UNIT(N)[.randomize(M)] */
static struct tr_dprobe *match_timer(struct elab *e,
				     const struct tr_probe_point *pp)
{
	static const struct { const char *unit; int64_t ns; } units[] = {
		{ "s", 1000000000 }, { "sec", 1000000000 },
		{ "ms", 1000000 }, { "msec", 1000000 },
		{ "us", 1000 }, { "usec", 1000 },
		{ "ns", 1 }, { "nsec", 1 },
		{ "jiffies", 4000000 },	/* HZ=250 */
		{ "hz", 0 },
	};
	struct tr_dprobe *dp;
	const struct tr_component *c;
	bool ok = true;
	int64_t n;
	size_t i;

	if (pp->comps.n < 2 || pp->comps.n > 3 || !comp_is(pp, 0, "timer"))
		return NULL;
	c = pp->comps.v[1];
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(c->name, units[i].unit))
			break;
	if (i == sizeof(units) / sizeof(units[0]))
		return NULL;
	n = comp_num(pp, 1, &ok);
	if (!ok || n <= 0) {
		tr_sema_error(e->s, c->tok, "timer interval must be a "
			      "positive number");
		return NULL;
	}
	dp = new_dprobe(e, pp, PK_TIMER);
	dp->interval_ns = units[i].ns ? n * units[i].ns : 1000000000 / n;
	if (pp->comps.n == 3) {
		if (!comp_is(pp, 2, "randomize"))
			return NULL;
		dp->randomize_ns = comp_num(pp, 2, &ok) *
				   (units[i].ns ? units[i].ns : 1);
		if (!ok || dp->randomize_ns < 0)
			return NULL;
	}
	if (dp->interval_ns <= 0)
		dp->interval_ns = 1;
	return dp;
}

static struct tr_dprobe *match_builtin(struct elab *e,
				       const struct tr_probe_point *pp)
{
	static const struct { const char *name; enum probe_kind kind; } fam[] = {
		{ "begin", PK_BEGIN }, { "end", PK_END },
		{ "error", PK_ERROR }, { "never", PK_NEVER },
		{ "init", PK_INIT }, { "oneshot", PK_BEGIN },
	};
	const struct tr_component *c = pp->comps.v[0];
	struct tr_dprobe *dp;
	bool ok = true;
	size_t i;

	if (pp->comps.n != 1)
		return match_timer(e, pp);
	for (i = 0; i < sizeof(fam) / sizeof(fam[0]); i++)
		if (!strcmp(c->name, fam[i].name))
			break;
	if (i == sizeof(fam) / sizeof(fam[0]))
		return NULL;
	dp = new_dprobe(e, pp, fam[i].kind);
	dp->oneshot = !strcmp(c->name, "oneshot");
	if (c->arg) {
		if (dp->kind != PK_BEGIN && dp->kind != PK_END &&
		    dp->kind != PK_ERROR)
			return NULL;
		dp->priority = comp_num(pp, 0, &ok);
		if (!ok)
			return NULL;
	}
	return dp;
}

/* ---- probe points on traced processes (docs/probes.md) ---- */

/* The executable that process("NAME") means: a name without '/' is
 * searched in PATH, and symbolic links are resolved, as stap's
 * find_executable() does; what cannot be found stays as written. */
const char *tr_resolve_exe(struct tr_session *s, const char *name)
{
	const char *path = getenv("PATH"), *p;
	char real[PATH_MAX];

	if (strchr(name, '/'))
		return realpath(name, real) ? arena_strdup(&s->arena, real) :
		       name;
	for (p = path ? path : ""; *p; ) {
		size_t len = strcspn(p, ":");
		const char *cand = arena_printf(&s->arena, "%.*s/%s",
						(int)len, p, name);

		if (len && access(cand, X_OK) == 0 && realpath(cand, real))
			return arena_strdup(&s->arena, real);
		p += len + (p[len] == ':');
	}
	return name;
}

/* COMPS[FROM..] of PP match the names NAMES[0..N) exactly in number,
 * each as a glob, without arguments. */
bool tr_tail_matches(const struct tr_probe_point *pp, int from,
		     const char *const *names, int n)
{
	int i;

	if (pp->comps.n - from != n)
		return false;
	for (i = 0; i < n; i++) {
		const struct tr_component *c = pp->comps.v[from + i];

		if (c->arg || !tr_glob_match(c->name, names[i]))
			return false;
	}
	return true;
}

struct tr_dprobe *tr_push_point(struct elab *e,
				const struct tr_probe_point *pp,
				enum probe_kind kind, const char *name,
				struct ptr_vec *out)
{
	struct tr_dprobe *dp = new_dprobe(e, pp, kind);

	dp->name = name;
	dp->cond = tr_clone(e->s, pp->cond);
	vec_push(&e->s->arena, out, dp);
	return dp;
}

/* ---- sampling points (docs/profile.md) ---- */

/* stap's perf tapset (tapset/perf.stp): perf.sw.NAME and perf.hw.NAME
 * are perf.type(T).config(C) of linux/perf_event.h's enums. */
static const struct perf_name {
	const char *group, *name;
	uint32_t type;
	uint64_t config;
} perf_names[] = {
	{ "sw", "cpu_clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "sw", "task_clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "sw", "page_faults", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS },
	{ "sw", "context_switches", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "sw", "cpu_migrations", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "sw", "page_faults_min", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "sw", "page_faults_maj", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "hw", "cpu_cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "hw", "instructions", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_INSTRUCTIONS },
	{ "hw", "cache_references", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES },
	{ "hw", "cache_misses", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_MISSES },
	{ "hw", "branch_instructions", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "hw", "branch_misses", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_MISSES },
	{ "hw", "bus_cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "hw", "ref_cpu_cycles", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_REF_CPU_CYCLES },
};

/* stap's sample period of a perf probe without .sample(N) */
#define PERF_DEFAULT_PERIOD 1000000
/* timer.profile: every scheduler tick of the thread's CPU time, at the
 * HZ timer.jiffies assumes (250) */
#define PROFILE_TICK_NS 4000000

/* Refuse at pass 2 an event the machine cannot count (a hardware
 * counter in a VM): the message names it and the kernel's reason.  An
 * optional point (`perf.hw.cpu_cycles ?`) is left out silently. */
static bool perf_supported(struct elab *e, const struct tr_probe_point *pp,
			   uint32_t type, uint64_t config)
{
	struct maptap_profiler *p;
	bool ok;

	if (maptap_profiler_new(NULL, &p))
		return true;	/* ENOMEM: let the run say it */
	ok = maptap_profile_probe(p, type, config) == 0;
	if (!ok && !pp->optional)
		tr_sema_error(e->s, pp->tok, "probe point %s: %s",
			      tr_pp_name(e->s, pp), maptap_profile_errmsg(p));
	maptap_profiler_free(p);
	return ok;
}

/* timer.profile[.tick]; perf.sw.NAME, perf.hw.NAME,
 * perf.type(T).config(C), each with an optional .sample(N) (one sample
 * every N events) or .hz(N) (N samples a second). */
static void match_perf(struct elab *e, const struct tr_probe_point *pp,
		       struct ptr_vec *out)
{
	static const char *const tick[] = { "tick" };
	const struct tr_component *c, *c0, *c1, *c2;
	struct tr_dprobe *dp;
	uint32_t type = 0;
	uint64_t config = 0, period = PERF_DEFAULT_PERIOD, freq = 0;
	int rest;
	bool ok = true;
	size_t i;

	c0 = pp->comps.v[0];
	c1 = pp->comps.v[1];
	c2 = pp->comps.n > 2 ? pp->comps.v[2] : NULL;
	if (comp_is(pp, 0, "timer") && comp_is(pp, 1, "profile") &&
	    !c0->arg && !c1->arg &&
	    (pp->comps.n == 2 || tr_tail_matches(pp, 2, tick, 1))) {
		dp = tr_push_point(e, pp, PK_PERF, pp->comps.n == 2 ?
				"timer.profile" : "timer.profile.tick", out);
		dp->perf_type = PERF_TYPE_SOFTWARE;
		dp->perf_config = PERF_COUNT_SW_CPU_CLOCK;
		dp->perf_period = PROFILE_TICK_NS;
		return;
	}
	if (!comp_is(pp, 0, "perf") || c0->arg || !c2)
		return;
	if (comp_is(pp, 1, "type") && comp_is(pp, 2, "config")) {
		type = (uint32_t)comp_num(pp, 1, &ok);
		config = (uint64_t)comp_num(pp, 2, &ok);
		if (!ok || comp_num(pp, 1, &ok) < 0)
			return;
	} else {
		for (i = 0; i < sizeof(perf_names) / sizeof(perf_names[0]);
		     i++)
			if (!c1->arg && !c2->arg &&
			    !strcmp(c1->name, perf_names[i].group) &&
			    !strcmp(c2->name, perf_names[i].name))
				break;
		if (i == sizeof(perf_names) / sizeof(perf_names[0]))
			return;
		type = perf_names[i].type;
		config = perf_names[i].config;
	}
	rest = pp->comps.n - 3;
	if (rest > 1)
		return;
	if (rest == 1) {
		c = (const struct tr_component *)pp->comps.v[3];
		if (!c->arg || c->arg->kind != N_NUM || c->arg->num <= 0 ||
		    (strcmp(c->name, "sample") && strcmp(c->name, "hz"))) {
			tr_sema_error(e->s, c->tok, "perf probe: expected "
				      ".sample(N) or .hz(N) with N > 0");
			return;
		}
		if (!strcmp(c->name, "hz")) {
			freq = (uint64_t)c->arg->num;
			period = 0;
		} else {
			period = (uint64_t)c->arg->num;
		}
	}
	if (!perf_supported(e, pp, type, config) && pp->optional)
		return;
	dp = tr_push_point(e, pp, PK_PERF, tr_pp_name(e->s, pp), out);
	dp->perf_type = type;
	dp->perf_config = config;
	dp->perf_period = period;
	dp->perf_freq = freq;
}

static void match_target_points(struct elab *e,
				const struct tr_probe_point *pp,
				struct ptr_vec *out)
{
	if (pp->comps.n < 2)
		return;
	tr_match_process(e, pp, out);
	tr_match_maptap(e, pp, out);
	match_perf(e, pp, out);
}

static bool alias_name_matches(const struct tr_probe_point *user,
			       const struct tr_probe_point *name)
{
	int i;

	if (user->comps.n != name->comps.n)
		return false;
	for (i = 0; i < user->comps.n; i++) {
		const struct tr_component *u = user->comps.v[i];
		const struct tr_component *a = name->comps.v[i];

		if (!tr_glob_match(u->name, a->name))
			return false;
		if ((u->arg == NULL) != (a->arg == NULL))
			return false;
	}
	return true;
}

static struct node *and_cond(struct tr_session *s, struct node *a,
			     struct node *b)
{
	struct node *n;

	if (!a)
		return b;
	if (!b)
		return a;
	n = node_new(s, N_LOGIC, a->tok);
	n->op = OP_LAND;
	n->a = a;
	n->b = b;
	return n;
}

static struct node *wrap_body(struct tr_session *s, struct node *first,
			      struct node *second)
{
	struct node *blk = node_new(s, N_BLOCK, first->tok);

	vec_push(&s->arena, &blk->list, first);
	vec_push(&s->arena, &blk->list, second);
	return blk;
}

static void resolve_point(struct elab *e, const struct tr_probe_point *pp,
			  struct tr_file *file, struct ptr_vec *out);

/* Expand the script's probe point PP through ALIAS, whose name NAME it
 * matched.  pn() is PP as the script writes it, or NAME when PP is a
 * wildcard (stap's pn(): "after wildcard expansion"). */
static void expand_alias(struct elab *e, const struct tr_probe_point *pp,
			 struct tr_probe *alias,
			 const struct tr_probe_point *name,
			 struct ptr_vec *out)
{
	const char *origin = tr_pp_name(e->s, pp);
	struct ptr_vec targets = { 0 };
	int i, k;

	if (tr_has_glob(origin))
		origin = tr_pp_name(e->s, name);

	use_file(e, alias->file);
	for (i = 0; i < alias->points.n; i++)
		resolve_point(e, alias->points.v[i], alias->file, &targets);
	for (k = 0; k < targets.n; k++) {
		struct tr_dprobe *dp = targets.v[k];

		dp->origin = origin;
		dp->alias = tr_pp_name(e->s, name);
		dp->tok = pp->tok;
		struct node *b = tr_clone(e->s, alias->body);

		b->file = alias->file;
		if (alias->epilogue)
			dp->epilogue = dp->epilogue ?
				wrap_body(e->s, b, dp->epilogue) : b;
		else
			dp->prologue = dp->prologue ?
				wrap_body(e->s, dp->prologue, b) : b;
		if (alias->body2) {
			b = tr_clone(e->s, alias->body2);
			b->file = alias->file;
			dp->epilogue = dp->epilogue ?
				wrap_body(e->s, b, dp->epilogue) : b;
		}
		dp->cond = and_cond(e->s, dp->cond, tr_clone(e->s, pp->cond));
		vec_push(&e->s->arena, out, dp);
	}
}

bool tr_has_glob(const char *name)
{
	return strpbrk(name, "*?[{\\") != NULL;
}

static bool head_matches(const struct tr_probe_point *pp,
			 const struct tr_tapset_def *d)
{
	int i;

	if (d->n_comps != pp->comps.n)
		return false;
	for (i = 0; i < d->n_comps; i++) {
		const struct tr_component *c = pp->comps.v[i];

		if (!tr_glob_match(c->name, d->comps[i]))
			return false;
	}
	return true;
}

/* Parse the tapset files with an alias head PP may match: by the whole
 * name when it has no wildcard, else by trying every head. */
static void need_aliases(struct elab *e, const struct tr_probe_point *pp)
{
	const struct tr_tapset_index *ix = e->s->tapset_index;
	const struct tr_component *c;
	const struct tr_tapset_def *d;
	const char *name = "";
	size_t pos = 0;
	int i;

	if (!ix)
		return;
	for (i = 0; i < pp->comps.n; i++) {
		c = pp->comps.v[i];
		if (tr_has_glob(c->name))
			break;
		name = i ? arena_printf(&e->s->arena, "%s.%s", name, c->name) :
		       c->name;
	}
	if (i == pp->comps.n) {
		while ((d = tr_tapset_index_find(ix, TR_DEF_ALIAS, name,
						 &pos)))
			if (!e->files.v[d->file + 1] && head_matches(pp, d))
				tr_parse_tapset(e, d->file);
		return;
	}
	for (i = 0; i < ix->aliases.n; i++) {
		d = ix->aliases.v[i];
		if (!e->files.v[d->file + 1] && head_matches(pp, d))
			tr_parse_tapset(e, d->file);
	}
}

static void resolve_point(struct elab *e, const struct tr_probe_point *pp,
			  struct tr_file *file, struct ptr_vec *out)
{
	struct tr_dprobe *dp;
	int before = out->n, i, k, j;

	if (++e->alias_depth > 32) {
		tr_sema_error(e->s, pp->tok, "recursive probe alias");
		e->alias_depth--;
		return;
	}
	/* Every file's aliases: a wildcard (syscall.*) spans the tapset
	 * files, and stap joins same-named aliases from several files. */
	need_aliases(e, pp);
	for (i = 0; i < e->files.n; i++) {
		struct tr_file *f = e->files.v[i];

		for (k = 0; f && k < f->aliases.n; k++) {
			struct tr_probe *a = f->aliases.v[k];

			for (j = 0; j < a->alias_names.n; j++)
				if (alias_name_matches(pp, a->alias_names.v[j]))
					expand_alias(e, pp, a,
						     a->alias_names.v[j], out);
		}
	}
	if (out->n == before && (dp = match_builtin(e, pp))) {
		dp->cond = tr_clone(e->s, pp->cond);
		vec_push(&e->s->arena, out, dp);
	}
	if (out->n == before)
		match_target_points(e, pp, out);
	if (out->n == before && !pp->optional) {
		tr_sema_error(e->s, pp->tok, "while resolving probe point");
		tr_sema_error(e->s, NULL, "no match for probe point %s",
			      tr_pp_name(e->s, pp));
	}
	(void)file;
	e->alias_depth--;
}

/* An alias body (prologue or epilogue) and the probe's own body run as
 * one handler with one set of locals, as in stap. */
static struct node *combine(struct elab *e, struct tr_dprobe *dp,
			    struct node *user)
{
	if (dp->prologue)
		user = wrap_body(e->s, dp->prologue, user);
	if (dp->epilogue)
		user = wrap_body(e->s, user, dp->epilogue);
	return user;
}

static void add_probe(struct elab *e, struct tr_probe *pr)
{
	int i, k;

	for (i = 0; i < pr->points.n; i++) {
		struct ptr_vec dps = { 0 };

		resolve_point(e, pr->points.v[i], pr->file, &dps);
		for (k = 0; k < dps.n; k++) {
			struct tr_dprobe *dp = dps.v[k];
			struct scope sc = { .e = e, .file = pr->file,
					    .locals = &dp->locals, .dp = dp };

			dp->body = combine(e, dp, tr_clone(e->s, pr->body));
			dp->order = e->probe_order++;
			if (dp->cond)
				resolve(&sc, dp->cond, false);
			resolve(&sc, dp->body, false);
			vec_push(&e->s->arena, &e->out->probes, dp);
		}
	}
}

static void use_file(struct elab *e, struct tr_file *f)
{
	int i;

	if (f->used)
		return;
	f->used = true;
	/* A tapset file brings its own probes along (stap does the same);
	 * the script's are added by tr_elaborate. */
	if (f == e->script)
		return;
	for (i = 0; i < f->probes.n; i++)
		add_probe(e, f->probes.v[i]);
}

static void warn_unused(struct elab *e)
{
	struct tr_file *f = e->script;
	int i;

	for (i = 0; i < f->globals.n; i++) {
		struct tr_sym *g = f->globals.v[i];

		if (!g->read && !g->written)
			tr_warning(e->s, g->tok, "Eliding unused variable "
				   "'%s'", g->name);
	}
	for (i = 0; i < f->functions.n; i++) {
		struct tr_func *fn = f->functions.v[i];

		if (!fn->used)
			tr_warning(e->s, fn->tok, "Eliding unused function "
				   "'%s'", fn->name);
	}
}

/* Probes on processes need a process to trace (docs/probes.md); one
 * message for the first such probe is enough. */
static void check_target(struct elab *e)
{
	const struct tr_options *o = e->s->opts;
	int i;

	if (o && (o->target_cmd || o->target_pid || o->listing))
		return;
	for (i = 0; i < e->out->probes.n; i++) {
		const struct tr_dprobe *dp = e->out->probes.v[i];

		if (!tr_probe_needs_target(dp->kind))
			continue;
		tr_sema_error(e->s, dp->tok, "probe point '%s' needs a target "
			      "process: give -c CMD or -x PID", dp->name);
		return;
	}
}

int tr_elaborate(struct tr_session *s, struct tr_file *script)
{
	struct elab e = { .s = s, .script = script };
	int i, before = s->sema_errors;

	e.out = arena_alloc(&s->arena, sizeof(*e.out));
	s->elab = e.out;
	vec_push(&s->arena, &e.files, script);
	tr_load_tapsets(&e);
	if (s->parse_errors)
		return -1;
	script->used = true;
	for (i = 0; i < script->globals.n; i++) {
		struct tr_sym *g = script->globals.v[i];

		if (find_in(&e.out->globals, g->name)) {
			tr_sema_error(s, g->tok, "duplicate global '%s'",
				      g->name);
			continue;
		}
		add_global(&e, g);
	}
	for (i = 0; i < script->probes.n; i++)
		add_probe(&e, script->probes.v[i]);
	for (i = 0; i < e.func_queue.n; i++)
		resolve_function(&e, e.func_queue.v[i]);
	if (e.out->probes.n == 0 && s->sema_errors == before &&
	    !(s->opts && s->opts->listing))
		tr_sema_error(s, NULL, "no probes found");
	check_target(&e);
	if (s->sema_errors == before)
		tr_infer_types(&e);
	if (s->sema_errors == before)
		warn_unused(&e);
	/* A tapset parsed on demand may have had parse errors. */
	return s->sema_errors == before && !s->parse_errors ? 0 : -1;
}
