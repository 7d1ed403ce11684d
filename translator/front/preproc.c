/* SPDX-License-Identifier: GPL-2.0-or-later */
/* preproc.c -- stap's token-level preprocessor.
 *
 * Conditionals %( COND %? THEN %: ELSE %), macros (@define NAME(params)
 * %( body %), called as @NAME(args)) and command-line arguments ($1 as
 * tokens, @1 as a string, $# / @# as their count), following the
 * SystemTap language reference section "Conditional compilation" and
 * "Preprocessor macros".  Conditions compare arch, kernel_v, kernel_vr,
 * systemtap_v, runtime, systemtap_privilege, guru_mode and CONFIG_*
 * against literals, or two literals, joined by && and ||.
 */
#include <config.h>

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

struct tr_macro {
	const char *name;
	const struct token *name_tok;
	struct ptr_vec params;		/* const char * */
	struct token **body;
	int n_body;
	bool expanding;		/* inside its own expansion: recursion */
};

struct pp {
	struct tr_session *s;
	struct token **t;
	int depth;	/* macro expansion nesting */
};

#define MAX_EXPANSION_DEPTH 64
/* Tokens all macro expansions of a session may produce: macros that call
 * each other twice per level grow exponentially long before they nest
 * deeply. */
#define MAX_EXPANSION_TOKENS 1000000

/* The version this translator claims for systemtap_v conditions. */
#define CLAIMED_SYSTEMTAP_V "5.0"

static void pp_range(struct pp *pp, int lo, int hi, struct tok_vec *out);

/* Index of the token closing the construct opened at I (a %( ), with the
 * positions of %? and %: at the same depth. */
static int find_cond_end(struct pp *pp, int i, int hi, int *q, int *colon)
{
	int depth = 0;

	*q = *colon = -1;
	for (; i < hi; i++) {
		const struct token *t = pp->t[i];

		if (tok_op(t, "%("))
			depth++;
		else if (tok_op(t, "%)") && --depth == 0)
			return i;
		else if (depth == 1 && tok_op(t, "%?") && *q < 0)
			*q = i;
		else if (depth == 1 && tok_op(t, "%:") && *colon < 0)
			*colon = i;
	}
	return -1;
}

/* Compare dotted versions numerically, component by component. */
static int version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		char *ea, *eb;
		long x = strtol(a, &ea, 10), y = strtol(b, &eb, 10);

		if (x != y)
			return x < y ? -1 : 1;
		a = ea;
		b = eb;
		while (*a && (*a < '0' || *a > '9'))
			a++;
		while (*b && (*b < '0' || *b > '9'))
			b++;
	}
	return 0;
}

static bool apply_cmp(const char *op, int c)
{
	if (!strcmp(op, "=="))
		return c == 0;
	if (!strcmp(op, "!="))
		return c != 0;
	if (!strcmp(op, "<"))
		return c < 0;
	if (!strcmp(op, "<="))
		return c <= 0;
	if (!strcmp(op, ">"))
		return c > 0;
	return c >= 0;
}

static bool is_cmp_op(const struct token *t)
{
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=" };
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (tok_op(t, ops[i]))
			return true;
	return false;
}

/* Value of a condition's left-hand name; NULL when unknown. */
static const char *cond_name_value(struct pp *pp, const char *name,
				   bool *is_version)
{
	*is_version = false;
	if (!strcmp(name, "arch"))
		return TR_ARCH_NAME;
	if (!strcmp(name, "runtime"))
		return TR_RUNTIME_NAME;
	if (!strcmp(name, "systemtap_privilege"))
		return "stapusr";
	if (!strcmp(name, "guru_mode"))
		return "0";
	*is_version = true;
	if (!strcmp(name, "kernel_v"))
		return pp->s->kernel_v;
	if (!strcmp(name, "kernel_vr"))
		return pp->s->kernel_vr;
	if (!strcmp(name, "systemtap_v"))
		return CLAIMED_SYSTEMTAP_V;
	*is_version = false;
	if (!strncmp(name, "CONFIG_", 7))
		return "";	/* no kernel configuration in user space */
	return NULL;
}

static bool eval_term(struct pp *pp, int *i, int hi, bool *ok)
{
	const struct token *l, *op, *r;
	bool ver;
	const char *lv;

	if (*i + 2 >= hi) {
		tr_parse_error(pp->s, pp->t[*i < hi ? *i : hi],
			       "expected comparison in conditional");
		*ok = false;
		return false;
	}
	l = pp->t[*i];
	op = pp->t[*i + 1];
	r = pp->t[*i + 2];
	if (!is_cmp_op(op)) {
		tr_parse_error(pp->s, op, "expected comparison operator");
		*ok = false;
		return false;
	}
	*i += 3;
	if (l->type == TOK_NUMBER && r->type == TOK_NUMBER)
		return apply_cmp(op->text, l->num < r->num ? -1 :
				 l->num > r->num);
	if (l->type == TOK_STRING && r->type == TOK_STRING)
		return apply_cmp(op->text, strcmp(l->text, r->text));
	if (l->type != TOK_IDENT ||
	    !(lv = cond_name_value(pp, l->text, &ver))) {
		tr_parse_error(pp->s, l, "expected 'arch', 'kernel_v', "
			       "'kernel_vr', 'systemtap_v', 'runtime' or a "
			       "literal in conditional");
		*ok = false;
		return false;
	}
	if (r->type == TOK_NUMBER)
		return apply_cmp(op->text, version_cmp(lv, r->text));
	/* CONFIG_NR_CPUS >= CONFIG_SPLIT_PTLOCK_CPUS (linux/proc_mem.stp):
	 * two kernel options, neither known in user space: false. */
	if (r->type == TOK_IDENT && !strncmp(r->text, "CONFIG_", 7) &&
	    !strncmp(l->text, "CONFIG_", 7))
		return false;
	if (r->type != TOK_STRING) {
		tr_parse_error(pp->s, r, "expected string literal");
		*ok = false;
		return false;
	}
	if (ver && strcmp(op->text, "==") && strcmp(op->text, "!="))
		return apply_cmp(op->text, version_cmp(lv, r->text));
	if (!strcmp(op->text, "==") || !strcmp(op->text, "!="))
		return apply_cmp(op->text, fnmatch(r->text, lv, 0) ? 1 : 0);
	return apply_cmp(op->text, strcmp(lv, r->text));
}

static bool eval_or(struct pp *pp, int *i, int hi, bool *ok);

static bool eval_and(struct pp *pp, int *i, int hi, bool *ok)
{
	bool v;

	if (*i < hi && tok_op(pp->t[*i], "(")) {
		(*i)++;
		v = eval_or(pp, i, hi, ok);
		if (*i < hi && tok_op(pp->t[*i], ")"))
			(*i)++;
	} else {
		v = eval_term(pp, i, hi, ok);
	}
	while (*ok && *i < hi && tok_op(pp->t[*i], "&&")) {
		bool w;

		(*i)++;
		w = eval_and(pp, i, hi, ok);
		v = v && w;
	}
	return v;
}

static bool eval_or(struct pp *pp, int *i, int hi, bool *ok)
{
	bool v = eval_and(pp, i, hi, ok);

	while (*ok && *i < hi && tok_op(pp->t[*i], "||")) {
		bool w;

		(*i)++;
		w = eval_and(pp, i, hi, ok);
		v = v || w;
	}
	return v;
}

/* Substitute command-line arguments in the condition first, so that
 * %( $# > 1 %? ... %) works. */
static bool eval_cond(struct pp *pp, int lo, int hi)
{
	struct tok_vec cond = { 0 };
	struct pp sub = *pp;
	bool ok = true, v;
	int i = 0;

	pp_range(pp, lo, hi, &cond);
	if (cond.n == 0) {
		tr_parse_error(pp->s, pp->t[lo], "expected condition");
		return false;
	}
	tok_push(pp->s, &cond, pp->t[hi]);	/* sentinel for messages */
	sub.t = cond.v;
	v = eval_or(&sub, &i, cond.n - 1, &ok);
	if (ok && i != cond.n - 1)
		tr_parse_error(pp->s, cond.v[i], "expected '%%?' in conditional");
	return ok && v;
}

static int do_conditional(struct pp *pp, int i, int hi, struct tok_vec *out)
{
	int q, colon, end = find_cond_end(pp, i, hi, &q, &colon);

	if (end < 0 || q < 0) {
		tr_parse_error(pp->s, pp->t[i], "incomplete conditional - "
			       "missing '%%?' or '%%)'");
		return hi;
	}
	if (eval_cond(pp, i + 1, q))
		pp_range(pp, q + 1, colon >= 0 ? colon : end, out);
	else if (colon >= 0)
		pp_range(pp, colon + 1, end, out);
	return end + 1;
}

static struct tr_macro *find_macro(struct tr_session *s, const char *name)
{
	int i;

	for (i = s->macros.n - 1; i >= 0; i--) {
		struct tr_macro *m = s->macros.v[i];

		if (!strcmp(m->name, name))
			return m;
	}
	return NULL;
}

/* @define NAME[(a, b)] %( body %) */
static int do_define(struct pp *pp, int i, int hi)
{
	struct tr_session *s = pp->s;
	struct tr_macro *m;
	int q, colon, end;

	if (i + 1 >= hi || pp->t[i + 1]->type != TOK_IDENT ||
	    pp->t[i + 1]->text[0] == '@' || pp->t[i + 1]->text[0] == '$') {
		tr_parse_error(s, pp->t[i + 1 < hi ? i + 1 : i],
			       "expected macro name after @define");
		return i + 1;
	}
	m = arena_alloc(&s->arena, sizeof(*m));
	m->name = pp->t[i + 1]->text;
	m->name_tok = pp->t[i + 1];
	i += 2;
	if (i < hi && tok_op(pp->t[i], "(")) {
		for (i++; i < hi && !tok_op(pp->t[i], ")"); i++) {
			if (pp->t[i]->type == TOK_IDENT)
				vec_push(&s->arena, &m->params,
					 (void *)pp->t[i]->text);
			else if (!tok_op(pp->t[i], ",")) {
				tr_parse_error(s, pp->t[i], "expected macro "
					       "parameter name");
				return i + 1;
			}
		}
		i++;
	}
	if (i >= hi || !tok_op(pp->t[i], "%(")) {
		tr_parse_error(s, pp->t[i < hi ? i : hi - 1],
			       "expected '%%(' after macro name");
		return i + 1;
	}
	end = find_cond_end(pp, i, hi, &q, &colon);
	if (end < 0) {
		tr_parse_error(s, pp->t[i], "missing '%%)' in macro body");
		return hi;
	}
	m->body = pp->t + i + 1;
	m->n_body = end - i - 1;
	vec_push(&s->arena, &s->macros, m);
	return end + 1;
}

static struct token *copy_tok(struct tr_session *s, const struct token *t,
			      const struct token *from)
{
	struct token *c = arena_alloc(&s->arena, sizeof(*c));

	*c = *t;
	c->expanded_from = from;
	return c;
}

/* Split @NAME(args) into argument ranges; returns the index after ')'. */
static int macro_args(struct pp *pp, int i, int hi, int *starts, int *ends,
		      int nmax, int *nargs)
{
	int depth = 0, n = 0;

	starts[0] = i + 1;
	for (i++; i < hi; i++) {
		const struct token *t = pp->t[i];

		if (tok_op(t, "(") || tok_op(t, "[") || tok_op(t, "{"))
			depth++;
		else if ((tok_op(t, ")") || tok_op(t, "]") ||
			  tok_op(t, "}")) && depth > 0)
			depth--;
		else if (tok_op(t, ")") || (depth == 0 && tok_op(t, ","))) {
			if (n < nmax)
				ends[n] = i;
			n++;
			if (tok_op(t, ")"))
				break;
			if (n < nmax)
				starts[n] = i + 1;
		}
	}
	*nargs = (n == 1 && starts[0] == ends[0]) ? 0 : n;
	return i + 1;
}

static int do_macro_call(struct pp *pp, int i, int hi, struct tr_macro *m,
			 struct tok_vec *out)
{
	struct tr_session *s = pp->s;
	const struct token *call = pp->t[i];
	int starts[32], ends[32], nargs = 0, next = i + 1, k, j;
	struct tok_vec body = { 0 }, args[32];
	struct pp sub = *pp;

	if (pp->depth > MAX_EXPANSION_DEPTH) {
		tr_parse_error(s, call, "macro expansion too deep");
		return hi;
	}
	if (m->expanding) {
		tr_parse_error(s, call, "recursive macro invocation of '@%s'",
			       m->name);
		return hi;
	}
	if (s->macro_tokens > MAX_EXPANSION_TOKENS) {
		tr_parse_error(s, call, "macro expansion too large");
		return hi;
	}
	if (m->params.n > 0) {
		if (next >= hi || !tok_op(pp->t[next], "(")) {
			tr_parse_error(s, call, "expected '(' after macro "
				       "name");
			return next;
		}
		next = macro_args(pp, next, hi, starts, ends, 32, &nargs);
		if (nargs != m->params.n) {
			tr_parse_error(s, call, "incorrect number of "
				       "parameters for macro '%s'", m->name);
			return next;
		}
	}
	/* Arguments are expanded where the call stands, before this macro
	 * counts as expanding: @m(@m(a, b), c) nests, it does not recurse. */
	for (k = 0; k < nargs && k < 32; k++) {
		struct tok_vec arg = { 0 };

		pp_range(pp, starts[k], ends[k], &arg);
		args[k] = arg;
	}
	for (k = 0; k < m->n_body; k++) {
		const struct token *bt = m->body[k];
		int p = -1;

		for (j = 0; bt->type == TOK_IDENT && j < m->params.n; j++)
			if (bt->text[0] == '@' &&
			    !strcmp(bt->text + 1, m->params.v[j]))
				p = j;
		if (p < 0) {
			tok_push(s, &body, copy_tok(s, bt, call));
			continue;
		}
		for (j = 0; j < args[p].n; j++)
			tok_push(s, &body, copy_tok(s, args[p].v[j], call));
	}
	tok_push(s, &body, pp->t[next - 1]);	/* sentinel */
	sub.t = body.v;
	sub.depth = pp->depth + 1;
	s->macro_tokens += body.n;
	m->expanding = true;
	pp_range(&sub, 0, body.n - 1, out);
	m->expanding = false;
	return next;
}

static void push_arg_tokens(struct pp *pp, const struct token *t, long n,
			    bool as_string, struct tok_vec *out)
{
	struct tr_session *s = pp->s;
	const struct tr_options *o = s->opts;
	int nargs = o ? o->n_script_args : 0;
	struct token *c;

	if (n < 1 || n > nargs) {
		tr_parse_error(s, t, "command line argument index %ld out of "
			       "range [1-%d]", n, nargs);
		return;
	}
	if (as_string) {
		c = copy_tok(s, t, NULL);
		c->type = TOK_STRING;
		c->text = o->script_args[n - 1];
		c->len = strlen(c->text);
		tok_push(s, out, c);
	} else {
		struct src_file *f = arena_alloc(&s->arena, sizeof(*f));
		struct tok_vec v = { 0 };
		int k;

		f->name = arena_printf(&s->arena, "<argument %ld>", n);
		f->text = o->script_args[n - 1];
		f->len = strlen(f->text);
		tr_lex(s, f, &v);
		for (k = 0; k + 1 < v.n; k++)
			tok_push(s, out, copy_tok(s, v.v[k], t));
	}
}

/* $1 @1 $# @#: returns true if T was one and was handled. */
static bool do_script_arg(struct pp *pp, const struct token *t,
			  struct tok_vec *out)
{
	const char *p = t->text;
	char *end;
	long n;

	if (t->type != TOK_IDENT || (p[0] != '$' && p[0] != '@'))
		return false;
	if (!strcmp(p + 1, "#")) {
		struct token *c = copy_tok(pp->s, t, NULL);

		c->type = p[0] == '$' ? TOK_NUMBER : TOK_STRING;
		c->num = pp->s->opts ? pp->s->opts->n_script_args : 0;
		c->text = arena_printf(&pp->s->arena, "%ld", (long)c->num);
		c->len = strlen(c->text);
		tok_push(pp->s, out, c);
		return true;
	}
	if (p[1] < '0' || p[1] > '9')
		return false;
	n = strtol(p + 1, &end, 10);
	if (*end)
		return false;
	push_arg_tokens(pp, t, n, p[0] == '@', out);
	return true;
}

static void pp_range(struct pp *pp, int lo, int hi, struct tok_vec *out)
{
	int i = lo;

	while (i < hi) {
		const struct token *t = pp->t[i];
		struct tr_macro *m;

		if (tok_op(t, "%(")) {
			i = do_conditional(pp, i, hi, out);
		} else if (tok_op(t, "%?") || tok_op(t, "%:") ||
			   tok_op(t, "%)")) {
			tr_parse_error(pp->s, t, "incomplete conditional - "
				       "missing '%%('");
			i++;
		} else if (tok_is(t, TOK_IDENT, "@define")) {
			i = do_define(pp, i, hi);
		} else if (t->type == TOK_IDENT && t->text[0] == '@' &&
			   (m = find_macro(pp->s, t->text + 1))) {
			i = do_macro_call(pp, i, hi, m, out);
		} else if (do_script_arg(pp, t, out)) {
			i++;
		} else {
			tok_push(pp->s, out, (struct token *)t);
			i++;
		}
	}
}

void tr_preprocess(struct tr_session *s, const struct tok_vec *in,
		   struct tok_vec *out)
{
	struct pp pp = { .s = s, .t = in->v };

	/* The last input token is EOF; keep it as the parser's sentinel. */
	pp_range(&pp, 0, in->n - 1, out);
	tok_push(s, out, in->v[in->n - 1]);
}

void tr_load_macros(struct tr_session *s, const struct tok_vec *in)
{
	struct tok_vec ignored = { 0 };

	tr_preprocess(s, in, &ignored);
}
