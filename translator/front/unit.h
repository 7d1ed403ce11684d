/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unit.h -- the translation unit: the translator's state for one run of
 * one script.
 *
 * Everything the passes make hangs off struct tr_session: source files,
 * tokens, the parse tree, symbols, diagnostics.  Nothing is global, so
 * tests and the fuzz target can run many sessions in one process.  (The
 * file was session.h, a name libmaptap's tracing session has too,
 * include/maptap/session.h; the struct and its functions kept their
 * tr_session names.)
 */
#ifndef TR_UNIT_H
#define TR_UNIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "options.h"

/* What the preprocessor's `runtime` and `arch` conditions see, and the
 * subdirectories of a tapset directory searched besides its top: maptap
 * is a user-space runtime, so tapsets take their dyninst variants. */
#define TR_RUNTIME_NAME "dyninst"
#define TR_ARCH_NAME "x86_64"

struct src_file {
	const char *name;	/* "<input>" for -e */
	const char *text;	/* NUL-terminated */
	size_t len;
	bool is_tapset;
};

struct src_loc {
	const struct src_file *file;
	int line, col;		/* 1-based */
};

enum tok_type {
	TOK_EOF,
	TOK_IDENT,	/* includes $name, @name */
	TOK_KEYWORD,
	TOK_NUMBER,
	TOK_STRING,	/* text holds the decoded bytes */
	TOK_OP,
	TOK_EMBEDDED,	/* %{ ... %}: text holds the code */
};

struct token {
	enum tok_type type;
	const char *text;
	size_t len;		/* of text; strings may hold escapes of NUL */
	int64_t num;		/* TOK_NUMBER */
	struct src_loc loc;
	bool spaced;		/* whitespace or comment came before it */
	const struct token *expanded_from;	/* macro call, if any */
};

struct tok_vec {
	struct token **v;
	int n, cap;
};

/* A -D NAME=VALUE limit, resolved. */
struct tr_limits {
	int64_t maxstringlen;	/* bytes with the NUL: stap's MAXSTRINGLEN */
	int64_t maxaction;	/* statements per probe handler */
	int64_t maxmapentries;	/* elements per array */
	int64_t maxerrors;	/* errors before the run stops */
	int64_t maxnesting;	/* function call depth */
	int64_t maxskipped;
	int64_t maxbacktrace;	/* frames per user backtrace */
};

struct tr_macro;
struct tr_file;
struct tr_tapset_index;
struct tr_builtin_set;

struct tr_session {
	struct arena arena;
	const struct tr_options *opts;	/* the command line (options.h) */
	FILE *out;		/* script output: stdout or -o */
	FILE *err;		/* diagnostics */
	int out_fd;		/* OUT's descriptor if a tr_fd_stream(), or -1 */
	int parse_errors;
	int sema_errors;
	bool warn;		/* print warnings (not -w) */
	bool no_tapsets;	/* read no tapset directory (fuzzing) */
	struct tr_limits limits;
	/* The built-in functions pass 2 resolves calls to, as descriptors
	 * (elaborate.h): the interpreter's, which the driver hands in
	 * (tr_interp_builtins()).  None: every call must be a script's. */
	const struct tr_builtin_set *const *builtins;
	size_t n_builtins;
	struct ptr_vec tapsets;		/* struct tr_file *: parsed tapsets */
	struct tr_tapset_index *tapset_index;	/* what each file defines */
	struct ptr_vec macros;		/* struct tr_macro * */
	long macro_tokens;		/* produced by expansions so far */
	struct ptr_vec tapset_dirs;	/* const char * */
	const char *kernel_v, *kernel_vr;
	struct tr_elab *elab;		/* pass 2 result */
	struct ptr_vec formats;		/* compiled formats, to free */
	struct ptr_vec tvars;		/* struct maptap_tvar *, to free */
	struct ptr_vec tvar_mods;	/* struct tr_tvar_mod * (dwvar_bind.c) */
};

/* A module whose DWARF pass 2 opened for target variables. */
struct tr_tvar_mod {
	const char *path;
	struct maptap_tvar_module *m;	/* NULL: it has none */
	int err;			/* -errno of the open */
};

void tr_session_init(struct tr_session *s, const struct tr_options *opts);

/* Write all LEN bytes at BUF to FD: waits (poll(2)) while FD is a full
 * pipe or terminal in non-blocking mode -- the command may set
 * O_NONBLOCK on a file description it shares with maptap -- and goes on
 * after EINTR and short writes.  Returns 0 or -errno (EPIPE: the reader
 * has gone; SIGPIPE must be ignored).  outstream.c. */
int tr_write_fd(int fd, const void *buf, size_t len);

/* A stdio stream that writes to FD with tr_write_fd(), buffered as
 * BUFFERING says (_IOFBF, _IOLBF, _IONBF); fclose(3) closes FD if OWN.
 * NULL when out of memory.  Its fileno(3) is -1. */
FILE *tr_fd_stream(int fd, bool own, int buffering);
void tr_session_fini(struct tr_session *s);

/* "identifier 'x' at FILE:L:C", as stap names a token. */
const char *tr_tok_desc(struct tr_session *s, const struct token *t);
/* "FILE:L:C" */
const char *tr_loc_str(struct tr_session *s, const struct src_loc *l);

/* Diagnostics in stap's shape: the message, the token, the source line
 * and a caret under the token's column. */
void tr_parse_error(struct tr_session *s, const struct token *t,
		    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tr_sema_error(struct tr_session *s, const struct token *t,
		   const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tr_warning(struct tr_session *s, const struct token *t,
		const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tr_print_source(struct tr_session *s, const struct token *t,
		     const char *indent);

/* lexer.c: split FILE into tokens (no preprocessing).  Lexical errors are
 * reported and the bad characters skipped. */
void tr_lex(struct tr_session *s, const struct src_file *f, struct tok_vec *out);
void tok_push(struct tr_session *s, struct tok_vec *v, struct token *t);
bool tok_is(const struct token *t, enum tok_type type, const char *text);
bool tok_op(const struct token *t, const char *op);
bool tok_kw(const struct token *t, const char *kw);

/* preproc.c: conditionals, macros, command-line arguments. */
void tr_preprocess(struct tr_session *s, const struct tok_vec *in,
		   struct tok_vec *out);
/* Collect @define's from a macro library (.stpm) file. */
void tr_load_macros(struct tr_session *s, const struct tok_vec *in);

/* Read a whole file; NULL with errno set on failure. */
struct src_file *tr_read_file(struct tr_session *s, const char *path,
			      bool is_tapset);

#endif
