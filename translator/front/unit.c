/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unit.c -- the translation unit's (struct tr_session's) lifetime,
 * source files and diagnostics in the shape stap(1) prints them
 * (parse.cxx / elaborate.cxx print_error):
 *
 *   parse error: MESSAGE
 *           saw: TOKEN at FILE:LINE:COL
 *        source: SOURCE LINE
 *                ^
 */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <maptap/script_format.h>
#include <maptap/tvar.h>
#include <maptap/unwind.h>

#include "unit.h"

static void set_kernel_version(struct tr_session *s)
{
	struct utsname u;
	size_t n;

	if (uname(&u) != 0) {
		s->kernel_v = s->kernel_vr = "0.0.0";
		return;
	}
	s->kernel_vr = arena_strdup(&s->arena, u.release);
	n = strcspn(u.release, "-+");
	s->kernel_v = arena_strndup(&s->arena, u.release, n);
}

void tr_session_init(struct tr_session *s, const struct tr_options *opts)
{
	memset(s, 0, sizeof(*s));
	s->opts = opts;
	s->out = stdout;
	s->err = stderr;
	s->out_fd = -1;
	s->warn = !(opts && opts->suppress_warnings);
	/* stap's runtime defaults for 64-bit user-space (runtime/common_*.h) */
	s->limits.maxstringlen = 512;
	s->limits.maxbacktrace = MAPTAP_MAXBACKTRACE;
	s->limits.maxaction = 1000;
	s->limits.maxmapentries = 2048;
	s->limits.maxerrors = 0;
	s->limits.maxnesting = 10;
	s->limits.maxskipped = 100;
	set_kernel_version(s);
}

void tr_session_fini(struct tr_session *s)
{
	int i;

	for (i = 0; i < s->formats.n; i++)
		maptap_script_fmt_free(s->formats.v[i]);
	for (i = 0; i < s->tvars.n; i++)
		maptap_tvar_free(s->tvars.v[i]);
	for (i = 0; i < s->tvar_mods.n; i++)
		maptap_tvar_module_put(((struct tr_tvar_mod *)
					s->tvar_mods.v[i])->m);
	arena_free(&s->arena);
}

struct src_file *tr_read_file(struct tr_session *s, const char *path,
			      bool is_tapset)
{
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
	struct src_file *f;
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!fp)
		return NULL;
	do {
		if (cap - n < 4096) {
			char *nb;

			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				if (fp != stdin)
					fclose(fp);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n - 1, fp);
		n += got;
	} while (got > 0);
	/* A read error (EISDIR for a directory, EIO) is not an empty
	 * script: the caller says why. */
	if (ferror(fp)) {
		int err = errno ? errno : EIO;

		free(buf);
		if (fp != stdin)
			fclose(fp);
		errno = err;
		return NULL;
	}
	if (fp != stdin)
		fclose(fp);
	f = arena_alloc(&s->arena, sizeof(*f));
	f->name = arena_strdup(&s->arena, path);
	f->text = arena_strndup(&s->arena, buf, n);
	f->len = n;
	f->is_tapset = is_tapset;
	free(buf);
	return f;
}

const char *tr_loc_str(struct tr_session *s, const struct src_loc *l)
{
	if (!l->file)
		return "<unknown>";
	return arena_printf(&s->arena, "%s:%d:%d", l->file->name, l->line,
			    l->col);
}

static const char *type_name(enum tok_type t)
{
	switch (t) {
	case TOK_IDENT: return "identifier";
	case TOK_KEYWORD: return "keyword";
	case TOK_NUMBER: return "number";
	case TOK_STRING: return "string";
	case TOK_OP: return "operator";
	case TOK_EMBEDDED: return "embedded-code";
	case TOK_EOF: break;
	}
	return "end of input";
}

/* Printable form of token text: control bytes as C escapes. */
static const char *escape_text(struct tr_session *s, const char *p,
			       size_t n)
{
	char *out = arena_alloc(&s->arena, n * 4 + 1), *o = out;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == '\n') {
			*o++ = '\\';
			*o++ = 'n';
		} else if (c == '\t') {
			*o++ = '\\';
			*o++ = 't';
		} else if (c < 32 || c == 127) {
			o += sprintf(o, "\\%03o", c);
		} else {
			*o++ = (char)c;
		}
	}
	*o = '\0';
	return out;
}

const char *tr_tok_desc(struct tr_session *s, const struct token *t)
{
	const char *loc = tr_loc_str(s, &t->loc);

	if (t->type == TOK_EOF)
		return arena_printf(&s->arena, "end of input at %s", loc);
	/* @count, @hist_log ... are operators to stap */
	if (t->type == TOK_IDENT && t->text[0] == '@')
		return arena_printf(&s->arena, "operator '%s' at %s", t->text,
				    loc);
	if (t->type == TOK_KEYWORD || t->type == TOK_EMBEDDED)
		return arena_printf(&s->arena, "%s at %s", type_name(t->type),
				    loc);
	return arena_printf(&s->arena, "%s '%s' at %s", type_name(t->type),
			    escape_text(s, t->text, t->len), loc);
}

/* Print "INDENT" + the token's source line, then a caret under it.  The
 * caret line copies the tabs of the source so it lines up in a terminal. */
void tr_print_source(struct tr_session *s, const struct token *t,
		     const char *indent)
{
	const struct src_file *f = t->loc.file;
	const char *p, *e;
	int line = 1, i;

	if (!f)
		return;
	for (p = f->text; *p && line < t->loc.line; p++)
		if (*p == '\n')
			line++;
	e = strchr(p, '\n');
	if (!e)
		e = p + strlen(p);
	fprintf(s->err, "%ssource: %.*s\n", indent, (int)(e - p), p);
	fprintf(s->err, "%s        ", indent);
	for (i = 1; i < t->loc.col && p + i - 1 < e; i++)
		fputc(p[i - 1] == '\t' ? '\t' : ' ', s->err);
	fputs("^\n", s->err);
}

static void print_expansion(struct tr_session *s, const struct token *t)
{
	for (t = t->expanded_from; t; t = t->expanded_from)
		fprintf(s->err, "        in expansion of macro: %s\n",
			tr_tok_desc(s, t));
}

void tr_parse_error(struct tr_session *s, const struct token *t,
		    const char *fmt, ...)
{
	va_list ap;

	s->parse_errors++;
	fputs("parse error: ", s->err);
	va_start(ap, fmt);
	vfprintf(s->err, fmt, ap);
	va_end(ap);
	fprintf(s->err, "\n        saw: %s\n", tr_tok_desc(s, t));
	print_expansion(s, t);
	tr_print_source(s, t, "     ");
	fputc('\n', s->err);
}

void tr_sema_error(struct tr_session *s, const struct token *t,
		   const char *fmt, ...)
{
	va_list ap;

	s->sema_errors++;
	fputs("semantic error: ", s->err);
	va_start(ap, fmt);
	vfprintf(s->err, fmt, ap);
	va_end(ap);
	if (t) {
		fprintf(s->err, ": %s\n", tr_tok_desc(s, t));
		print_expansion(s, t);
		tr_print_source(s, t, "        ");
	} else {
		fputc('\n', s->err);
	}
	fputc('\n', s->err);
}

void tr_warning(struct tr_session *s, const struct token *t,
		const char *fmt, ...)
{
	va_list ap;

	if (!s->warn)
		return;
	fputs("WARNING: ", s->err);
	va_start(ap, fmt);
	vfprintf(s->err, fmt, ap);
	va_end(ap);
	if (t) {
		fprintf(s->err, ": %s\n", tr_tok_desc(s, t));
		tr_print_source(s, t, "        ");
	} else {
		fputc('\n', s->err);
	}
}
