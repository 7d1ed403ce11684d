/* SPDX-License-Identifier: GPL-2.0-or-later */
/* types.c -- pass 2 type inference and the checks that need types.
 *
 * The script language has no declarations of type: like stap's
 * typeresolution_info, this walks every used probe and function again
 * and again, letting each use of a variable, array, function or literal
 * decide the types around it, until nothing changes.  One last walk
 * reports conflicts ("type mismatch") and what stayed unknown.
 */
#include <config.h>

#include <string.h>

#include <maptap/script_format.h>

#include "elab_int.h"

struct tctx {
	struct elab *e;
	bool final;
	bool changed;
	struct tr_func *func;
};

static enum tr_type infer(struct tctx *t, struct node *n);

static void mismatch(struct tctx *t, const struct token *tok,
		     enum tr_type have, const struct token *first_tok,
		     enum tr_type first)
{
	if (!t->final)
		return;
	tr_sema_error(t->e->s, tok, "type mismatch (%s)", tr_type_name(have));
	if (first_tok && first_tok != tok)
		tr_sema_error(t->e->s, first_tok, "type was first inferred "
			      "here (%s)", tr_type_name(first));
}

static void unify_type(struct tctx *t, enum tr_type *slot,
		       const struct token **slot_tok, enum tr_type want,
		       const struct token *tok)
{
	if (want == TY_UNKNOWN)
		return;
	if (*slot == TY_UNKNOWN) {
		*slot = want;
		if (slot_tok && !*slot_tok)
			*slot_tok = tok;
		t->changed = true;
		return;
	}
	if (*slot != want)
		mismatch(t, tok, want, slot_tok ? *slot_tok : NULL, *slot);
}

/* Push the type WANT into N (a variable, element, call or anything). */
static void unify_node(struct tctx *t, struct node *n, enum tr_type want)
{
	if (!n || want == TY_UNKNOWN)
		return;
	switch (n->kind) {
	case N_VAR:
	case N_INDEX:
		if (n->sym) {
			unify_type(t, &n->sym->type, &n->sym->type_tok, want,
				   n->tok);
			n->type = n->sym->type;
		}
		return;
	case N_CALL:
		if (n->func) {
			unify_type(t, &n->func->ret, &n->func->ret_tok, want,
				   n->tok);
			n->type = n->func->ret;
			return;
		}
		break;
	case N_TERNARY:
		unify_node(t, n->b, want);
		unify_node(t, n->c, want);
		n->type = want;
		return;
	case N_ASSIGN:
		if (n->op == OP_ASSIGN) {
			unify_node(t, n->a, want);
			unify_node(t, n->b, want);
			n->type = want;
			return;
		}
		break;
	default:
		break;
	}
	if (n->type == TY_UNKNOWN) {
		n->type = want;
		return;
	}
	if (n->type != want && t->final)
		tr_sema_error(t->e->s, n->tok, "type mismatch (%s vs. %s)",
			      tr_type_name(want), tr_type_name(n->type));
}

static void unify_keys(struct tctx *t, struct tr_sym *arr,
		       struct ptr_vec *keys, const struct token *tok)
{
	int i;

	if (!arr)
		return;
	if (arr->arity <= 0) {
		if (keys->n > TR_MAX_KEYS) {
			if (t->final)
				tr_sema_error(t->e->s, tok, "too many array "
					      "indexes");
			return;
		}
		arr->arity = keys->n;
		t->changed = true;
	} else if (arr->arity != keys->n) {
		if (t->final)
			tr_sema_error(t->e->s, tok, "inconsistent arity (%d "
				      "vs %d)", keys->n, arr->arity);
		return;
	}
	for (i = 0; i < keys->n; i++) {
		struct node *k = keys->v[i];
		enum tr_type kt;

		if (!k)
			continue;
		kt = infer(t, k);
		if (kt == TY_STATS && t->final)
			tr_sema_error(t->e->s, k->tok, "array index cannot "
				      "be a statistic");
		unify_type(t, &arr->key_types[i], NULL, kt, k->tok);
		if (kt == TY_UNKNOWN)
			unify_node(t, k, arr->key_types[i]);
	}
}

static void check_scalar_use(struct tctx *t, struct node *n)
{
	if (!n->sym || !t->final)
		return;
	if (n->kind == N_VAR && n->sym->arity > 0)
		tr_sema_error(t->e->s, n->tok, "array used as scalar");
	if (n->kind == N_INDEX && n->sym->arity == 0)
		tr_sema_error(t->e->s, n->tok, "scalar used as array");
}

static enum tr_type infer_call(struct tctx *t, struct node *n)
{
	int i;

	if (n->builtin >= 0) {
		const struct tr_builtin *b = tr_builtin_find(t->e->s,
							 n->str);

		for (i = 0; i < n->list.n; i++) {
			struct node *a = n->list.v[i];

			infer(t, a);
			unify_node(t, a, b->args[i < 4 ? i : 3]);
		}
		return b->ret;
	}
	if (!n->func)
		return TY_UNKNOWN;
	for (i = 0; i < n->list.n && i < n->func->params.n; i++) {
		struct node *a = n->list.v[i];
		struct tr_sym *p = n->func->params.v[i];
		enum tr_type at = infer(t, a);

		unify_type(t, &p->type, &p->type_tok, at, a->tok);
		if (at == TY_UNKNOWN)
			unify_node(t, a, p->type);
	}
	return n->func->ret;
}

static enum maptap_script_type to_rt(enum tr_type ty)
{
	switch (ty) {
	case TY_LONG: return MAPTAP_SCRIPT_LONG;
	case TY_STRING: return MAPTAP_SCRIPT_STRING;
	case TY_STATS: return MAPTAP_SCRIPT_STATS;
	case TY_UNKNOWN: break;
	}
	return MAPTAP_SCRIPT_ANY;
}

static enum tr_type from_rt(enum maptap_script_type ty)
{
	switch (ty) {
	case MAPTAP_SCRIPT_LONG: return TY_LONG;
	case MAPTAP_SCRIPT_STRING: return TY_STRING;
	case MAPTAP_SCRIPT_STATS: return TY_STATS;
	case MAPTAP_SCRIPT_ANY: break;
	}
	return TY_UNKNOWN;
}

static void check_format(struct tctx *t, struct node *n)
{
	struct maptap_script_fmt *f = n->aux;
	enum maptap_script_type types[64] = { 0 };
	struct maptap_script_error err = { 0 };
	size_t i, nargs = (size_t)n->list.n - 1, bad = 0;

	if (!f || nargs > 64)
		return;
	for (i = 0; i < nargs; i++)
		types[i] = to_rt(((struct node *)n->list.v[i + 1])->type);
	if (maptap_script_fmt_check(f, types, nargs, &bad, &err) == 0)
		return;
	tr_sema_error(t->e->s, bad < nargs ?
		      ((struct node *)n->list.v[bad + 1])->tok : n->tok,
		      "%s", err.msg);
}

static enum tr_type infer_print(struct tctx *t, struct node *n)
{
	bool fmt = !strcmp(n->str, "printf") || !strcmp(n->str, "sprintf");
	bool delim = !strcmp(n->str, "printd") || !strcmp(n->str, "printdln")
		     || !strcmp(n->str, "sprintd") ||
		     !strcmp(n->str, "sprintdln");
	bool is_s = n->str[0] == 's';
	int i;

	if ((fmt || delim) && n->list.n == 0) {
		if (t->final)
			tr_sema_error(t->e->s, n->tok, "%s requires at least "
				      "one argument", n->str);
		return is_s ? TY_STRING : TY_UNKNOWN;
	}
	for (i = 0; i < n->list.n; i++) {
		struct node *a = n->list.v[i];
		enum tr_type at = infer(t, a);

		if (i == 0 && (fmt || delim)) {
			if (a->kind != N_STR && t->final)
				tr_sema_error(t->e->s, a->tok, "%s must be a "
					      "literal string", fmt ?
					      "format" : "delimiter");
			continue;
		}
		if (fmt && n->aux) {
			/* the format types what it can; conflicts are
			 * check_format()'s to report, once */
			if (at == TY_UNKNOWN)
				unify_node(t, a, from_rt(
					maptap_script_fmt_arg_type(n->aux,
							(size_t)i - 1)));
			continue;
		}
		if (t->final && at == TY_STATS)
			tr_sema_error(t->e->s, a->tok, "cannot print a "
				      "statistic; use @count, @hist_log ...");
		if (t->final && at == TY_UNKNOWN && a->kind != N_HIST)
			tr_sema_error(t->e->s, a->tok, "unresolved type");
	}
	if (fmt && t->final)
		check_format(t, n);
	return is_s ? TY_STRING : TY_UNKNOWN;
}

static void compile_format(struct tctx *t, struct node *n)
{
	struct node *f;
	struct maptap_script_error err = { 0 };
	struct maptap_script_fmt *cf = NULL;

	if (n->aux || n->list.n == 0 || (strcmp(n->str, "printf") &&
					 strcmp(n->str, "sprintf")))
		return;
	f = n->list.v[0];
	if (f->kind != N_STR)
		return;
	if (maptap_script_fmt_compile(f->str, f->slen, &cf, &err) < 0) {
		if (t->final)
			tr_sema_error(t->e->s, f->tok, "%s", err.msg);
		return;
	}
	n->aux = cf;
	vec_push(&t->e->s->arena, &t->e->s->formats, cf);
}

static void note_hist(struct tctx *t, struct node *n)
{
	struct tr_sym *sym = n->a->sym;
	int kind = !strcmp(n->str, "@hist_log") ? 1 : 2;
	int64_t v[3] = { 0 };
	int i;

	if (!sym || !t->final)
		return;
	if (kind == 1 && n->list.n) {
		tr_sema_error(t->e->s, n->tok, "@hist_log takes one argument");
		return;
	}
	if (kind == 2 && n->list.n != 3) {
		tr_sema_error(t->e->s, n->tok, "@hist_linear takes four "
			      "arguments");
		return;
	}
	for (i = 0; i < n->list.n; i++) {
		struct node *a = n->list.v[i];

		if (a->kind != N_NUM) {
			tr_sema_error(t->e->s, a->tok, "expected literal "
				      "number");
			return;
		}
		v[i] = a->num;
	}
	if (sym->hist_kind == 0) {
		sym->hist_kind = kind;
		sym->hist_start = v[0];
		sym->hist_stop = v[1];
		sym->hist_interval = v[2];
		sym->hist_tok = n->tok;
		return;
	}
	if (sym->hist_kind != kind || sym->hist_start != v[0] ||
	    sym->hist_stop != v[1] || sym->hist_interval != v[2]) {
		tr_sema_error(t->e->s, n->tok, "conflicting histogram types "
			      "for '%s'", sym->name);
		tr_sema_error(t->e->s, sym->hist_tok, "first histogram here");
	}
}

static enum tr_type infer_stats_operand(struct tctx *t, struct node *n)
{
	infer(t, n->a);
	if (n->a->kind != N_VAR && n->a->kind != N_INDEX) {
		if (t->final)
			tr_sema_error(t->e->s, n->a->tok, "expected a "
				      "statistics variable or element");
		return TY_UNKNOWN;
	}
	unify_node(t, n->a, TY_STATS);
	return TY_STATS;
}

static enum tr_type infer_expr(struct tctx *t, struct node *n)
{
	enum tr_type ta, tb;

	switch (n->kind) {
	case N_NUM: return TY_LONG;
	case N_STR: return TY_STRING;
	case N_VAR:
		check_scalar_use(t, n);
		if (n->sym && n->sym->arity < 0 && n->sym->scope == SYM_GLOBAL)
			n->sym->arity = 0;
		return n->sym ? n->sym->type : TY_UNKNOWN;
	case N_INDEX:
		check_scalar_use(t, n);
		unify_keys(t, n->sym, &n->list, n->tok);
		return n->sym ? n->sym->type : TY_UNKNOWN;
	case N_CALL:
		return infer_call(t, n);
	case N_BINARY:
		infer(t, n->a);
		infer(t, n->b);
		ta = n->op == OP_CAT ? TY_STRING : TY_LONG;
		unify_node(t, n->a, ta);
		unify_node(t, n->b, ta);
		return ta;
	case N_LOGIC:
	case N_UNARY:
	case N_PRE:
	case N_POST:
		infer(t, n->a);
		unify_node(t, n->a, TY_LONG);
		if (n->b) {
			infer(t, n->b);
			unify_node(t, n->b, TY_LONG);
		}
		return TY_LONG;
	case N_CMP:
		ta = infer(t, n->a);
		tb = infer(t, n->b);
		if (t->final && (ta == TY_STATS || tb == TY_STATS)) {
			tr_sema_error(t->e->s, n->tok, "cannot compare "
				      "statistics");
			return TY_LONG;
		}
		if (ta != TY_UNKNOWN && tb != TY_UNKNOWN) {
			if (ta != tb && t->final)
				tr_sema_error(t->e->s, n->tok, "type mismatch "
					      "(%s vs. %s)", tr_type_name(ta),
					      tr_type_name(tb));
			return TY_LONG;
		}
		unify_node(t, n->b, ta);
		unify_node(t, n->a, tb);
		return TY_LONG;
	case N_REGEX:
		infer(t, n->a);
		unify_node(t, n->a, TY_STRING);
		if (n->b->kind != N_STR && t->final)
			tr_sema_error(t->e->s, n->b->tok, "regex must be a "
				      "literal string");
		return TY_LONG;
	case N_ASSIGN:
		ta = infer(t, n->a);
		tb = infer(t, n->b);
		if (n->op == OP_ASSIGN) {
			if (ta == TY_STATS || tb == TY_STATS) {
				if (t->final)
					tr_sema_error(t->e->s, n->tok, "cannot "
						      "assign to or from a "
						      "statistic; use <<<");
				return TY_UNKNOWN;
			}
			unify_node(t, n->a, tb);
			/* one conflict, one message: the target's */
			if (tb == TY_UNKNOWN)
				unify_node(t, n->b, n->a->type);
			return n->a->type;
		}
		ta = n->op == OP_CAT_ASSIGN ? TY_STRING : TY_LONG;
		unify_node(t, n->a, ta);
		unify_node(t, n->b, ta);
		return ta;
	case N_STATS_ADD:
		infer(t, n->a);
		unify_node(t, n->a, TY_STATS);
		infer(t, n->b);
		unify_node(t, n->b, TY_LONG);
		return TY_UNKNOWN;
	case N_TERNARY:
		infer(t, n->a);
		unify_node(t, n->a, TY_LONG);
		ta = infer(t, n->b);
		tb = infer(t, n->c);
		unify_node(t, n->c, ta);
		unify_node(t, n->b, tb);
		return n->b->type != TY_UNKNOWN ? n->b->type : n->c->type;
	case N_IN:
		unify_keys(t, n->a->sym, &n->list, n->tok);
		return TY_LONG;
	case N_STATOP:
		infer_stats_operand(t, n);
		if (n->b) {
			infer(t, n->b);
			if (n->b->kind != N_NUM && t->final)
				tr_sema_error(t->e->s, n->b->tok, "expected "
					      "literal number");
			else if (n->a->sym && n->b->kind == N_NUM)
				n->a->sym->bit_shift = (int)n->b->num;
		}
		return TY_LONG;
	case N_HIST:
		infer_stats_operand(t, n);
		note_hist(t, n);
		return TY_UNKNOWN;
	case N_HIST_BUCKET:
		infer(t, n->a);
		infer(t, n->b);
		unify_node(t, n->b, TY_LONG);
		return TY_LONG;
	case N_ENTRY:
		return infer(t, n->a);
	case N_TARGET: {
		int i;

		/* DWARF targets: indexes and @cast's address are longs */
		for (i = 0; n->aux && i < n->list.n; i++) {
			struct node *o = n->list.v[i];

			if (o->kind == N_STR && o->op == OP_MEMBER)
				continue;
			infer(t, o);
			unify_node(t, o, TY_LONG);
		}
		if (n->aux && n->a) {
			infer(t, n->a);
			unify_node(t, n->a, TY_LONG);
		}
		return n->type;	/* set when elaborate.c bound it */
	}
	case N_PRINT:
		compile_format(t, n);
		return infer_print(t, n);
	default:
		return TY_LONG;
	}
}

/* foreach (bucket in @hist_log(x)): one long key, the bucket index. */
static void infer_hist_foreach(struct tctx *t, struct node *n)
{
	struct foreach_info *fe = n->fe;
	int i;

	infer(t, fe->array);
	if (t->final && (fe->keys.n != 1 || fe->value || fe->slice.n ||
			 fe->sort_col))
		tr_sema_error(t->e->s, n->tok, "a foreach over histogram "
			      "buckets takes one key, no value, sort or "
			      "slice");
	for (i = 0; i < fe->keys.n; i++)
		unify_node(t, fe->keys.v[i], TY_LONG);
	if (fe->limit) {
		infer(t, fe->limit);
		unify_node(t, fe->limit, TY_LONG);
	}
	infer(t, fe->body);
}

static void infer_foreach(struct tctx *t, struct node *n)
{
	struct foreach_info *fe = n->fe;
	struct tr_sym *arr = fe->array->sym;
	int i;

	if (fe->array->kind == N_HIST) {
		infer_hist_foreach(t, n);
		return;
	}
	if (arr) {
		unify_keys(t, arr, &fe->keys, fe->array->tok);
		for (i = 0; i < fe->keys.n && i < TR_MAX_KEYS; i++) {
			struct node *k = fe->keys.v[i];

			unify_type(t, &arr->key_types[i], NULL,
				   k->sym ? k->sym->type : TY_UNKNOWN,
				   k->tok);
		}
		if (fe->value) {
			unify_node(t, fe->value, arr->type == TY_STATS ?
				   TY_UNKNOWN : arr->type);
			unify_type(t, &arr->type, &arr->type_tok,
				   fe->value->sym ? fe->value->sym->type :
				   TY_UNKNOWN, fe->value->tok);
		}
		if (fe->slice.n)
			unify_keys(t, arr, &fe->slice, fe->array->tok);
		if (t->final && fe->sort_aggr && arr->type != TY_STATS)
			tr_sema_error(t->e->s, fe->sort_aggr_tok, "an "
				      "aggregate sort (%s) needs an array of "
				      "statistics", fe->sort_aggr_tok->text);
	}
	if (fe->limit) {
		infer(t, fe->limit);
		unify_node(t, fe->limit, TY_LONG);
	}
	infer(t, fe->body);
}

static void infer_stmt(struct tctx *t, struct node *n)
{
	int i;

	switch (n->kind) {
	case N_BLOCK:
		for (i = 0; i < n->list.n; i++)
			infer(t, n->list.v[i]);
		break;
	case N_EXPR_STMT:
		infer(t, n->a);
		break;
	case N_IF:
	case N_WHILE:
		infer(t, n->a);
		unify_node(t, n->a, TY_LONG);
		infer(t, n->b);
		if (n->c)
			infer(t, n->c);
		break;
	case N_FOR:
		if (n->a)
			infer(t, n->a);
		if (n->b) {
			infer(t, n->b);
			unify_node(t, n->b, TY_LONG);
		}
		if (n->c)
			infer(t, n->c);
		infer(t, n->d);
		break;
	case N_FOREACH:
		infer_foreach(t, n);
		break;
	case N_RETURN:
		if (n->a && t->func) {
			enum tr_type ty = infer(t, n->a);

			unify_type(t, &t->func->ret, &t->func->ret_tok, ty,
				   n->a->tok);
			if (ty == TY_UNKNOWN)
				unify_node(t, n->a, t->func->ret);
		}
		break;
	case N_DELETE:
		if (n->a->kind == N_INDEX)
			unify_keys(t, n->a->sym, &n->a->list, n->a->tok);
		break;
	case N_TRY:
		infer(t, n->a);
		if (n->c)
			unify_node(t, n->c, TY_STRING);
		infer(t, n->b);
		break;
	default:
		break;
	}
}

static enum tr_type infer(struct tctx *t, struct node *n)
{
	enum tr_type ty;

	if (n->kind >= N_BLOCK) {
		infer_stmt(t, n);
		return TY_UNKNOWN;
	}
	ty = infer_expr(t, n);
	if (ty != TY_UNKNOWN)
		n->type = ty;
	return n->type;
}

static void infer_all(struct tctx *t)
{
	struct tr_elab *o = t->e->out;
	int i;

	for (i = 0; i < o->probes.n; i++) {
		struct tr_dprobe *dp = o->probes.v[i];

		t->func = NULL;
		if (dp->cond) {
			infer(t, dp->cond);
			unify_node(t, dp->cond, TY_LONG);
		}
		infer(t, dp->body);
	}
	for (i = 0; i < o->functions.n; i++) {
		struct tr_func *f = o->functions.v[i];

		t->func = f;
		if (!f->has_embedded)
			infer(t, f->body);
	}
	for (i = 0; i < o->globals.n; i++) {
		struct tr_sym *g = o->globals.v[i];

		if (g->init)
			unify_type(t, &g->type, &g->type_tok,
				   g->init->kind == N_STR ? TY_STRING :
				   TY_LONG, g->init->tok);
	}
}

static void check_unresolved(struct tctx *t, struct ptr_vec *syms)
{
	int i, k;

	for (i = 0; i < syms->n; i++) {
		struct tr_sym *sym = syms->v[i];

		if (sym->scope == SYM_LOCAL && sym->read && !sym->written)
			tr_warning(t->e->s, sym->tok, "never-assigned local "
				   "variable '%s'", sym->name);

		if (!sym->read && !sym->written)
			continue;
		if (sym->type == TY_UNKNOWN) {
			tr_sema_error(t->e->s, sym->tok, "unresolved type");
			continue;
		}
		/* Aggregates live in global storage only (stap's language
		 * reference, "Statistics"); a local or parameter has none. */
		if (sym->type == TY_STATS && sym->scope != SYM_GLOBAL) {
			tr_sema_error(t->e->s, sym->tok, "local variable '%s' "
				      "cannot be an aggregate: statistics "
				      "must be global", sym->name);
			continue;
		}
		for (k = 0; k < sym->arity; k++)
			if (sym->key_types[k] == TY_UNKNOWN) {
				tr_sema_error(t->e->s, sym->tok, "unresolved "
					      "type of array index %d", k + 1);
				break;
			}
	}
}

int tr_infer_types(struct elab *e)
{
	struct tctx t = { .e = e };
	struct tr_elab *o = e->out;
	int i, rounds = 0, before = e->s->sema_errors;

	do {
		t.changed = false;
		infer_all(&t);
	} while (t.changed && ++rounds < 50);
	t.final = true;
	infer_all(&t);
	if (e->s->sema_errors != before)
		return e->s->sema_errors - before;
	check_unresolved(&t, &o->globals);
	for (i = 0; i < o->probes.n; i++) {
		struct tr_dprobe *dp = o->probes.v[i];

		check_unresolved(&t, &dp->locals);
		if ((int)dp->locals.n > o->max_locals)
			o->max_locals = dp->locals.n;
	}
	for (i = 0; i < o->functions.n; i++) {
		struct tr_func *f = o->functions.v[i];

		check_unresolved(&t, &f->locals);
		if ((int)f->locals.n > o->max_locals)
			o->max_locals = f->locals.n;
	}
	return e->s->sema_errors - before;
}
