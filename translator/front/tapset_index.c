/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tapset_index.c -- a lexical pre-scan of tapset files.
 *
 * Parsing syscalls.stp alone costs several times a trivial script's whole
 * run, so pass 2 parses a tapset file only when the script needs a name
 * it defines.  This scanner finds those names without the lexer: it skips
 * blanks, comments (#, //, block), strings and %{ %} code byte by byte as
 * lexer.c does, and watches the top level (outside braces) for
 * `probe HEAD[, HEAD] =`/`+=`, `[private] function NAME` and
 * `[private] global NAME, ...`, skipping @define bodies.  A false
 * positive only costs a parse; for what it cannot be sure of it marks the
 * file eager (tapset_index.h).
 */
#include <config.h>

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "tapset_index.h"

enum sc_tok { SC_END, SC_WORD, SC_OP };

struct scan {
	const char *p, *end;
	enum sc_tok type;
	const char *tok;	/* the current token */
	size_t len;
};

static bool word_char(int c)
{
	return isalnum(c) || c == '_' || c == '$';
}

static void skip_line(struct scan *sc)
{
	while (sc->p < sc->end && *sc->p != '\n')
		sc->p++;
}

/* Skip from the opener of a string or block, past its closer CLOSE. */
static void skip_past(struct scan *sc, const char *close, bool escapes)
{
	size_t n = strlen(close);

	while (sc->p < sc->end) {
		if (escapes && *sc->p == '\\' && sc->p + 1 < sc->end) {
			sc->p += 2;
			continue;
		}
		if ((size_t)(sc->end - sc->p) >= n && !memcmp(sc->p, close, n)) {
			sc->p += n;
			return;
		}
		sc->p++;
	}
}

/* Blanks, comments, strings and embedded code: nothing to index. */
static bool skip_noise(struct scan *sc)
{
	const char *p = sc->p;
	size_t left = (size_t)(sc->end - p);

	if (isspace((unsigned char)*p)) {
		sc->p++;
	} else if (*p == '#' || (left > 1 && p[0] == '/' && p[1] == '/')) {
		skip_line(sc);
	} else if (left > 1 && p[0] == '/' && p[1] == '*') {
		sc->p += 2;
		skip_past(sc, "*/", false);
	} else if (*p == '"') {
		sc->p++;
		skip_past(sc, "\"", true);
	} else if (left > 1 && p[0] == '%' && p[1] == '{') {
		sc->p += 2;
		skip_past(sc, "%}", false);
	} else {
		return false;
	}
	return true;
}

/* Two-byte operators the scan must tell from their first byte. */
static size_t op_len(const char *p, size_t left)
{
	static const char *const two[] = { "+=", "==", "=~", "!=", "<=",
					   ">=", "%(", "%?", "%:", "%)" };
	size_t i;

	for (i = 0; left > 1 && i < sizeof(two) / sizeof(two[0]); i++)
		if (p[0] == two[i][0] && p[1] == two[i][1])
			return 2;
	return 1;
}

static enum sc_tok next_tok(struct scan *sc)
{
	const char *start;

	while (sc->p < sc->end && skip_noise(sc))
		;
	sc->tok = start = sc->p;
	if (sc->p >= sc->end) {
		sc->len = 0;
		return sc->type = SC_END;
	}
	if (word_char((unsigned char)*sc->p) || *sc->p == '@') {
		sc->p++;
		while (sc->p < sc->end && word_char((unsigned char)*sc->p))
			sc->p++;
		sc->len = (size_t)(sc->p - start);
		return sc->type = SC_WORD;
	}
	sc->len = op_len(sc->p, (size_t)(sc->end - sc->p));
	sc->p += sc->len;
	return sc->type = SC_OP;
}

static bool is(const struct scan *sc, enum sc_tok type, const char *text)
{
	return sc->type == type && sc->len == strlen(text) &&
	       !memcmp(sc->tok, text, sc->len);
}

/* ---- the table ---- */

static uint64_t hash(enum tr_def_kind kind, const char *name)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ull;
	return h;
}

static void table_put(struct tr_session *s, struct tr_tapset_index *ix,
		      struct tr_tapset_def *d);

static void table_grow(struct tr_session *s, struct tr_tapset_index *ix)
{
	struct tr_tapset_def **old = ix->table;
	size_t i, cap = ix->cap;

	ix->cap = cap ? cap * 2 : 256;
	ix->table = arena_alloc(&s->arena, ix->cap * sizeof(*ix->table));
	ix->n = 0;
	for (i = 0; i < cap; i++)
		if (old[i])
			table_put(s, ix, old[i]);
}

static void table_put(struct tr_session *s, struct tr_tapset_index *ix,
		      struct tr_tapset_def *d)
{
	size_t i;

	if ((ix->n + 1) * 2 > ix->cap)
		table_grow(s, ix);
	i = hash(d->kind, d->name) & (ix->cap - 1);
	while (ix->table[i])
		i = (i + 1) & (ix->cap - 1);
	ix->table[i] = d;
	ix->n++;
}

const struct tr_tapset_def *
tr_tapset_index_find(const struct tr_tapset_index *ix, enum tr_def_kind kind,
		     const char *name, size_t *pos)
{
	size_t i;

	if (!ix->cap)
		return NULL;
	/* *POS counts the slots already looked at from the home slot. */
	for (i = (hash(kind, name) + *pos) & (ix->cap - 1); ix->table[i];
	     i = (i + 1) & (ix->cap - 1)) {
		const struct tr_tapset_def *d = ix->table[i];

		++*pos;
		if (d->kind == kind && !strcmp(d->name, name))
			return d;
	}
	return NULL;
}

/* ---- the scan ---- */

struct indexer {
	struct tr_session *s;
	struct tr_tapset_index *ix;
	struct scan sc;
	int file;
	bool eager;
	struct ptr_vec heads;	/* const char ** of the alias heads seen */
	struct ptr_vec comps;	/* const char *: the head being read */
	const char *prev;	/* the previous token was '.' when "." */
};

static void add_def(struct indexer *ix, enum tr_def_kind kind,
		    const char **comps, int n)
{
	struct tr_tapset_def *d = arena_alloc(&ix->s->arena, sizeof(*d));
	int i;

	d->kind = kind;
	d->file = ix->file;
	d->comps = comps;
	d->n_comps = n;
	d->name = comps[0];
	for (i = 1; i < n; i++)
		d->name = arena_printf(&ix->s->arena, "%s.%s", d->name,
				       comps[i]);
	table_put(ix->s, ix->ix, d);
	if (kind == TR_DEF_ALIAS)
		vec_push(&ix->s->arena, &ix->ix->aliases, d);
}

static void add_name(struct indexer *ix, enum tr_def_kind kind)
{
	const char **c = arena_alloc(&ix->s->arena, sizeof(*c));

	c[0] = arena_strndup(&ix->s->arena, ix->sc.tok, ix->sc.len);
	add_def(ix, kind, c, 1);
}

/* The head read so far becomes one alias name of the probe. */
static void end_head(struct indexer *ix)
{
	struct ptr_vec *h = arena_alloc(&ix->s->arena, sizeof(*h));

	*h = ix->comps;
	vec_push(&ix->s->arena, &ix->heads, h);
	memset(&ix->comps, 0, sizeof(ix->comps));
}

/* Skip a component's (ARG): strings are skipped by the scanner. */
static void skip_parens(struct indexer *ix)
{
	int depth = 1;

	while (depth > 0 && next_tok(&ix->sc) != SC_END) {
		if (is(&ix->sc, SC_OP, "("))
			depth++;
		else if (is(&ix->sc, SC_OP, ")"))
			depth--;
	}
}

/* After `probe`: HEAD[, HEAD] followed by = or += is an alias; anything
 * else is an ordinary probe, unless the head was odd (a '*', a
 * conditional) and still ends in '=': then the file is eager. */
static void scan_probe(struct indexer *ix)
{
	struct scan *sc = &ix->sc;
	bool odd = false, want_comp = true;
	int i;

	memset(&ix->heads, 0, sizeof(ix->heads));
	memset(&ix->comps, 0, sizeof(ix->comps));
	while (next_tok(sc) != SC_END) {
		if (want_comp && sc->type == SC_WORD && sc->tok[0] != '@') {
			vec_push(&ix->s->arena, &ix->comps,
				 arena_strndup(&ix->s->arena, sc->tok,
					       sc->len));
			want_comp = false;
		} else if (!want_comp && is(sc, SC_OP, "(")) {
			skip_parens(ix);
		} else if (!want_comp && is(sc, SC_OP, ".")) {
			want_comp = true;
		} else if (!want_comp && is(sc, SC_OP, ",")) {
			end_head(ix);
			want_comp = true;
		} else if (is(sc, SC_OP, "=") || is(sc, SC_OP, "+=")) {
			break;
		} else if (want_comp && is(sc, SC_OP, "{")) {
			odd = true;	/* a {a,b} alternative in a head */
			skip_past(sc, "}", false);
			want_comp = false;
		} else if (is(sc, SC_OP, "{")) {
			sc->p = sc->tok;	/* the body: the caller counts it */
			return;
		} else {
			odd = true;
		}
	}
	if (sc->type == SC_END)
		return;
	if (odd || want_comp) {
		ix->eager = true;
		return;
	}
	end_head(ix);
	for (i = 0; i < ix->heads.n; i++) {
		struct ptr_vec *h = ix->heads.v[i];

		add_def(ix, TR_DEF_ALIAS, (const char **)h->v, h->n);
	}
}

static bool top_keyword(const struct scan *sc)
{
	return is(sc, SC_WORD, "probe") || is(sc, SC_WORD, "function") ||
	       is(sc, SC_WORD, "global") || is(sc, SC_WORD, "private");
}

/* After `global` (or `private NAME`): every word up to the next top-level
 * keyword or ';' may be a name; initial values are literals, and words
 * of a conditional only add harmless entries. */
static void scan_globals(struct indexer *ix)
{
	struct scan *sc = &ix->sc;

	while (next_tok(sc) != SC_END) {
		if (top_keyword(sc) || is(sc, SC_OP, ";") ||
		    is(sc, SC_OP, "{")) {
			sc->p = sc->tok;	/* let the top level see it */
			return;
		}
		if (sc->type == SC_WORD && sc->tok[0] == '@')
			ix->eager = true;
		else if (sc->type == SC_WORD && !isdigit((unsigned char)*sc->tok))
			add_name(ix, TR_DEF_GLOBAL);
	}
}

static void scan_function(struct indexer *ix)
{
	if (next_tok(&ix->sc) == SC_WORD && ix->sc.tok[0] != '@')
		add_name(ix, TR_DEF_FUNCTION);
	else
		ix->eager = true;
}

static void scan_private(struct indexer *ix)
{
	struct scan *sc = &ix->sc;

	if (next_tok(sc) != SC_WORD || sc->tok[0] == '@') {
		ix->eager = true;
	} else if (is(sc, SC_WORD, "function")) {
		scan_function(ix);
	} else if (is(sc, SC_WORD, "global")) {
		scan_globals(ix);
	} else {
		add_name(ix, TR_DEF_GLOBAL);
		scan_globals(ix);
	}
}

/* @define NAME[(params)] %( body %): the body only ever expands where a
 * macro is called, and a call at the top level makes the file eager, so
 * the body itself defines nothing here. */
static void skip_define(struct indexer *ix)
{
	struct scan *sc = &ix->sc;
	int depth = 1;

	if (next_tok(sc) != SC_WORD || next_tok(sc) == SC_END) {
		ix->eager = true;
		return;
	}
	if (is(sc, SC_OP, "(")) {
		skip_parens(ix);
		next_tok(sc);
	}
	if (!is(sc, SC_OP, "%(")) {
		ix->eager = true;
		return;
	}
	while (depth > 0 && next_tok(sc) != SC_END) {
		if (is(sc, SC_OP, "%("))
			depth++;
		else if (is(sc, SC_OP, "%)"))
			depth--;
	}
}

/* One token at the top level. */
static void scan_top(struct indexer *ix, bool after_dot)
{
	struct scan *sc = &ix->sc;

	if (sc->type != SC_WORD || after_dot)
		return;
	if (is(sc, SC_WORD, "probe"))
		scan_probe(ix);
	else if (is(sc, SC_WORD, "function"))
		scan_function(ix);
	else if (is(sc, SC_WORD, "global"))
		scan_globals(ix);
	else if (is(sc, SC_WORD, "private"))
		scan_private(ix);
	else if (is(sc, SC_WORD, "@define"))
		skip_define(ix);
	else if (sc->tok[0] == '@')	/* a macro call */
		ix->eager = true;
}

/* Braces and parentheses: a macro call inside either is an argument or
 * a statement, never a top-level definition. */
static void scan_file(struct indexer *ix)
{
	struct scan *sc = &ix->sc;
	int depth = 0, parens = 0;
	bool after_dot = false;

	while (!ix->eager && next_tok(sc) != SC_END) {
		if (is(sc, SC_OP, "{")) {
			depth++;
		} else if (is(sc, SC_OP, "}")) {
			depth -= depth > 0;
		} else if (depth == 0 && is(sc, SC_OP, "(")) {
			parens++;
		} else if (depth == 0 && is(sc, SC_OP, ")")) {
			parens -= parens > 0;
		} else if (depth == 0 && parens == 0) {
			scan_top(ix, after_dot);
		}
		after_dot = is(sc, SC_OP, ".");
	}
}

int tr_tapset_index_add(struct tr_session *s, struct tr_tapset_index *ix,
			struct src_file *f)
{
	struct indexer in = { .s = s, .ix = ix, .file = ix->files.n };

	in.sc.p = f->text;
	in.sc.end = f->text + f->len;
	vec_push(&s->arena, &ix->files, f);
	scan_file(&in);
	vec_push(&s->arena, &ix->eager, in.eager ? f : NULL);
	return in.file;
}
