/* elaborate.h -- pass 2: probe-point resolution, symbol resolution, type
 * inference; and what pass 3 adds (slots, compiled formats).
 */
#ifndef TR_ELABORATE_H
#define TR_ELABORATE_H

#include "ast.h"

enum probe_kind {
	PK_INIT,	/* before begin */
	PK_BEGIN,
	PK_END,
	PK_ERROR,
	PK_NEVER,
	PK_TIMER,
};

/* One probe handler after elaboration: a concrete probe point with the
 * alias prologues/epilogues folded into its own copy of the body. */
struct tr_dprobe {
	enum probe_kind kind;
	int64_t priority;		/* begin(N) / end(N) / error(N) */
	int64_t interval_ns;		/* timers */
	int64_t randomize_ns;		/* timer...randomize(N) */
	bool oneshot;			/* exit() after the handler */
	const char *name;		/* "timer.ms(100)" as pp() says */
	struct node *cond;		/* probe point conditions, or NULL */
	struct node *body;
	struct node *prologue, *epilogue;	/* from aliases, pass 2 only */
	struct ptr_vec locals;		/* struct tr_sym * */
	const struct token *tok;
	int order;			/* source order */
};

/* A built-in function implemented in C (builtins.c). */
struct tr_builtin {
	const char *name;
	int min_args, max_args;
	enum tr_type args[4];		/* TY_UNKNOWN: any */
	enum tr_type ret;		/* TY_UNKNOWN: no value */
	int id;
};

struct tr_elab {
	struct ptr_vec globals;		/* struct tr_sym *, slot = index */
	struct ptr_vec functions;	/* struct tr_func *, used ones */
	struct ptr_vec probes;		/* struct tr_dprobe * */
	int max_locals;
};

/* Pass 2 (and the checks of pass 3).  Parses the tapsets the script
 * needs.  Returns 0, or -1 after printing semantic errors. */
int tr_elaborate(struct tr_session *s, struct tr_file *script);

/* Read the macro libraries (*.stpm) of the tapset directories; call
 * before parsing the script so it can use their macros. */
void tr_load_macro_libs(struct tr_session *s);

/* Print the elaborated script as -p2 shows it. */
void tr_dump_elab(struct tr_session *s, FILE *out);

/* builtins.c */
const struct tr_builtin *tr_builtin_find(const char *name);

#endif
