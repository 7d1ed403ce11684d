/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse.c -- pass 1: the SystemTap-language grammar, recursive descent.
 *
 * Precedence and forms follow stap's parser as the language reference
 * documents them: assignment (right), ?:, ||, &&, |, ^, &, 'in',
 * comparisons and =~ !~, << >>, '.', + -, * / %, unary, ++/--.  On a
 * syntax error the parser reports it, skips to the next top-level
 * keyword and goes on, so one run shows every error of a file.
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"

struct parser {
	struct tr_session *s;
	struct tok_vec toks;
	int pos;
	struct tr_file *file;
	jmp_buf recover;
	bool in_function;
	int depth;		/* nesting of expressions and statements */
};

/* Deeper nesting than any real script has is refused rather than
 * recursed into: the passes after this one recurse over the tree too. */
#define MAX_NESTING 500

struct node *node_new(struct tr_session *s, enum node_kind kind,
		      const struct token *tok)
{
	struct node *n = arena_alloc(&s->arena, sizeof(*n));

	n->kind = kind;
	n->tok = tok;
	n->builtin = -1;
	return n;
}

static const struct token *peek(struct parser *p, int k)
{
	int i = p->pos + k;

	return p->toks.v[i < p->toks.n ? i : p->toks.n - 1];
}

static const struct token *next(struct parser *p)
{
	const struct token *t = peek(p, 0);

	if (p->pos < p->toks.n - 1)
		p->pos++;
	return t;
}

static void __attribute__((noreturn, format(printf, 3, 4)))
fail(struct parser *p, const struct token *t, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tr_parse_error(p->s, t, "%s", msg);
	longjmp(p->recover, 1);
}

static bool accept_op(struct parser *p, const char *op)
{
	if (!tok_op(peek(p, 0), op))
		return false;
	next(p);
	return true;
}

static const struct token *expect_op(struct parser *p, const char *op)
{
	if (!tok_op(peek(p, 0), op))
		fail(p, peek(p, 0), "expected '%s'", op);
	return next(p);
}

/* The operator of OPS (ended by OP_NONE) that T is, or OP_NONE. */
static enum tr_op match_op(const struct token *t, const enum tr_op *ops)
{
	for (; *ops != OP_NONE; ops++)
		if (tok_op(t, tr_op_name(*ops)))
			return *ops;
	return OP_NONE;
}

static const struct token *expect_ident(struct parser *p)
{
	const struct token *t = peek(p, 0);

	if (t->type != TOK_IDENT || t->text[0] == '@' || t->text[0] == '$')
		fail(p, t, "expected identifier");
	return next(p);
}

static struct node *parse_expr(struct parser *p);
static struct node *parse_stmt(struct parser *p);
static struct node *parse_block(struct parser *p);

static bool is_print_name(const char *n)
{
	static const char *const names[] = {
		"print", "println", "printf", "printd", "printdln",
		"sprint", "sprintln", "sprintf", "sprintd", "sprintdln", NULL
	};
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(names[i], n))
			return true;
	return false;
}

static bool is_statop(const char *n)
{
	return !strcmp(n, "@count") || !strcmp(n, "@sum") ||
	       !strcmp(n, "@min") || !strcmp(n, "@max") ||
	       !strcmp(n, "@avg") || !strcmp(n, "@variance");
}

/* '(' expr, expr ... ')' into LIST; '*' gives NULL when STAR is set. */
static void parse_args(struct parser *p, struct ptr_vec *list,
		       const char *close, bool star)
{
	if (accept_op(p, close))
		return;
	for (;;) {
		if (star && tok_op(peek(p, 0), "*") &&
		    (tok_op(peek(p, 1), ",") || tok_op(peek(p, 1), close))) {
			next(p);
			vec_push(&p->s->arena, list, NULL);
		} else {
			vec_push(&p->s->arena, list, parse_expr(p));
		}
		if (accept_op(p, close))
			return;
		if (!tok_op(peek(p, 0), ","))
			fail(p, peek(p, 0), "expected ',' or '%s'", close);
		next(p);
	}
}

static struct node *parse_string_lit(struct parser *p)
{
	const struct token *t = next(p);
	struct node *n = node_new(p->s, N_STR, t);
	size_t len = t->len;
	char *buf;
	int k = 0;

	/* Adjacent literals concatenate, as in C. */
	while (peek(p, k)->type == TOK_STRING)
		len += peek(p, k++)->len;
	if (k == 0) {
		n->str = t->text;
		n->slen = t->len;
		return n;
	}
	buf = arena_alloc(&p->s->arena, len + 1);
	memcpy(buf, t->text, t->len);
	n->slen = t->len;
	while (peek(p, 0)->type == TOK_STRING) {
		const struct token *u = next(p);

		memcpy(buf + n->slen, u->text, u->len);
		n->slen += u->len;
	}
	n->str = buf;
	return n;
}

/* The arguments of @cast(...) / @var(...) as source text, for -p1. */
static const char *args_text(struct parser *p, const struct ptr_vec *args)
{
	char *buf = NULL, *out;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int i;

	if (!f)
		return "...";
	for (i = 0; i < args->n; i++) {
		if (i)
			fputs(", ", f);
		tr_dump_node(f, args->v[i], 0);
	}
	fclose(f);
	out = arena_strdup(&p->s->arena, buf ? buf : "");
	free(buf);
	return out;
}

/* The member, index and pretty-print suffixes after a target value:
 * ->field, [index], $, $$.  Returns the whole text.  With N, the steps
 * go on N's list for elaboration: a member as an N_STR with op OP_MEMBER,
 * an index as its expression. */
static char *target_suffix(struct parser *p, char *text, struct node *n)
{
	for (;;) {
		if (accept_op(p, "->")) {
			const struct token *f = next(p);

			text = arena_printf(&p->s->arena, "%s->%s", text,
					    f->text);
			if (n) {
				/* ->field$ / ->field$$ lex as one word */
				struct node *m = node_new(p->s, N_STR, f);
				size_t len = strlen(f->text);

				while (len > 1 && f->text[len - 1] == '$')
					len--;
				m->op = OP_MEMBER;
				m->str = arena_strndup(&p->s->arena, f->text,
						       len);
				m->slen = len;
				vec_push(&p->s->arena, &n->list, m);
			}
		} else if (tok_op(peek(p, 0), "[")) {
			struct node *ix;

			next(p);
			ix = parse_expr(p);
			expect_op(p, "]");
			text = arena_printf(&p->s->arena, "%s[...]", text);
			if (n)
				vec_push(&p->s->arena, &n->list, ix);
		} else if (tok_op(peek(p, 0), "$") ||
			   tok_is(peek(p, 0), TOK_IDENT, "$$")) {
			text = arena_printf(&p->s->arena, "%s%s", text,
					    next(p)->text);
		} else {
			return text;
		}
	}
}

/* $var, $var->field[i], @var("x"), @cast(e, "t")->f: kept as text, since
 * -p1 prints them so, and as steps on the node's list; @cast's address,
 * type and module go to a, b, c. */
static struct node *parse_target(struct parser *p)
{
	const struct token *t = next(p);
	struct node *n = node_new(p->s, N_TARGET, t);
	char *text = (char *)t->text;

	if (t->text[0] == '@') {
		struct ptr_vec args = { 0 };

		expect_op(p, "(");
		parse_args(p, &args, ")", false);
		text = arena_printf(&p->s->arena, "%s(%s)", t->text,
				    args_text(p, &args));
		n->a = args.n > 0 ? args.v[0] : NULL;
		n->b = args.n > 1 ? args.v[1] : NULL;
		n->c = args.n > 2 ? args.v[2] : NULL;
		n->d = args.n > 3 ? args.v[3] : NULL;
	}
	n->str = target_suffix(p, text, n);
	return n;
}

static struct node *parse_at_op(struct parser *p)
{
	const struct token *t = peek(p, 0);
	struct node *n;

	if (is_statop(t->text)) {
		next(p);
		n = node_new(p->s, N_STATOP, t);
		n->str = t->text;
		expect_op(p, "(");
		n->a = parse_expr(p);
		if (!strcmp(t->text, "@variance") && accept_op(p, ","))
			n->b = parse_expr(p);
		expect_op(p, ")");
		return n;
	}
	if (!strcmp(t->text, "@hist_log") || !strcmp(t->text, "@hist_linear")) {
		next(p);
		n = node_new(p->s, N_HIST, t);
		n->str = t->text;
		expect_op(p, "(");
		n->a = parse_expr(p);
		while (accept_op(p, ","))
			vec_push(&p->s->arena, &n->list, parse_expr(p));
		expect_op(p, ")");
		if (tok_op(peek(p, 0), "[")) {
			struct node *b = node_new(p->s, N_HIST_BUCKET, next(p));

			b->a = n;
			b->b = parse_expr(p);
			expect_op(p, "]");
			return b;
		}
		return n;
	}
	if (!strcmp(t->text, "@defined") || !strcmp(t->text, "@entry")) {
		next(p);
		n = node_new(p->s, t->text[1] == 'd' ? N_DEFINED : N_ENTRY, t);
		expect_op(p, "(");
		n->a = parse_expr(p);
		expect_op(p, ")");
		return n;
	}
	if (!strcmp(t->text, "@var") || !strcmp(t->text, "@cast") ||
	    !strcmp(t->text, "@kregister") || !strcmp(t->text, "@uregister") ||
	    !strcmp(t->text, "@probewrite") || !strcmp(t->text, "@const"))
		return parse_target(p);
	fail(p, t, "unknown operator %s", t->text);
}

static struct node *parse_ident_expr(struct parser *p)
{
	const struct token *t = next(p);
	struct node *n;

	if (tok_op(peek(p, 0), "(")) {
		n = node_new(p->s, is_print_name(t->text) ? N_PRINT : N_CALL,
			     t);
		n->str = t->text;
		next(p);
		parse_args(p, &n->list, ")", false);
		return n;
	}
	if (tok_op(peek(p, 0), "[")) {
		n = node_new(p->s, N_INDEX, t);
		n->str = t->text;
		next(p);
		parse_args(p, &n->list, "]", true);
		if (n->list.n == 0)
			fail(p, peek(p, 0), "expected index expression");
		return n;
	}
	n = node_new(p->s, N_VAR, t);
	n->str = t->text;
	return n;
}

static struct node *parse_value(struct parser *p)
{
	const struct token *t = peek(p, 0);
	struct node *n;

	switch (t->type) {
	case TOK_NUMBER:
		next(p);
		n = node_new(p->s, N_NUM, t);
		n->num = t->num;
		return n;
	case TOK_STRING:
		return parse_string_lit(p);
	case TOK_EMBEDDED:
		next(p);
		n = node_new(p->s, N_EMBEDDED_EXPR, t);
		n->str = t->text;
		return n;
	case TOK_IDENT:
		if (t->text[0] == '$')
			return parse_target(p);
		if (t->text[0] == '@')
			return parse_at_op(p);
		return parse_ident_expr(p);
	case TOK_OP:
		if (tok_op(t, "(")) {
			next(p);
			n = parse_expr(p);
			expect_op(p, ")");
			return n;
		}
		break;
	default:
		break;
	}
	fail(p, t, "expected literal string or number");
}

/* An expression as source text, for the target expressions built on it. */
static char *node_text(struct parser *p, const struct node *n)
{
	char *buf = NULL, *out;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return "...";
	tr_dump_node(f, n, 0);
	fclose(f);
	out = arena_strdup(&p->s->arena, buf ? buf : "");
	free(buf);
	return out;
}

/* Does V, followed by T, start a target expression on a value (stap's
 * "autocast"): l_map->l_name on a local, task_current()->tgid on a
 * call's result, (@cast(...))[i] or &(__args)[0] on a parenthesized
 * expression?  An identifier's own [ is an array index, already read. */
static bool starts_autocast(const struct node *v, const struct token *t,
			    bool parenthesized)
{
	if (tok_op(t, "->"))
		return v->kind != N_NUM && v->kind != N_STR;
	if (!tok_op(t, "["))
		return false;
	return parenthesized || v->kind == N_CALL || v->kind == N_INDEX;
}

static struct node *parse_postfix(struct parser *p)
{
	bool paren = tok_op(peek(p, 0), "(");
	struct node *v = parse_value(p);
	const struct token *t = peek(p, 0);

	/* A value used as a typed pointer: a target expression like
	 * @cast(...)->f, refused at pass 2 with the other target
	 * variables. */
	if (starts_autocast(v, t, paren)) {
		struct node *n = node_new(p->s, N_TARGET, v->tok);
		char *base = v->kind == N_VAR ? (char *)v->tok->text :
			arena_printf(&p->s->arena, "(%s)", node_text(p, v));

		n->str = target_suffix(p, base, NULL);
		return n;
	}

	if (tok_op(t, "++") || tok_op(t, "--")) {
		struct node *n = node_new(p->s, N_POST, next(p));

		n->op = tok_op(t, "++") ? OP_INC : OP_DEC;
		n->a = v;
		return n;
	}
	return v;
}

static struct node *parse_unary(struct parser *p)
{
	static const enum tr_op unary_ops[] = {
		OP_NEG, OP_PLUS, OP_NOT, OP_BNOT, OP_ADDR, OP_NONE
	};
	const struct token *t = peek(p, 0);
	enum tr_op op;
	struct node *n;

	if (tok_op(t, "++") || tok_op(t, "--")) {
		next(p);
		if (++p->depth > MAX_NESTING)
			fail(p, t, "expression nesting too deep");
		n = node_new(p->s, N_PRE, t);
		n->op = tok_op(t, "++") ? OP_INC : OP_DEC;
		n->a = parse_unary(p);
		p->depth--;
		return n;
	}
	op = match_op(t, unary_ops);
	if (op != OP_NONE) {
		next(p);
		if (++p->depth > MAX_NESTING)
			fail(p, t, "expression nesting too deep");
		/* -9223372036854775808 must stay a literal. */
		if (op == OP_NEG && peek(p, 0)->type == TOK_NUMBER &&
		    !tok_op(peek(p, 1), "++")) {
			const struct token *num = next(p);

			n = node_new(p->s, N_NUM, t);
			n->num = (int64_t)(0 - (uint64_t)num->num);
			p->depth--;
			return n;
		}
		n = node_new(p->s, N_UNARY, t);
		n->op = op;
		n->a = parse_unary(p);
		p->depth--;
		return n;
	}
	return parse_postfix(p);
}

typedef struct node *(*parse_fn)(struct parser *p);

static struct node *binary_level(struct parser *p, parse_fn sub,
				 enum node_kind kind, const enum tr_op *ops)
{
	struct node *l = sub(p);

	for (;;) {
		const struct token *t = peek(p, 0);
		enum tr_op op = match_op(t, ops);

		if (op == OP_NONE)
			return l;
		next(p);
		struct node *n = node_new(p->s, kind, t);

		n->op = op;
		n->a = l;
		n->b = sub(p);
		l = n;
	}
}

static struct node *parse_mul(struct parser *p)
{
	static const enum tr_op ops[] = { OP_MUL, OP_DIV, OP_MOD, OP_NONE };

	return binary_level(p, parse_unary, N_BINARY, ops);
}

static struct node *parse_add(struct parser *p)
{
	static const enum tr_op ops[] = { OP_ADD, OP_SUB, OP_NONE };

	return binary_level(p, parse_mul, N_BINARY, ops);
}

static struct node *parse_concat(struct parser *p)
{
	static const enum tr_op ops[] = { OP_CAT, OP_NONE };

	return binary_level(p, parse_add, N_BINARY, ops);
}

static struct node *parse_shift(struct parser *p)
{
	static const enum tr_op ops[] = { OP_SHL, OP_SHR, OP_NONE };

	return binary_level(p, parse_concat, N_BINARY, ops);
}

static struct node *parse_cmp(struct parser *p)
{
	static const enum tr_op ops[] = {
		OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_NONE
	};
	struct node *l = parse_shift(p);

	for (;;) {
		const struct token *t = peek(p, 0);
		struct node *n;
		enum tr_op op;

		if (tok_op(t, "=~") || tok_op(t, "!~")) {
			next(p);
			n = node_new(p->s, N_REGEX, t);
			n->op = tok_op(t, "=~") ? OP_MATCH : OP_NOMATCH;
			n->a = l;
			n->b = parse_shift(p);
			l = n;
			continue;
		}
		op = match_op(t, ops);
		if (op == OP_NONE)
			return l;
		next(p);
		n = node_new(p->s, N_CMP, t);
		n->op = op;
		n->a = l;
		n->b = parse_shift(p);
		l = n;
	}
}

static struct node *parse_array_ref(struct parser *p)
{
	const struct token *t = expect_ident(p);
	struct node *n = node_new(p->s, N_VAR, t);

	n->str = t->text;
	return n;
}

static struct node *parse_in(struct parser *p)
{
	const struct token *t = peek(p, 0);
	struct node *n;

	if (tok_op(t, "[")) {
		next(p);
		n = node_new(p->s, N_IN, t);
		parse_args(p, &n->list, "]", true);
		if (!tok_kw(peek(p, 0), "in"))
			fail(p, peek(p, 0), "expected 'in'");
		n->tok = next(p);
		n->a = parse_array_ref(p);
		return n;
	}
	struct node *l = parse_cmp(p);

	while (tok_kw(peek(p, 0), "in")) {
		n = node_new(p->s, N_IN, next(p));
		vec_push(&p->s->arena, &n->list, l);
		n->a = parse_array_ref(p);
		l = n;
	}
	return l;
}

static struct node *parse_bitand(struct parser *p)
{
	static const enum tr_op ops[] = { OP_BAND, OP_NONE };

	return binary_level(p, parse_in, N_BINARY, ops);
}

static struct node *parse_bitxor(struct parser *p)
{
	static const enum tr_op ops[] = { OP_BXOR, OP_NONE };

	return binary_level(p, parse_bitand, N_BINARY, ops);
}

static struct node *parse_bitor(struct parser *p)
{
	static const enum tr_op ops[] = { OP_BOR, OP_NONE };

	return binary_level(p, parse_bitxor, N_BINARY, ops);
}

static struct node *parse_and(struct parser *p)
{
	static const enum tr_op ops[] = { OP_LAND, OP_NONE };

	return binary_level(p, parse_bitor, N_LOGIC, ops);
}

static struct node *parse_or(struct parser *p)
{
	static const enum tr_op ops[] = { OP_LOR, OP_NONE };

	return binary_level(p, parse_and, N_LOGIC, ops);
}

static struct node *parse_ternary(struct parser *p)
{
	struct node *c = parse_or(p), *n;

	if (!tok_op(peek(p, 0), "?"))
		return c;
	n = node_new(p->s, N_TERNARY, next(p));
	n->a = c;
	n->b = parse_expr(p);
	expect_op(p, ":");
	n->c = parse_ternary(p);
	return n;
}

/* The assignment operator T is, or OP_NONE. */
static enum tr_op assign_op(const struct token *t)
{
	static const enum tr_op ops[] = {
		OP_ASSIGN, OP_ADD_ASSIGN, OP_SUB_ASSIGN, OP_MUL_ASSIGN,
		OP_DIV_ASSIGN, OP_MOD_ASSIGN, OP_SHL_ASSIGN, OP_SHR_ASSIGN,
		OP_BAND_ASSIGN, OP_BOR_ASSIGN, OP_BXOR_ASSIGN, OP_CAT_ASSIGN,
		OP_NONE
	};

	return match_op(t, ops);
}

static bool is_lvalue(const struct node *n)
{
	return n->kind == N_VAR || n->kind == N_INDEX || n->kind == N_TARGET;
}

static struct node *parse_expr_inner(struct parser *p);

static struct node *parse_expr(struct parser *p)
{
	struct node *n;

	if (++p->depth > MAX_NESTING)
		fail(p, peek(p, 0), "expression nesting too deep");
	n = parse_expr_inner(p);
	p->depth--;
	return n;
}

static struct node *parse_expr_inner(struct parser *p)
{
	struct node *l = parse_ternary(p), *n;
	const struct token *t = peek(p, 0);
	enum tr_op op;

	if (tok_op(t, "<<<")) {
		if (!is_lvalue(l))
			fail(p, t, "left side of '<<<' must be a variable "
			     "or array element");
		n = node_new(p->s, N_STATS_ADD, next(p));
		n->op = OP_STATS_ADD;
		n->a = l;
		n->b = parse_expr(p);
		return n;
	}
	op = assign_op(t);
	if (op == OP_NONE)
		return l;
	if (!is_lvalue(l))
		fail(p, t, "left side of assignment is not an lvalue");
	n = node_new(p->s, N_ASSIGN, next(p));
	n->op = op;
	n->a = l;
	n->b = parse_expr(p);
	return n;
}

/* ---- statements ---- */

static struct node *parse_foreach(struct parser *p, const struct token *kw)
{
	struct node *n = node_new(p->s, N_FOREACH, kw);
	struct foreach_info *fe = arena_alloc(&p->s->arena, sizeof(*fe));
	const struct token *sort_tok = NULL;

	n->fe = fe;
	expect_op(p, "(");
	/* v [+-] = [keys] in ... */
	if (peek(p, 0)->type == TOK_IDENT &&
	    (tok_op(peek(p, 1), "=") ||
	     ((tok_op(peek(p, 1), "+") || tok_op(peek(p, 1), "-")) &&
	      tok_op(peek(p, 2), "=")))) {
		fe->value = parse_array_ref(p);
		if (tok_op(peek(p, 0), "+") || tok_op(peek(p, 0), "-")) {
			sort_tok = next(p);
			fe->sort_col = -1;
			fe->sort_dir = sort_tok->text[0] == '+' ? 1 : -1;
		}
		expect_op(p, "=");
	}
	bool bracket = accept_op(p, "[");

	do {
		vec_push(&p->s->arena, &fe->keys, parse_array_ref(p));
		if (tok_op(peek(p, 0), "+") || tok_op(peek(p, 0), "-")) {
			if (sort_tok)
				fail(p, peek(p, 0), "multiple sort directives");
			sort_tok = next(p);
			fe->sort_col = fe->keys.n;
			fe->sort_dir = sort_tok->text[0] == '+' ? 1 : -1;
		}
	} while (bracket && accept_op(p, ","));
	if (bracket)
		expect_op(p, "]");
	if (!tok_kw(peek(p, 0), "in"))
		fail(p, peek(p, 0), "expected 'in'");
	next(p);
	if (tok_is(peek(p, 0), TOK_IDENT, "@hist_log") ||
	    tok_is(peek(p, 0), TOK_IDENT, "@hist_linear"))
		fe->array = parse_at_op(p);
	else
		fe->array = parse_array_ref(p);
	if (peek(p, 0)->type == TOK_IDENT && peek(p, 0)->text[0] == '@') {
		/* @count, @sum, @min, @max, @avg, in the order of enum
		 * maptap_script_stat_op */
		static const char *const ops[] = {
			"@count", "@sum", "@min", "@max", "@avg",
		};
		const struct token *t = peek(p, 0);
		int i;

		for (i = 0; i < 5 && strcmp(t->text, ops[i]); i++)
			;
		if (i == 5)
			fail(p, t, "expected @count, @sum, @min, @max or @avg "
			     "to sort by");
		next(p);
		fe->sort_aggr = i + 1;
		fe->sort_aggr_tok = t;
	}
	if (tok_op(peek(p, 0), "+") || tok_op(peek(p, 0), "-")) {
		if (sort_tok)
			fail(p, peek(p, 0), "multiple sort directives");
		sort_tok = next(p);
		fe->sort_col = -1;
		fe->sort_dir = sort_tok->text[0] == '+' ? 1 : -1;
	}
	if (fe->sort_aggr && fe->sort_col != -1)
		fail(p, fe->sort_aggr_tok, "an aggregate sort (%s) needs '+' "
		     "or '-' after it (or on the value)",
		     fe->sort_aggr_tok->text);
	if (accept_op(p, "["))
		parse_args(p, &fe->slice, "]", true);
	if (tok_kw(peek(p, 0), "limit")) {
		next(p);
		fe->limit = parse_expr(p);
	}
	expect_op(p, ")");
	fe->body = parse_stmt(p);
	return n;
}

static struct node *parse_for(struct parser *p, const struct token *kw)
{
	struct node *n = node_new(p->s, N_FOR, kw);

	expect_op(p, "(");
	if (!tok_op(peek(p, 0), ";"))
		n->a = parse_expr(p);
	expect_op(p, ";");
	if (!tok_op(peek(p, 0), ";"))
		n->b = parse_expr(p);
	expect_op(p, ";");
	if (!tok_op(peek(p, 0), ")"))
		n->c = parse_expr(p);
	expect_op(p, ")");
	n->d = parse_stmt(p);
	return n;
}

static struct node *parse_try(struct parser *p, const struct token *kw)
{
	struct node *n = node_new(p->s, N_TRY, kw);

	n->a = parse_block(p);
	if (!tok_kw(peek(p, 0), "catch"))
		fail(p, peek(p, 0), "expected 'catch'");
	next(p);
	if (accept_op(p, "(")) {
		n->c = parse_array_ref(p);
		expect_op(p, ")");
	}
	n->b = parse_block(p);
	return n;
}

static struct node *parse_keyword_stmt(struct parser *p)
{
	const struct token *t = next(p);
	struct node *n;

	if (tok_kw(t, "if")) {
		n = node_new(p->s, N_IF, t);
		expect_op(p, "(");
		n->a = parse_expr(p);
		expect_op(p, ")");
		n->b = parse_stmt(p);
		if (tok_kw(peek(p, 0), "else")) {
			next(p);
			n->c = parse_stmt(p);
		}
		return n;
	}
	if (tok_kw(t, "while")) {
		n = node_new(p->s, N_WHILE, t);
		expect_op(p, "(");
		n->a = parse_expr(p);
		expect_op(p, ")");
		n->b = parse_stmt(p);
		return n;
	}
	if (tok_kw(t, "for"))
		return parse_for(p, t);
	if (tok_kw(t, "foreach"))
		return parse_foreach(p, t);
	if (tok_kw(t, "try"))
		return parse_try(p, t);
	if (tok_kw(t, "break") || tok_kw(t, "continue") || tok_kw(t, "next")) {
		n = node_new(p->s, t->text[0] == 'b' ? N_BREAK :
			     t->text[0] == 'c' ? N_CONTINUE : N_NEXT, t);
		accept_op(p, ";");
		return n;
	}
	if (tok_kw(t, "return")) {
		n = node_new(p->s, N_RETURN, t);
		if (!tok_op(peek(p, 0), ";") && !tok_op(peek(p, 0), "}"))
			n->a = parse_expr(p);
		accept_op(p, ";");
		return n;
	}
	if (tok_kw(t, "delete")) {
		n = node_new(p->s, N_DELETE, t);
		n->a = parse_expr(p);
		accept_op(p, ";");
		return n;
	}
	fail(p, t, "expected statement");
}

static struct node *parse_block(struct parser *p)
{
	const struct token *t = expect_op(p, "{");
	struct node *n = node_new(p->s, N_BLOCK, t);

	while (!tok_op(peek(p, 0), "}")) {
		if (peek(p, 0)->type == TOK_EOF)
			fail(p, peek(p, 0), "expected '}'");
		vec_push(&p->s->arena, &n->list, parse_stmt(p));
	}
	next(p);
	return n;
}

static struct node *parse_stmt_inner(struct parser *p);

static struct node *parse_stmt(struct parser *p)
{
	struct node *n;

	if (++p->depth > MAX_NESTING)
		fail(p, peek(p, 0), "statement nesting too deep");
	n = parse_stmt_inner(p);
	p->depth--;
	return n;
}

static struct node *parse_stmt_inner(struct parser *p)
{
	const struct token *t = peek(p, 0);
	struct node *n;

	if (tok_op(t, ";")) {
		next(p);
		return node_new(p->s, N_NULL, t);
	}
	if (tok_op(t, "{"))
		return parse_block(p);
	if (t->type == TOK_KEYWORD && !tok_kw(t, "in"))
		return parse_keyword_stmt(p);
	if (t->type == TOK_EMBEDDED) {
		next(p);
		n = node_new(p->s, N_EMBEDDED, t);
		n->str = t->text;
		return n;
	}
	n = node_new(p->s, N_EXPR_STMT, t);
	n->a = parse_expr(p);
	accept_op(p, ";");
	return n;
}

/* ---- top level ---- */

static struct node *parse_literal(struct parser *p)
{
	const struct token *t = peek(p, 0);

	if (t->type == TOK_STRING)
		return parse_string_lit(p);
	if (t->type == TOK_NUMBER ||
	    (tok_op(t, "-") && peek(p, 1)->type == TOK_NUMBER))
		return parse_unary(p);
	fail(p, t, "expected literal string or number");
}

static void parse_global(struct parser *p, bool is_private)
{
	do {
		const struct token *t = expect_ident(p);
		struct tr_sym *g = arena_alloc(&p->s->arena, sizeof(*g));

		g->name = t->text;
		g->tok = t;
		g->scope = SYM_GLOBAL;
		g->arity = -1;
		g->is_private = is_private;
		g->file = p->file;
		if (accept_op(p, "%"))
			g->wrap = true;
		if (accept_op(p, "[")) {
			const struct token *n = next(p);

			if (n->type != TOK_NUMBER || n->num <= 0)
				fail(p, n, "expected positive array size");
			g->maxsize = n->num;
			expect_op(p, "]");
		}
		if (accept_op(p, "%"))
			g->wrap = true;
		if (accept_op(p, "="))
			g->init = parse_literal(p);
		vec_push(&p->s->arena, &p->file->globals, g);
	} while (accept_op(p, ","));
	accept_op(p, ";");
}

static enum tr_type parse_type(struct parser *p)
{
	const struct token *t = next(p);

	if (tok_is(t, TOK_IDENT, "long"))
		return TY_LONG;
	if (tok_is(t, TOK_IDENT, "string"))
		return TY_STRING;
	fail(p, t, "expected 'long' or 'string'");
}

static void parse_function(struct parser *p, bool is_private)
{
	const struct token *t = expect_ident(p);
	struct tr_func *f = arena_alloc(&p->s->arena, sizeof(*f));

	f->name = t->text;
	f->tok = t;
	f->is_private = is_private;
	f->file = p->file;
	if (accept_op(p, ":")) {
		f->ret_tok = peek(p, 0);
		f->ret = parse_type(p);
	}
	expect_op(p, "(");
	while (!accept_op(p, ")")) {
		const struct token *a = expect_ident(p);
		struct tr_sym *s = arena_alloc(&p->s->arena, sizeof(*s));

		s->name = a->text;
		s->tok = a;
		s->scope = SYM_PARAM;
		if (accept_op(p, ":")) {
			s->type_tok = peek(p, 0);
			s->type = parse_type(p);
		}
		vec_push(&p->s->arena, &f->params, s);
		if (!tok_op(peek(p, 0), ")"))
			expect_op(p, ",");
	}
	if (accept_op(p, ":")) {	/* function f(): long, older form */
		f->ret_tok = peek(p, 0);
		f->ret = parse_type(p);
	}
	if (peek(p, 0)->type == TOK_EMBEDDED) {
		const struct token *e = next(p);

		f->body = node_new(p->s, N_EMBEDDED, e);
		f->body->str = e->text;
		f->has_embedded = true;
	} else {
		p->in_function = true;
		f->body = parse_block(p);
		p->in_function = false;
	}
	vec_push(&p->s->arena, &p->file->functions, f);
}

static bool piece_adjacent(const struct token *t)
{
	return !t->spaced;
}

/* {a,b,c} brace alternatives, only when the braces hold plain words. */
static bool looks_like_alternatives(struct parser *p)
{
	int k = 1, commas = 0;

	for (;; k++) {
		const struct token *t = peek(p, k);

		if (t->type == TOK_IDENT || t->type == TOK_KEYWORD ||
		    t->type == TOK_NUMBER || tok_op(t, "*"))
			continue;
		if (tok_op(t, ",")) {
			commas++;
			continue;
		}
		return tok_op(t, "}") && commas > 0;
	}
}

static struct tr_component *parse_component(struct parser *p)
{
	struct tr_component *c = arena_alloc(&p->s->arena, sizeof(*c));
	char buf[1024];
	size_t n = 0;
	bool first = true;

	c->tok = peek(p, 0);
	buf[0] = '\0';
	for (;;) {
		const struct token *t = peek(p, 0);
		const char *piece;

		if (!first && !piece_adjacent(t))
			break;
		if (t->type == TOK_IDENT || t->type == TOK_KEYWORD ||
		    t->type == TOK_NUMBER || tok_op(t, "*")) {
			piece = t->text;
			next(p);
		} else if (tok_op(t, "{") && looks_like_alternatives(p)) {
			size_t start = n;

			while (!tok_op(peek(p, 0), "}")) {
				const char *w = next(p)->text;

				if (n + strlen(w) + 2 < sizeof(buf))
					n += (size_t)snprintf(buf + n,
						sizeof(buf) - n, "%s", w);
			}
			next(p);
			if (n + 2 < sizeof(buf))
				n += (size_t)snprintf(buf + n, sizeof(buf) - n,
						      "}");
			(void)start;
			first = false;
			continue;
		} else {
			break;
		}
		if (n + strlen(piece) + 1 < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s",
					      piece);
		first = false;
	}
	if (first)
		fail(p, peek(p, 0), "expected identifier or '*'");
	c->name = arena_strndup(&p->s->arena, buf, n);
	if (tok_op(peek(p, 0), "(")) {
		next(p);
		c->arg = parse_literal(p);
		expect_op(p, ")");
	}
	return c;
}

/* Into SEQS (struct ptr_vec * of struct tr_component *): the component
 * sequences of one dotted probe point, several when it holds groups:
 * process("X").{function("a"), function("b").return} is two sequences,
 * {kernel,process("X")}.function("f") two more (stap's brace groups,
 * which may nest; a group of plain words stays one glob component). */
static void parse_comp_seqs(struct parser *p, struct ptr_vec *seqs)
{
	struct arena *a = &p->s->arena;
	struct ptr_vec *first = arena_alloc(a, sizeof(*first));
	int i, k, j;

	seqs->n = 0;
	vec_push(a, seqs, first);
	do {
		struct ptr_vec alts = { 0 }, out = { 0 };

		if (tok_op(peek(p, 0), "{") && !looks_like_alternatives(p)) {
			next(p);
			do {
				struct ptr_vec sub = { 0 };

				parse_comp_seqs(p, &sub);
				for (k = 0; k < sub.n; k++)
					vec_push(a, &alts, sub.v[k]);
			} while (accept_op(p, ","));
			expect_op(p, "}");
		} else {
			struct ptr_vec *one = arena_alloc(a, sizeof(*one));

			vec_push(a, one, parse_component(p));
			vec_push(a, &alts, one);
		}
		for (i = 0; i < seqs->n; i++) {
			const struct ptr_vec *s = seqs->v[i];

			for (k = 0; k < alts.n; k++) {
				const struct ptr_vec *t = alts.v[k];
				struct ptr_vec *n = arena_alloc(a, sizeof(*n));

				for (j = 0; j < s->n; j++)
					vec_push(a, n, s->v[j]);
				for (j = 0; j < t->n; j++)
					vec_push(a, n, t->v[j]);
				vec_push(a, &out, n);
			}
		}
		*seqs = out;
	} while (accept_op(p, "."));
}

/* One probe point as written, into OUT: one tr_probe_point per sequence
 * its groups give, each with the point's ?, ! and condition. */
static void parse_probe_point(struct parser *p, struct ptr_vec *out)
{
	const struct token *tok = peek(p, 0);
	struct ptr_vec seqs = { 0 };
	bool optional = false, sufficient = false;
	struct node *cond = NULL;
	int i;

	parse_comp_seqs(p, &seqs);
	for (;;) {
		if (accept_op(p, "?"))
			optional = true;
		else if (accept_op(p, "!"))
			optional = sufficient = true;
		else
			break;
	}
	if (tok_kw(peek(p, 0), "if")) {
		next(p);
		expect_op(p, "(");
		cond = parse_expr(p);
		expect_op(p, ")");
	}
	for (i = 0; i < seqs.n; i++) {
		struct tr_probe_point *pp = arena_alloc(&p->s->arena,
							sizeof(*pp));

		pp->tok = tok;
		pp->comps = *(struct ptr_vec *)seqs.v[i];
		pp->optional = optional;
		pp->sufficient = sufficient;
		pp->cond = cond;
		vec_push(&p->s->arena, out, pp);
	}
}

static void parse_probe(struct parser *p, const struct token *kw)
{
	struct tr_probe *pr = arena_alloc(&p->s->arena, sizeof(*pr));
	struct ptr_vec points = { 0 };

	pr->tok = kw;
	pr->file = p->file;
	do {
		parse_probe_point(p, &points);
	} while (accept_op(p, ","));
	if (tok_op(peek(p, 0), "=") || tok_op(peek(p, 0), "+=")) {
		pr->is_alias = true;
		pr->epilogue = tok_op(next(p), "+=");
		pr->alias_names = points;
		do {
			parse_probe_point(p, &pr->points);
		} while (accept_op(p, ","));
		pr->body = parse_block(p);
		/* stap 4.x: "probe a = PP { prologue }, { epilogue }", as
		 * the syscall tapsets write their @probewrite epilogues. */
		if (tok_op(peek(p, 0), ",")) {
			if (pr->epilogue)
				fail(p, peek(p, 0), "Combined prologue and "
				     "epilogue cannot be defined with '+='");
			next(p);
			pr->body2 = parse_block(p);
		}
		vec_push(&p->s->arena, &p->file->aliases, pr);
		return;
	}
	pr->points = points;
	pr->body = parse_block(p);
	vec_push(&p->s->arena, &p->file->probes, pr);
}

static void parse_top(struct parser *p)
{
	const struct token *t = peek(p, 0);
	bool is_private = false;

	if (tok_kw(t, "private")) {
		is_private = true;
		next(p);
		t = peek(p, 0);
		/* "private NAME" declares a private global, as tapsets
		 * write it (tapset/livepatch.stp). */
		if (t->type == TOK_IDENT && t->text[0] != '@') {
			parse_global(p, true);
			return;
		}
		if (!tok_kw(t, "global") && !tok_kw(t, "function"))
			fail(p, t, "expected 'global', 'function' or a name "
			     "after 'private'");
	}
	if (tok_kw(t, "probe")) {
		next(p);
		parse_probe(p, t);
	} else if (tok_kw(t, "global")) {
		next(p);
		parse_global(p, is_private);
	} else if (tok_kw(t, "function")) {
		next(p);
		parse_function(p, is_private);
	} else if (t->type == TOK_EMBEDDED) {
		struct node *n = node_new(p->s, N_EMBEDDED, next(p));

		n->str = t->text;
		vec_push(&p->s->arena, &p->file->embedded, n);
	} else if (tok_op(t, ";")) {
		next(p);
	} else {
		fail(p, t, "expected 'probe', 'global', 'private', "
		     "'function', or '%%{'");
	}
}

/* After an error, skip to something that can start a top-level item. */
static void skip_to_top(struct parser *p)
{
	next(p);
	for (;;) {
		const struct token *t = peek(p, 0);

		if (t->type == TOK_EOF || tok_kw(t, "probe") ||
		    tok_kw(t, "global") || tok_kw(t, "function") ||
		    tok_kw(t, "private"))
			return;
		next(p);
	}
}

struct tr_file *tr_parse_file(struct tr_session *s, const struct src_file *f)
{
	struct tok_vec raw = { 0 };
	struct parser *p = arena_alloc(&s->arena, sizeof(*p));

	p->s = s;
	p->file = arena_alloc(&s->arena, sizeof(*p->file));
	p->file->src = f;
	tr_lex(s, f, &raw);
	tr_preprocess(s, &raw, &p->toks);
	if (setjmp(p->recover)) {
		p->depth = 0;
		skip_to_top(p);
	}
	while (peek(p, 0)->type != TOK_EOF)
		parse_top(p);
	return p->file;
}
