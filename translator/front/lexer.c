/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lexer.c -- SystemTap-language tokens.
 *
 * The rules follow the SystemTap language reference (langref, "Lexical
 * structure"): #, // and block comments; C escapes in string literals;
 * decimal, hex and octal 64-bit numbers; identifiers of letters, digits,
 * '_' and '$', with a leading '@' for the built-in operators; %{ %} code.
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static const char *const keywords[] = {
	"probe", "global", "private", "function", "if", "else", "for",
	"foreach", "in", "limit", "return", "delete", "while", "break",
	"continue", "next", "try", "catch", NULL
};

/* Longest first, so the first match is the longest. */
static const char *const operators[] = {
	"<<<", "<<=", ">>=",
	"%{", "%(", "%?", "%:", "%)",
	"==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=", "-=", "*=",
	"/=", "%=", "&=", "|=", "^=", ".=", "<<", ">>", "->", "=~", "!~",
	"+", "-", "*", "/", "%", "<", ">", "=", "!", "~", "&", "|", "^",
	".", ",", ";", ":", "?", "(", ")", "{", "}", "[", "]", "#",
	NULL
};

struct lexer {
	struct tr_session *s;
	const struct src_file *f;
	const char *p, *end;
	int line, col;
};

void tok_push(struct tr_session *s, struct tok_vec *v, struct token *t)
{
	if (v->n == v->cap) {
		int cap = v->cap ? v->cap * 2 : 64;
		struct token **nv = arena_alloc(&s->arena,
						sizeof(*nv) * (size_t)cap);

		if (v->n)
			memcpy(nv, v->v, sizeof(*nv) * (size_t)v->n);
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = t;
}

bool tok_is(const struct token *t, enum tok_type type, const char *text)
{
	return t && t->type == type && strcmp(t->text, text) == 0;
}

bool tok_op(const struct token *t, const char *op)
{
	return tok_is(t, TOK_OP, op);
}

bool tok_kw(const struct token *t, const char *kw)
{
	return tok_is(t, TOK_KEYWORD, kw);
}

static void advance(struct lexer *lx)
{
	if (*lx->p == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
	lx->p++;
}

static void advance_n(struct lexer *lx, size_t n)
{
	while (n-- && lx->p < lx->end)
		advance(lx);
}

/* Skip blanks and comments; return true if any were skipped. */
static bool skip_space(struct lexer *lx)
{
	const char *start = lx->p;

	while (lx->p < lx->end) {
		char c = *lx->p;

		if (isspace((unsigned char)c)) {
			advance(lx);
		} else if (c == '#') {
			while (lx->p < lx->end && *lx->p != '\n')
				advance(lx);
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
			while (lx->p < lx->end && *lx->p != '\n')
				advance(lx);
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
			advance_n(lx, 2);
			while (lx->p < lx->end &&
			       !(*lx->p == '*' && lx->p + 1 < lx->end &&
				 lx->p[1] == '/'))
				advance(lx);
			advance_n(lx, 2);
		} else {
			break;
		}
	}
	return lx->p != start;
}

static bool is_ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '$';
}

static struct token *new_tok(struct lexer *lx, enum tok_type type,
			     bool spaced)
{
	struct token *t = arena_alloc(&lx->s->arena, sizeof(*t));

	t->type = type;
	t->loc.file = lx->f;
	t->loc.line = lx->line;
	t->loc.col = lx->col;
	t->spaced = spaced;
	return t;
}

static void lex_error(struct lexer *lx, struct token *t, const char *msg)
{
	t->text = msg;
	t->len = strlen(msg);
	tr_parse_error(lx->s, t, "%s", msg);
}

static int hexval(int c)
{
	if (isdigit(c))
		return c - '0';
	return tolower(c) - 'a' + 10;
}

/* Decode one escape after the backslash; returns the byte. */
static int lex_escape(struct lexer *lx)
{
	int c = (unsigned char)*lx->p, v = 0, i;

	advance(lx);
	switch (c) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case 'a': return '\a';
	case 'b': return '\b';
	case 'f': return '\f';
	case 'v': return '\v';
	case 'x':
		for (i = 0; i < 2 && lx->p < lx->end &&
		     isxdigit((unsigned char)*lx->p); i++) {
			v = v * 16 + hexval((unsigned char)*lx->p);
			advance(lx);
		}
		return v;
	default:
		if (c >= '0' && c <= '7') {
			v = c - '0';
			for (i = 0; i < 2 && lx->p < lx->end &&
			     *lx->p >= '0' && *lx->p <= '7'; i++) {
				v = v * 8 + (*lx->p - '0');
				advance(lx);
			}
			return v & 0xff;
		}
		return c;	/* \\ \" \' and unknown ones: themselves */
	}
}

static void lex_string(struct lexer *lx, struct token *t)
{
	size_t cap = 32, n = 0;
	char *buf = malloc(cap);
	bool unterminated = false;

	advance(lx);	/* opening quote */
	while (lx->p < lx->end && *lx->p != '"') {
		int c = (unsigned char)*lx->p;

		if (c == '\n') {
			break;
		} else if (c == '\\' && lx->p + 1 < lx->end) {
			advance(lx);
			c = lex_escape(lx);
		} else {
			advance(lx);
		}
		if (n + 1 >= cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		if (buf)
			buf[n++] = (char)c;
	}
	if (lx->p < lx->end && *lx->p == '"')
		advance(lx);
	else
		unterminated = true;
	t->text = arena_strndup(&lx->s->arena, buf ? buf : "", n);
	t->len = n;
	free(buf);
	if (unterminated)
		tr_parse_error(lx->s, t, "Could not find matching closing "
			       "quote");
}

static void lex_number(struct lexer *lx, struct token *t)
{
	const char *start = lx->p;
	char *end;
	unsigned long long v;

	while (lx->p < lx->end && isalnum((unsigned char)*lx->p))
		advance(lx);
	t->text = arena_strndup(&lx->s->arena, start, (size_t)(lx->p - start));
	t->len = strlen(t->text);
	errno = 0;
	v = strtoull(t->text, &end, 0);
	if (errno || *end)
		lex_error(lx, t, "number invalid or out of range");
	t->num = (int64_t)v;
	t->type = TOK_NUMBER;
}

static void lex_embedded(struct lexer *lx, struct token *t)
{
	const char *start;

	advance_n(lx, 2);
	start = lx->p;
	while (lx->p < lx->end &&
	       !(*lx->p == '%' && lx->p + 1 < lx->end && lx->p[1] == '}'))
		advance(lx);
	t->text = arena_strndup(&lx->s->arena, start, (size_t)(lx->p - start));
	t->len = strlen(t->text);
	if (lx->p >= lx->end) {
		lex_error(lx, t, "Could not find matching '%}'");
		return;
	}
	advance_n(lx, 2);
}

static void lex_word(struct lexer *lx, struct token *t)
{
	const char *start = lx->p;
	int i;

	advance(lx);	/* a letter, '_', '$' or '@' */
	if ((*start == '$' || *start == '@') && lx->p < lx->end &&
	    (*lx->p == '#' || *lx->p == '$')) {
		advance(lx);	/* $# @# $$vars */
	}
	while (lx->p < lx->end && is_ident_char((unsigned char)*lx->p))
		advance(lx);
	t->text = arena_strndup(&lx->s->arena, start, (size_t)(lx->p - start));
	t->len = strlen(t->text);
	t->type = TOK_IDENT;
	for (i = 0; keywords[i]; i++)
		if (strcmp(keywords[i], t->text) == 0)
			t->type = TOK_KEYWORD;
}

static void lex_op(struct lexer *lx, struct token *t)
{
	int i;

	for (i = 0; operators[i]; i++) {
		size_t n = strlen(operators[i]);

		if ((size_t)(lx->end - lx->p) >= n &&
		    memcmp(lx->p, operators[i], n) == 0) {
			t->text = operators[i];
			t->len = n;
			t->type = TOK_OP;
			advance_n(lx, n);
			return;
		}
	}
	t->type = TOK_OP;
	t->text = arena_strndup(&lx->s->arena, lx->p, 1);
	t->len = 1;
	advance(lx);
	lex_error(lx, t, "unexpected character");
}

static struct token *lex_one(struct lexer *lx)
{
	bool spaced = skip_space(lx);
	struct token *t = new_tok(lx, TOK_EOF, spaced);
	int c;

	if (lx->p >= lx->end) {
		t->text = "";
		return t;
	}
	c = (unsigned char)*lx->p;
	if (c == '"') {
		t->type = TOK_STRING;
		lex_string(lx, t);
	}
	else if (isdigit(c))
		lex_number(lx, t);
	else if (c == '%' && lx->p + 1 < lx->end && lx->p[1] == '{') {
		t->type = TOK_EMBEDDED;
		lex_embedded(lx, t);
	} else if (isalpha(c) || c == '_' || c == '$' ||
		 (c == '@' && lx->p + 1 < lx->end &&
		  (is_ident_char((unsigned char)lx->p[1]) || lx->p[1] == '#')))
		lex_word(lx, t);
	else
		lex_op(lx, t);
	return t;
}

void tr_lex(struct tr_session *s, const struct src_file *f,
	    struct tok_vec *out)
{
	struct lexer lx = {
		.s = s, .f = f, .p = f->text, .end = f->text + f->len,
		.line = 1, .col = 1,
	};
	struct token *t;

	/* A #! line at the top is for the shell, not for us. */
	if (f->len >= 2 && f->text[0] == '#' && f->text[1] == '!')
		while (lx.p < lx.end && *lx.p != '\n')
			advance(&lx);
	do {
		t = lex_one(&lx);
		tok_push(s, out, t);
	} while (t->type != TOK_EOF);
}
