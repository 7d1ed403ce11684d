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

#include "cvars.h"
#include "dwvars.h"
#include "driver.h"
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

static struct node *clone(struct tr_session *s, const struct node *n);

static void clone_list(struct tr_session *s, struct ptr_vec *dst,
		       const struct ptr_vec *src)
{
	int i;

	memset(dst, 0, sizeof(*dst));
	for (i = 0; i < src->n; i++)
		vec_push(&s->arena, dst, clone(s, src->v[i]));
}

static struct node *clone(struct tr_session *s, const struct node *n)
{
	struct node *c;

	if (!n)
		return NULL;
	c = arena_alloc(&s->arena, sizeof(*c));
	*c = *n;
	c->a = clone(s, n->a);
	c->b = clone(s, n->b);
	c->c = clone(s, n->c);
	c->d = clone(s, n->d);
	clone_list(s, &c->list, &n->list);
	if (n->fe) {
		struct foreach_info *fe = arena_alloc(&s->arena, sizeof(*fe));

		*fe = *n->fe;
		clone_list(s, &fe->keys, &n->fe->keys);
		clone_list(s, &fe->slice, &n->fe->slice);
		fe->value = clone(s, n->fe->value);
		fe->array = clone(s, n->fe->array);
		fe->limit = clone(s, n->fe->limit);
		fe->body = clone(s, n->fe->body);
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
 * probe point has it (cvars.c), or its DWARF has it with a location at
 * the probe's address (dwvars.c). */
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
 * (dwvars.c; N->aux), or to its context variable id (in NUM), and
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
		bool addr = n->op && !strcmp(n->op, "&");

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

	if (c->kind == N_UNARY && !strcmp(c->op, "!")) {
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
		b = tr_builtin_find(n->str);
	if (!f && !b)
		f = find_function(e, sc->file, n->str, false);
	resolve_list(sc, &n->list);
	if (b) {
		if (n->list.n < b->min_args || n->list.n > b->max_args)
			tr_sema_error(e->s, n->tok, "Wrong number of arguments "
				      "to function '%s'", n->str);
		n->builtin = b->id;
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
		if (strcmp(n->op, "=") && n->a->sym)
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
		if (!strcmp(n->op, "&") && n->a->kind != N_TARGET) {
			tr_sema_error(s, n->tok, "'&' needs a target variable");
			break;
		}
		if (!strcmp(n->op, "&"))
			n->a->op = "&";	/* resolve_target(): its address */
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
static bool glob_match(const char *pat, const char *str)
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
		if (glob_match(buf, str))
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

static const char *pp_name(struct tr_session *s,
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
	return glob_match(c->name, name);
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
	dp->name = dp->origin = pp_name(e->s, pp);
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

static const char *const vma_kinds[] = {
	"map", "unmap", "protect", "replace", "move", "rename", "grow",
	"shrink",
};
static const char *const proc_kinds[] = {
	"attach", "exec", "fork", "clone", "exit", "detach",
};

/* The executable that process("NAME") means: a name without '/' is
 * searched in PATH, and symbolic links are resolved, as stap's
 * find_executable() does; what cannot be found stays as written. */
static const char *resolve_exe(struct tr_session *s, const char *name)
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
static bool tail_matches(const struct tr_probe_point *pp, int from,
			 const char *const *names, int n)
{
	int i;

	if (pp->comps.n - from != n)
		return false;
	for (i = 0; i < n; i++) {
		const struct tr_component *c = pp->comps.v[from + i];

		if (c->arg || !glob_match(c->name, names[i]))
			return false;
	}
	return true;
}

static struct tr_dprobe *push_point(struct elab *e,
				    const struct tr_probe_point *pp,
				    enum probe_kind kind, const char *name,
				    struct ptr_vec *out)
{
	struct tr_dprobe *dp = new_dprobe(e, pp, kind);

	dp->name = name;
	dp->cond = clone(e->s, pp->cond);
	vec_push(&e->s->arena, out, dp);
	return dp;
}

/* ---- breakpoint probes: process(..).function(..), .statement(..) ---- */

/* The file process("NAME") or .library("NAME") means.  A name with '/'
 * is taken as it is; a bare name is searched, as stap does, in PATH
 * (executables) and the dynamic linker's default directories
 * (libraries; LD_LIBRARY_PATH first), a name with ".so" in it libraries
 * first.  Returns a realpath, or NULL. */
static const char *resolve_file(struct tr_session *s, const char *name)
{
	static const char *const libdirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
		"/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib",
	};
	const char *ld = getenv("LD_LIBRARY_PATH"), *p;
	char real[PATH_MAX];
	const char *exe;
	size_t i;

	if (strchr(name, '/'))
		return realpath(name, real) ? arena_strdup(&s->arena, real) :
		       NULL;
	if (!strstr(name, ".so")) {
		exe = resolve_exe(s, name);
		if (exe != name)
			return exe;
	}
	for (p = ld ? ld : ""; *p; ) {
		size_t len = strcspn(p, ":");
		const char *cand = arena_printf(&s->arena, "%.*s/%s",
						(int)len, p, name);

		if (len && realpath(cand, real))
			return arena_strdup(&s->arena, real);
		p += len + (p[len] == ':');
	}
	for (i = 0; i < sizeof(libdirs) / sizeof(libdirs[0]); i++) {
		const char *cand = arena_printf(&s->arena, "%s/%s",
						libdirs[i], name);

		if (realpath(cand, real))
			return arena_strdup(&s->arena, real);
	}
	exe = resolve_exe(s, name);
	return exe != name ? exe : NULL;
}

/* The executable of the target: -x PID's, or -c's first word. */
static const char *target_exe(struct tr_session *s, int64_t pid)
{
	const struct driver_opts *o = s->opts;
	char path[64], buf[PATH_MAX];
	ssize_t n;

	if (!pid && o)
		pid = o->target_pid;
	if (pid) {
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
		n = readlink(path, buf, sizeof(buf) - 1);
		if (n <= 0)
			return NULL;
		buf[n] = '\0';
		return arena_strdup(&s->arena, buf);
	}
	if (o && o->target_cmd) {
		size_t len = strcspn(o->target_cmd, " \t");
		const char *w = arena_printf(&s->arena, "%.*s", (int)len,
					     o->target_cmd);

		return resolve_file(s, w);
	}
	return NULL;
}

struct up_ctx {
	struct elab *e;
	const struct tr_probe_point *pp;
	struct ptr_vec *out;
	const char *qual;		/* process("..")[.library("..")] */
	const char *module;
	uint64_t ino;
	const char *proc_path;
	bool ret;
	bool call;			/* .call: at the entry, no prologue
					 * skipped */
	uint64_t *seen;			/* entries DWARF gave */
	size_t nseen, cap;
	struct ptr_vec ifuncs;		/* the module's IFUNC symbols */
};

static struct tr_dprobe *push_uprobe(struct up_ctx *c, const char *name,
				     uint64_t vaddr)
{
	struct tr_dprobe *dp = push_point(c->e, c->pp, PK_UPROBE, name,
					  c->out);

	dp->up_module = c->module;
	dp->up_ino = c->ino;
	dp->up_vaddr = vaddr;
	dp->up_body = vaddr;
	dp->is_return = c->ret;
	dp->proc_path = c->proc_path;
	return dp;
}

static int up_dwarf(const struct maptap_uprobe_func *f, void *arg)
{
	struct up_ctx *c = arg;
	struct tr_dprobe *dp;
	const char *where = "", *suffix;

	if (c->nseen == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		uint64_t *v = realloc(c->seen, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->seen = v;
		c->cap = cap;
	}
	c->seen[c->nseen++] = f->entry;
	if (f->file)
		where = arena_printf(&c->e->s->arena, "@%s:%d", f->file,
				     f->line);
	suffix = c->ret ? ".return" : c->call ? ".call" :
		 f->inlined ? ".inline" : "";
	dp = push_uprobe(c, arena_printf(&c->e->s->arena,
			 "%s.function(\"%s%s\")%s", c->qual, f->name, where,
			 suffix),
			 c->ret || c->call ? f->entry : f->body);
	dp->up_func = arena_strdup(&c->e->s->arena, f->name);
	dp->up_body = f->body;
	return 0;
}

static int up_function(const char *name, uint64_t vaddr, uint64_t size,
		       void *arg)
{
	struct up_ctx *c = arg;
	struct tr_dprobe *dp;
	const char *pp_name;
	size_t i;

	(void)size;
	for (i = 0; i < c->nseen; i++)
		if (c->seen[i] == vaddr)
			return 0;	/* DWARF named it */
	pp_name = arena_printf(&c->e->s->arena, "%s.function(\"%s\")%s",
			       c->qual, name, c->ret ? ".return" : "");
	dp = push_uprobe(c, pp_name, vaddr);
	dp->up_func = arena_strdup(&c->e->s->arena, name);
	for (i = 0; i < (size_t)c->ifuncs.n; i++) {
		const struct maptap_uprobe_ifunc *f = c->ifuncs.v[i];

		if (f->resolver == vaddr)
			dp->up_ifunc = f;
	}
	return 0;
}

/* The module's IFUNC symbols, kept for its probes (docs/probes.md). */
static int up_ifunc(const struct maptap_uprobe_ifunc *f, void *arg)
{
	struct up_ctx *c = arg;
	struct maptap_uprobe_ifunc *k = arena_alloc(&c->e->s->arena,
						    sizeof(*k));

	*k = *f;
	k->name = arena_strdup(&c->e->s->arena, f->name ? f->name : "");
	vec_push(&c->e->s->arena, &c->ifuncs, k);
	return 0;
}

/* The functions NAME ("NAME@FILE[:LINE]") of U's module, for each of
 * the tails the probe point's components from AT match: none, .return,
 * .call, .inline.  From DWARF when the module has it (entry probes after
 * the prologue, .call and .return at the entry, .inline at each inlined
 * instance), and from the ELF symbol table for the functions DWARF does
 * not describe (at the symbol), unless a FILE or .inline asks for
 * DWARF. */
static void match_functions(struct up_ctx *u, const char *spec, int at)
{
	static const char *const tails[][1] = {
		{ "" }, { "return" }, { "call" }, { "inline" },
	};
	const struct tr_probe_point *pp = u->pp;
	char *name = arena_strdup(&u->e->s->arena, spec), *file, *colon;
	int line = 0, k;

	file = strchr(name, '@');
	if (file) {
		*file++ = '\0';
		colon = strrchr(file, ':');
		if (colon) {
			*colon = '\0';
			line = atoi(colon + 1);
		}
	}
	u->ifuncs.n = 0;
	if (!file)
		maptap_uprobe_ifuncs(u->module, up_ifunc, u);
	for (k = 0; k < 4; k++) {
		if (!tail_matches(pp, at, tails[k], k ? 1 : 0))
			continue;
		u->ret = k == 1;
		u->call = k == 2;
		u->nseen = 0;
		maptap_uprobe_dwarf_functions(u->module, name, file, line,
					      k == 3 ? MAPTAP_UPROBE_INLINE : 0,
					      up_dwarf, u);
		if (!file && k != 3)
			maptap_uprobe_functions(u->module, name, up_function,
						u);
	}
	free(u->seen);
	u->seen = NULL;
	u->nseen = u->cap = 0;
}

static bool has_glob(const char *name);

static void up_mark(void *arg, const char *name, uint64_t pc,
		    const struct tr_sdt *m)
{
	struct tr_dprobe *dp = push_uprobe(arg, name, pc);

	dp->up_func = "";
	dp->sdt = m;
}

static int up_plt(const char *name, uint64_t vaddr, uint64_t size,
		  void *arg)
{
	struct up_ctx *c = arg;
	struct tr_dprobe *dp;

	(void)size;
	dp = push_uprobe(c, arena_printf(&c->e->s->arena,
			 "%s.plt(\"%s\")%s", c->qual, name,
			 c->ret ? ".return" : ""), vaddr);
	dp->up_func = arena_strdup(&c->e->s->arena, name);
	dp->up_plt = true;
	return 0;
}

static int up_line(uint64_t vaddr, const char *file, int line, void *arg)
{
	struct up_ctx *c = arg;
	struct tr_dprobe *dp;

	dp = push_uprobe(c, arena_printf(&c->e->s->arena,
			 "%s.statement(\"*@%s:%d\")", c->qual, file, line),
			 vaddr);
	dp->up_func = "";
	return 0;
}

/* The rest of the probe point, from component AT, in U's module:
 * function("NAME")..., plt[("NAME")][.return], statement(ADDR)... */
static void match_in_module(struct up_ctx *u, int at)
{
	static const char *const ret[] = { "return" };
	static const char *const abs_[] = { "absolute" };
	const struct tr_probe_point *pp = u->pp;
	const struct tr_component *c;
	struct elab *e = u->e;
	struct stat st;

	if (at >= pp->comps.n)
		return;
	c = pp->comps.v[at];
	u->ino = stat(u->module, &st) == 0 ? (uint64_t)st.st_ino : 0;
	if (!strcmp(c->name, "function") && c->arg && c->arg->kind == N_STR) {
		match_functions(u, c->arg->str, at + 1);
		return;
	}
	if (tr_sdt_match(e->s, pp, at, u->module, u->qual, up_mark, u))
		return;
	if (!strcmp(c->name, "plt") && (!c->arg || c->arg->kind == N_STR)) {
		for (u->ret = false; ; u->ret = true) {
			if (tail_matches(pp, at + 1, ret, u->ret))
				maptap_uprobe_plt(u->module, c->arg ?
						  c->arg->str : "*", up_plt, u);
			if (u->ret)
				break;
		}
		u->ret = false;
		return;
	}
	if (!strcmp(c->name, "statement") && c->arg &&
	    c->arg->kind == N_STR && tail_matches(pp, at + 1, ret, 0)) {
		/* "*@FILE:LINE" (the function part is not checked) */
		const char *spec = strchr(c->arg->str, '@');
		const char *colon = spec ? strrchr(spec, ':') : NULL;

		if (!colon || colon[1] < '0' || colon[1] > '9')
			return;
		maptap_uprobe_dwarf_lines(u->module, arena_printf(&e->s->arena,
					  "%.*s", (int)(colon - spec - 1),
					  spec + 1), atoi(colon + 1), up_line,
					  u);
		return;
	}
	if (!strcmp(c->name, "statement") && c->arg && c->arg->kind == N_NUM) {
		struct tr_dprobe *dp;
		bool absolute = tail_matches(pp, at + 1, abs_, 1);

		if (!absolute && !tail_matches(pp, at + 1, ret, 0))
			return;
		dp = push_uprobe(u, arena_printf(&e->s->arena,
				 "%s.statement(0x%" PRIx64 ")%s", u->qual,
				 (uint64_t)c->arg->num,
				 absolute ? ".absolute" : ""),
				 (uint64_t)c->arg->num);
		dp->up_abs = absolute;
		dp->up_func = "";
	}
}

struct needed {
	struct tr_session *s;
	struct ptr_vec *libs;
};

static int add_needed(const char *name, void *arg)
{
	struct needed *n = arg;
	const char *lib = resolve_file(n->s, name);
	int i;

	if (!lib)
		return 0;
	for (i = 0; i < n->libs->n; i++)
		if (!strcmp(n->libs->v[i], lib))
			return 0;
	if (n->libs->n < 512)
		vec_push(&n->s->arena, n->libs, (void *)lib);
	return 0;
}

/* Into LIBS: the libraries EXE needs, and theirs, breadth first. */
static void needed_closure(struct tr_session *s, const char *exe,
			   struct ptr_vec *libs)
{
	struct needed n = { s, libs };
	int i;

	maptap_uprobe_needed(exe, add_needed, &n);
	for (i = 0; i < libs->n; i++)
		maptap_uprobe_needed(libs->v[i], add_needed, &n);
}

/* process[("PATH")|(PID)][.library("LIB")].function("NAME")[.return],
 * process[..].statement(ADDR)[.absolute], process[..][.library(..)].plt
 * [("NAME")][.return]: each function, PLT entry or statement a probe of
 * its own (docs/probes.md). */
static void match_uprobe(struct elab *e, const struct tr_probe_point *pp,
			 const char *path, int64_t pid, struct ptr_vec *out)
{
	const struct tr_component *c;
	struct up_ctx u = { e, pp, out, NULL, NULL, 0, NULL, false, false,
			    NULL, 0, 0, { 0 } };
	const char *exe, *direct;
	struct ptr_vec libs = { 0 };
	int i;

	exe = path ? resolve_file(e->s, path) : target_exe(e->s, pid);
	if (!exe)
		return;
	u.qual = arena_printf(&e->s->arena, "process(\"%s\")", exe);
	u.module = exe;
	c = pp->comps.v[1];
	if (strcmp(c->name, "library") || !c->arg || c->arg->kind != N_STR ||
	    pp->comps.n < 3) {
		match_in_module(&u, 1);
		return;
	}
	/* .library("LIB"): the libraries PATH loads (DT_NEEDED, searched
	 * as the dynamic linker's defaults), by path or base name; a name
	 * without a wildcard is also searched directly (a dlopen'ed one). */
	needed_closure(e->s, exe, &libs);
	if (!has_glob(c->arg->str)) {
		const char *lib = resolve_file(e->s, c->arg->str);

		if (lib)
			vec_push(&e->s->arena, &libs, (void *)lib);
	}
	direct = has_glob(c->arg->str) ? NULL : resolve_file(e->s, c->arg->str);
	for (i = 0; i < libs.n; i++) {
		const char *lib = libs.v[i], *base = strrchr(lib, '/');
		int k;

		if (fnmatch(c->arg->str, lib, 0) != 0 &&
		    fnmatch(c->arg->str, base ? base + 1 : lib, 0) != 0 &&
		    (!direct || strcmp(direct, lib)))
			continue;
		for (k = 0; k < i && strcmp(libs.v[k], lib); k++)
			;
		if (k < i)
			continue;	/* twice in the list */
		u.module = lib;
		u.proc_path = exe;
		u.qual = arena_printf(&e->s->arena,
				      "process(\"%s\").library(\"%s\")", exe,
				      lib);
		match_in_module(&u, 2);
	}
}

static void set_all_syscalls(struct tr_dprobe *dp)
{
	dp->all_syscalls = true;
	memset(dp->syscalls, 0xff, sizeof(dp->syscalls));
}

/* process[("PATH")|(PID)].begin|end|thread.begin|thread.end|
 * syscall[.return] */
static void match_process(struct elab *e, const struct tr_probe_point *pp,
			  struct ptr_vec *out)
{
	static const struct {
		const char *names[2];
		int n;
		enum probe_kind kind;
		int point;
	} pts[] = {
		{ { "begin" }, 1, PK_PROCESS, TR_PROC_BEGIN },
		{ { "end" }, 1, PK_PROCESS, TR_PROC_END },
		{ { "thread", "begin" }, 2, PK_PROCESS, TR_THREAD_BEGIN },
		{ { "thread", "end" }, 2, PK_PROCESS, TR_THREAD_END },
		{ { "syscall" }, 1, PK_SYSCALL, 0 },
		{ { "syscall", "return" }, 2, PK_SYSCALL, 1 },
	};
	const struct tr_component *c0 = pp->comps.v[0];
	const char *qual = "process", *path = NULL;
	int64_t pid = 0;
	size_t i;

	if (!glob_match(c0->name, "process"))
		return;
	if (c0->arg && c0->arg->kind == N_NUM) {
		pid = c0->arg->num;
		if (pid < 2) {
			tr_sema_error(e->s, c0->tok, "process pid must be "
				      "greater than 1");
			return;
		}
		qual = arena_printf(&e->s->arena, "process(%" PRId64 ")", pid);
	} else if (c0->arg) {
		path = resolve_exe(e->s, c0->arg->str);
		qual = arena_printf(&e->s->arena, "process(\"%s\")", path);
	}
	for (i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
		struct tr_dprobe *dp;
		const char *name;

		if (!tail_matches(pp, 1, pts[i].names, pts[i].n))
			continue;
		name = arena_printf(&e->s->arena, "%s.%s%s%s", qual,
				    pts[i].names[0], pts[i].n > 1 ? "." : "",
				    pts[i].n > 1 ? pts[i].names[1] : "");
		dp = push_point(e, pp, pts[i].kind, name, out);
		dp->proc_path = path;
		dp->proc_pid = pid;
		if (pts[i].kind == PK_PROCESS) {
			dp->proc_point = (enum tr_proc_point)pts[i].point;
		} else {
			dp->is_return = pts[i].point;
			set_all_syscalls(dp);
		}
	}
	match_uprobe(e, pp, c0->arg && c0->arg->kind == N_STR ?
		     c0->arg->str : NULL, pid, out);
}

/* maptap.syscall("NAME-GLOB"|NR)[.return]: the calls of the native
 * table whose name matches; "*" also takes the numbers it does not
 * know. */
static void match_syscall(struct elab *e, const struct tr_probe_point *pp,
			  struct ptr_vec *out)
{
	static const char *const ret[] = { "return" };
	const struct tr_component *c = pp->comps.v[1];
	const struct maptap_syscall *tab;
	struct tr_dprobe dp0 = { 0 }, *dp;
	unsigned n, i;
	bool any = false;
	int r;

	if (!c->arg || !glob_match(c->name, "syscall"))
		return;
	tab = maptap_syscall_table(maptap_syscall_native_arch(), &n);
	for (i = 0; i < n; i++) {
		bool hit = c->arg->kind == N_NUM ? tab[i].nr == c->arg->num :
			   glob_match(c->arg->str, tab[i].name);

		if (hit && tab[i].nr >= 0 &&
		    tab[i].nr < MAPTAP_SYSCALL_SET_BITS) {
			dp0.syscalls[tab[i].nr / 64] |=
				1ull << (tab[i].nr % 64);
			any = true;
		}
	}
	if (c->arg->kind == N_NUM && c->arg->num >= 0 &&
	    c->arg->num < MAPTAP_SYSCALL_SET_BITS) {
		dp0.syscalls[c->arg->num / 64] |= 1ull << (c->arg->num % 64);
		any = true;
	}
	if (c->arg->kind == N_STR && !strcmp(c->arg->str, "*")) {
		set_all_syscalls(&dp0);
		any = true;
	}
	if (!any)
		return;
	for (r = 0; r < 2; r++) {
		if (!tail_matches(pp, 2, ret, r))
			continue;
		dp = push_point(e, pp, PK_SYSCALL, pp_name(e->s, pp), out);
		dp->is_return = r;
		dp->all_syscalls = dp0.all_syscalls;
		memcpy(dp->syscalls, dp0.syscalls, sizeof(dp->syscalls));
	}
}

static void push_event(struct elab *e, const struct tr_probe_point *pp,
		       const char *name, uint32_t events, struct ptr_vec *out)
{
	struct tr_dprobe *dp = push_point(e, pp, PK_EVENT, name, out);

	dp->events = events;
}

/* maptap.vma.KIND, maptap.module.load|unload, maptap.process.KIND,
 * maptap.event, maptap.syscall(..): one probe per concrete point a
 * wildcard matches, so pp() names the point that fired. */
static void match_maptap(struct elab *e, const struct tr_probe_point *pp,
			 struct ptr_vec *out)
{
	static const char *const mod[] = { "load", "unload" };
	const struct tr_component *c0 = pp->comps.v[0];
	const char *w[2];
	size_t i;

	if (c0->arg || !glob_match(c0->name, "maptap"))
		return;
	match_syscall(e, pp, out);
	w[0] = "event";
	if (tail_matches(pp, 1, w, 1))
		push_event(e, pp, "maptap.event", TR_EV_ALL, out);
	for (i = 0; i < sizeof(vma_kinds) / sizeof(vma_kinds[0]); i++) {
		w[0] = "vma";
		w[1] = vma_kinds[i];
		if (tail_matches(pp, 1, w, 2))
			push_event(e, pp, arena_printf(&e->s->arena,
				   "maptap.vma.%s", w[1]), 1u << i, out);
	}
	for (i = 0; i < 2; i++) {
		w[0] = "module";
		w[1] = mod[i];
		if (tail_matches(pp, 1, w, 2))
			push_event(e, pp, arena_printf(&e->s->arena,
				   "maptap.module.%s", w[1]),
				   i ? TR_EV_MODULE_UNLOAD : TR_EV_MODULE_LOAD,
				   out);
	}
	for (i = 0; i < sizeof(proc_kinds) / sizeof(proc_kinds[0]); i++) {
		w[0] = "process";
		w[1] = proc_kinds[i];
		if (tail_matches(pp, 1, w, 2))
			push_event(e, pp, arena_printf(&e->s->arena,
				   "maptap.process.%s", w[1]),
				   1u << (MAPTAP_EV_ATTACH + i), out);
	}
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
			      pp_name(e->s, pp), maptap_profile_errmsg(p));
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
	    (pp->comps.n == 2 || tail_matches(pp, 2, tick, 1))) {
		dp = push_point(e, pp, PK_PERF, pp->comps.n == 2 ?
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
	dp = push_point(e, pp, PK_PERF, pp_name(e->s, pp), out);
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
	match_process(e, pp, out);
	match_maptap(e, pp, out);
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

		if (!glob_match(u->name, a->name))
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
	n->op = "&&";
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

static bool has_glob(const char *name);

/* Expand the script's probe point PP through ALIAS, whose name NAME it
 * matched.  pn() is PP as the script writes it, or NAME when PP is a
 * wildcard (stap's pn(): "after wildcard expansion"). */
static void expand_alias(struct elab *e, const struct tr_probe_point *pp,
			 struct tr_probe *alias,
			 const struct tr_probe_point *name,
			 struct ptr_vec *out)
{
	const char *origin = pp_name(e->s, pp);
	struct ptr_vec targets = { 0 };
	int i, k;

	if (has_glob(origin))
		origin = pp_name(e->s, name);

	use_file(e, alias->file);
	for (i = 0; i < alias->points.n; i++)
		resolve_point(e, alias->points.v[i], alias->file, &targets);
	for (k = 0; k < targets.n; k++) {
		struct tr_dprobe *dp = targets.v[k];

		dp->origin = origin;
		dp->alias = pp_name(e->s, name);
		dp->tok = pp->tok;
		struct node *b = clone(e->s, alias->body);

		b->file = alias->file;
		if (alias->epilogue)
			dp->epilogue = dp->epilogue ?
				wrap_body(e->s, b, dp->epilogue) : b;
		else
			dp->prologue = dp->prologue ?
				wrap_body(e->s, dp->prologue, b) : b;
		if (alias->body2) {
			b = clone(e->s, alias->body2);
			b->file = alias->file;
			dp->epilogue = dp->epilogue ?
				wrap_body(e->s, b, dp->epilogue) : b;
		}
		dp->cond = and_cond(e->s, dp->cond, clone(e->s, pp->cond));
		vec_push(&e->s->arena, out, dp);
	}
}

static bool has_glob(const char *name)
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

		if (!glob_match(c->name, d->comps[i]))
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
		if (has_glob(c->name))
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
		dp->cond = clone(e->s, pp->cond);
		vec_push(&e->s->arena, out, dp);
	}
	if (out->n == before)
		match_target_points(e, pp, out);
	if (out->n == before && !pp->optional) {
		tr_sema_error(e->s, pp->tok, "while resolving probe point");
		tr_sema_error(e->s, NULL, "no match for probe point %s",
			      pp_name(e->s, pp));
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

			dp->body = combine(e, dp, clone(e->s, pr->body));
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
	const struct driver_opts *o = e->s->opts;
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
