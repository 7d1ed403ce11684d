/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ast.h -- the parse tree of a SystemTap-language file, and the symbols
 * elaboration attaches to it.
 *
 * One node type serves expressions and statements: the kind says which
 * fields mean what (see the comment on each kind).  Nodes live in the
 * session arena.
 */
#ifndef TR_AST_H
#define TR_AST_H

#include "unit.h"

enum tr_type {
	TY_UNKNOWN,
	TY_LONG,
	TY_STRING,
	TY_STATS,
};

#define TR_MAX_KEYS 9	/* stap's limit on array index arity */

enum node_kind {
	/* expressions */
	N_NUM,		/* num */
	N_STR,		/* str, slen */
	N_VAR,		/* str: name; sym after pass 2 */
	N_INDEX,	/* str: array name; list: indexes */
	N_CALL,		/* str: function name; list: args */
	N_BINARY,	/* op; a, b: + - * / % << >> & | ^ . */
	N_LOGIC,	/* op; a, b: && || */
	N_CMP,		/* op; a, b: == != < <= > >= */
	N_REGEX,	/* op; a, b (b a string literal): =~ !~ */
	N_UNARY,	/* op; a: - + ! ~ & */
	N_PRE,		/* op; a: ++x --x */
	N_POST,		/* op; a: x++ x-- */
	N_ASSIGN,	/* op; a (lvalue), b: = += ... .= */
	N_STATS_ADD,	/* op (OP_STATS_ADD); a (stats lvalue) <<< b */
	N_TERNARY,	/* a ? b : c */
	N_IN,		/* list: keys (NULL entries for '*'); a: array */
	N_STATOP,	/* str: @count @sum @min @max @avg @variance; a */
	N_HIST,		/* str: @hist_log @hist_linear; a; list: params */
	N_HIST_BUCKET,	/* a: N_HIST, b: bucket index */
	N_DEFINED,	/* a */
	N_ENTRY,	/* a */
	N_TARGET,	/* str: $name / @var(...) text */
	N_PRINT,	/* str: print|println|printf|printd|printdln|sprint...;
			 * list: args (for printf the format first) */
	N_EMBEDDED_EXPR, /* str: code */
	/* statements */
	N_BLOCK,	/* list */
	N_EXPR_STMT,	/* a */
	N_IF,		/* a cond, b then, c else */
	N_WHILE,	/* a cond, b body */
	N_FOR,		/* a init, b cond, c incr, d body */
	N_FOREACH,	/* see struct foreach_info */
	N_BREAK,
	N_CONTINUE,
	N_NEXT,
	N_RETURN,	/* a (may be NULL) */
	N_DELETE,	/* a: var, array, element or slice */
	N_TRY,		/* a try block, b catch block, c catch variable */
	N_NULL,
	N_EMBEDDED,	/* str: code */
};

/* A node's operator, decoded once by the parser so that later passes
 * switch on a number instead of comparing spellings; tr_op_name() gives
 * the spelling back (for -p1 and messages).  The last three are not
 * operators of the language but marks on nodes: a member step of a
 * target expression (an N_STR on an N_TARGET's list), a target variable
 * whose address is taken (N_TARGET), an @entry() read from its saved
 * slot (N_ENTRY). */
enum tr_op {
	OP_NONE,
	/* N_BINARY */
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
	OP_SHL, OP_SHR, OP_BAND, OP_BOR, OP_BXOR, OP_CAT,
	/* N_LOGIC */
	OP_LAND, OP_LOR,
	/* N_CMP */
	OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
	/* N_REGEX */
	OP_MATCH, OP_NOMATCH,
	/* N_UNARY */
	OP_NEG, OP_PLUS, OP_NOT, OP_BNOT, OP_ADDR,
	/* N_PRE, N_POST */
	OP_INC, OP_DEC,
	/* N_ASSIGN */
	OP_ASSIGN, OP_ADD_ASSIGN, OP_SUB_ASSIGN, OP_MUL_ASSIGN,
	OP_DIV_ASSIGN, OP_MOD_ASSIGN, OP_SHL_ASSIGN, OP_SHR_ASSIGN,
	OP_BAND_ASSIGN, OP_BOR_ASSIGN, OP_BXOR_ASSIGN, OP_CAT_ASSIGN,
	/* N_STATS_ADD */
	OP_STATS_ADD,
	/* marks */
	OP_MEMBER, OP_TARGET_ADDR, OP_ENTRY_SAVED,
	OP_COUNT
};

/* The binary operator a compound assignment applies (OP_ADD for
 * OP_ADD_ASSIGN, ...); OP_NONE for OP_ASSIGN and anything else. */
static inline enum tr_op tr_op_compound(enum tr_op op)
{
	switch (op) {
	case OP_ADD_ASSIGN:	return OP_ADD;
	case OP_SUB_ASSIGN:	return OP_SUB;
	case OP_MUL_ASSIGN:	return OP_MUL;
	case OP_DIV_ASSIGN:	return OP_DIV;
	case OP_MOD_ASSIGN:	return OP_MOD;
	case OP_SHL_ASSIGN:	return OP_SHL;
	case OP_SHR_ASSIGN:	return OP_SHR;
	case OP_BAND_ASSIGN:	return OP_BAND;
	case OP_BOR_ASSIGN:	return OP_BOR;
	case OP_BXOR_ASSIGN:	return OP_BXOR;
	case OP_CAT_ASSIGN:	return OP_CAT;
	default:		return OP_NONE;
	}
}

struct tr_sym;
struct tr_func;
struct node;

/* foreach ([k1, k2-] in arr+ [slice] limit N) ...; v = [k1] in ... */
struct foreach_info {
	struct ptr_vec keys;	/* struct node * (N_VAR) */
	struct node *value;	/* N_VAR or NULL */
	struct node *array;	/* N_VAR, or N_HIST for its buckets */
	struct ptr_vec slice;	/* struct node *, NULL for '*'; empty: none */
	struct node *limit;
	int sort_col;		/* 0: none, 1..n: key column, -1: value */
	int sort_dir;		/* +1 ascending, -1 descending */
	/* ARRAY @sum- (stap 3.x): the aggregate a stats array's value sort
	 * compares, an enum maptap_script_stat_op + 1; 0: none given
	 * (@count, stap's default) */
	int sort_aggr;
	const struct token *sort_aggr_tok;
	struct node *body;
};

struct node {
	enum node_kind kind;
	const struct token *tok;	/* for messages */
	enum tr_op op;
	const char *str;
	size_t slen;
	int64_t num;
	struct node *a, *b, *c, *d;
	struct ptr_vec list;
	struct foreach_info *fe;
	/* set by elaboration */
	enum tr_type type;
	struct tr_sym *sym;
	struct tr_func *func;
	int builtin;			/* builtin function id, or -1 */
	void *aux;			/* compiled format, ... */
	struct tr_file *file;		/* alias bodies: the defining file */
};

enum sym_scope {
	SYM_GLOBAL,
	SYM_LOCAL,
	SYM_PARAM,
};

struct tr_sym {
	const char *name;
	const struct token *tok;
	enum sym_scope scope;
	int slot;
	enum tr_type type;		/* value type (TY_STATS for stats) */
	const struct token *type_tok;	/* where the type was inferred */
	int arity;			/* 0: scalar, >0: array, -1: unknown */
	enum tr_type key_types[TR_MAX_KEYS];
	int64_t maxsize;		/* global a[N]; 0: MAXMAPENTRIES */
	bool wrap;			/* global a% */
	struct node *init;		/* global x = literal */
	bool is_private;
	bool read, written;
	const struct tr_file *file;
	/* stats: what the aggregate collects (struct
	 * maptap_script_stat_desc), from the @hist_* and @variance uses */
	int hist_kind;			/* 0 none, 1 log, 2 linear */
	int64_t hist_start, hist_stop, hist_interval;
	int bit_shift;
	const struct token *hist_tok;
};

struct tr_func {
	const char *name;
	const struct token *tok;
	enum tr_type ret;
	const struct token *ret_tok;
	struct ptr_vec params;		/* struct tr_sym * */
	struct ptr_vec locals;		/* struct tr_sym *, params first */
	struct node *body;		/* N_BLOCK or N_EMBEDDED */
	bool is_private;
	bool used;
	bool has_embedded;
	struct tr_file *file;
};

struct tr_component {
	const char *name;		/* may hold * and {a,b} */
	struct node *arg;		/* literal argument or NULL */
	const struct token *tok;
};

struct tr_probe_point {
	struct ptr_vec comps;		/* struct tr_component * */
	bool optional;			/* ? */
	bool sufficient;		/* ! */
	struct node *cond;		/* if (...) */
	const struct token *tok;
};

struct tr_probe {
	struct ptr_vec points;		/* struct tr_probe_point * */
	struct node *body;
	struct ptr_vec locals;		/* struct tr_sym * */
	const struct token *tok;
	struct tr_file *file;
	bool is_alias;
	bool epilogue;			/* += alias */
	struct node *body2;		/* = PP { prologue }, { epilogue } */
	struct ptr_vec alias_names;	/* aliases: struct tr_probe_point * */
};

struct tr_file {
	const struct src_file *src;
	struct ptr_vec globals;		/* struct tr_sym * */
	struct ptr_vec functions;	/* struct tr_func * */
	struct ptr_vec probes;		/* struct tr_probe *, not aliases */
	struct ptr_vec aliases;		/* struct tr_probe * (is_alias) */
	struct ptr_vec embedded;	/* struct node * (N_EMBEDDED) */
	bool used;
};

struct node *node_new(struct tr_session *s, enum node_kind kind,
		      const struct token *tok);

/* parse.c: parse one source file (pass 1).  Returns NULL only when the
 * file cannot be read; syntax errors are counted in s->parse_errors. */
struct tr_file *tr_parse_file(struct tr_session *s, const struct src_file *f);

/* dump.c: print a file's parse tree as stap -p1 does, and an expression
 * or statement alone. */
void tr_dump_file(struct tr_session *s, FILE *out, const struct tr_file *f);
void tr_dump_node(FILE *out, const struct node *n, int indent);
void tr_dump_probe_point(FILE *out, const struct tr_probe_point *pp);
const char *tr_type_name(enum tr_type t);
/* The spelling of OP ("+=", "<<<", ...); "" for OP_NONE. */
const char *tr_op_name(enum tr_op op);

#endif
