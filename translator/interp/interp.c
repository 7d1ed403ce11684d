/* SPDX-License-Identifier: GPL-2.0-or-later */
/* interp.c -- pass 5: evaluate an elaborated script; see interp.h.
 *
 * The error model is stap's (translate.cxx, the probe epilogue): a
 * runtime error ends the handler, prints "ERROR: MSG near TOKEN", counts
 * toward MAXERRORS, and once past it stops the script: error probes run,
 * end probes do not, the exit status is 1.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cvars.h"
#include "dwvars.h"
#include "interp.h"

enum ctl { C_NORMAL, C_BREAK, C_CONTINUE, C_RETURN, C_NEXT };

static enum ctl exec(struct interp *I, struct node *n);
static void eval_effect(struct interp *I, struct node *n);

/* ---- errors ---- */

void tr_rt_error(struct interp *I, const struct token *tok,
		 const char *fmt, ...)
{
	va_list ap;
	char msg[MAPTAP_SCRIPT_ERRMSG_MAX];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	maptap_script_buf_clear(&I->errmsg);
	maptap_script_buf_adds(&I->errmsg, msg);
	I->err_tok = tok;
	longjmp(*I->recover, 1);
}

void tr_rt_ctx_error(struct interp *I, const struct token *tok)
{
	struct maptap_script_error *e = maptap_script_ctx_error(I->ctx);

	tr_rt_error(I, tok, "%s", e->msg[0] ? e->msg : "runtime error");
}

static void __attribute__((noreturn))
rt_lib_error(struct interp *I, const struct token *tok,
	     const struct maptap_script_error *e)
{
	tr_rt_error(I, tok, "%s", e->msg[0] ? e->msg : "runtime error");
}

/* The error struct is 500-odd bytes; zeroing it per array operation was
 * a third of a handler's time (perf), and the library fills it anyway. */
static inline void err_init(struct maptap_script_error *e)
{
	e->code = MAPTAP_SCRIPT_E_NONE;
	e->msg[0] = '\0';
}

/* ---- temporaries and slots ---- */

struct maptap_script_buf *tr_tmp_get(struct interp *I)
{
	struct maptap_script_buf *b;

	/* A temporary must stay where it is while later ones are taken (a
	 * builtin takes its result buffer, then evaluates arguments that
	 * take more): the table holds pointers, each buffer is its own
	 * allocation, and growing the table moves no buffer. */
	if (I->ntmp == I->tmp_cap) {
		size_t cap = I->tmp_cap ? I->tmp_cap * 2 : 64;
		struct maptap_script_buf **v;

		v = realloc(I->tmp, cap * sizeof(*v));
		if (!v)
			tr_rt_error(I, I->err_tok, "out of memory");
		memset(v + I->tmp_cap, 0, (cap - I->tmp_cap) * sizeof(*v));
		I->tmp = v;
		I->tmp_cap = cap;
	}
	if (!I->tmp[I->ntmp]) {
		I->tmp[I->ntmp] = calloc(1, sizeof(**I->tmp));
		if (!I->tmp[I->ntmp])
			tr_rt_error(I, I->err_tok, "out of memory");
	}
	b = I->tmp[I->ntmp++];
	maptap_script_buf_clear(b);
	return b;
}

static size_t maxlen(const struct interp *I)
{
	return I->lim.maxstringlen - 1;
}

static void set_buf(struct interp *I, struct maptap_script_buf *b,
		    struct sref r)
{
	if (b->s && r.p == b->s)
		return;
	maptap_script_buf_clear(b);
	maptap_script_buf_add(b, r.p, r.len < maxlen(I) ? r.len : maxlen(I));
}

static struct slot *local(struct interp *I, const struct tr_sym *sym)
{
	return &I->stack[I->frame + (size_t)sym->slot];
}

static struct sref buf_ref(const struct maptap_script_buf *b)
{
	struct sref r = { maptap_script_buf_str(b), b->len };

	return r;
}

static struct sref tmp_ref(struct maptap_script_buf *b)
{
	return buf_ref(b);
}

/* ---- lvalues ---- */

struct lref {
	struct node *n;
	struct maptap_script_value keys[MAPTAP_SCRIPT_MAX_KEYS];
};

static void eval_keys(struct interp *I, struct ptr_vec *list,
		      const struct tr_sym *arr,
		      struct maptap_script_value *keys)
{
	int i;

	for (i = 0; i < list->n && i < MAPTAP_SCRIPT_MAX_KEYS; i++) {
		struct node *k = list->v[i];

		if (!k) {
			keys[i] = maptap_script_any();
		} else if (arr->key_types[i] == TY_STRING) {
			struct sref r = tr_eval_str(I, k);

			if (r.len > maxlen(I))
				r.len = maxlen(I);
			keys[i] = maptap_script_string(r.p, r.len);
		} else {
			keys[i] = maptap_script_long(tr_eval_long(I, k));
		}
	}
}

static void lref_make(struct interp *I, struct node *n, struct lref *r)
{
	r->n = n;
	if (n->kind == N_INDEX)
		eval_keys(I, &n->list, n->sym, r->keys);
	else if (n->kind != N_VAR)
		tr_rt_error(I, n->tok, "not an lvalue");
}

static struct maptap_script_map *map_of(struct interp *I, struct node *n)
{
	return I->globals[n->sym->slot].map;
}

static struct maptap_script_value lref_get(struct interp *I,
					   struct lref *r)
{
	struct maptap_script_value v;
	const struct tr_sym *sym = r->n->sym;

	if (r->n->kind == N_INDEX) {
		if (maptap_script_map_get(map_of(I, r->n), r->keys, &v) < 0)
			tr_rt_error(I, r->n->tok, "bad array access");
		return v;
	}
	if (sym->scope == SYM_GLOBAL) {
		struct gslot *g = &I->globals[sym->slot];

		if (sym->type == TY_STRING)
			return maptap_script_string(maptap_script_buf_str(&g->s),
						    g->s.len);
		return maptap_script_long(g->l);
	}
	if (sym->type == TY_STRING) {
		struct slot *s = local(I, sym);

		return maptap_script_string(maptap_script_buf_str(&s->s),
					    s->s.len);
	}
	return maptap_script_long(local(I, sym)->l);
}

static void lref_set(struct interp *I, struct lref *r,
		     struct maptap_script_value v)
{
	const struct tr_sym *sym = r->n->sym;
	struct maptap_script_error err;

	err_init(&err);
	if (r->n->kind == N_INDEX) {
		if (v.type == MAPTAP_SCRIPT_STRING && v.u.s.len > maxlen(I))
			v.u.s.len = maxlen(I);
		if (maptap_script_map_set(map_of(I, r->n), r->keys, &v,
					  &err) < 0)
			rt_lib_error(I, r->n->tok, &err);
		return;
	}
	if (v.type == MAPTAP_SCRIPT_STRING) {
		struct sref s = { v.u.s.p, v.u.s.len };

		set_buf(I, sym->scope == SYM_GLOBAL ?
			&I->globals[sym->slot].s : &local(I, sym)->s, s);
		return;
	}
	if (sym->scope == SYM_GLOBAL)
		I->globals[sym->slot].l = v.u.l;
	else
		local(I, sym)->l = v.u.l;
}

/* ---- arithmetic ---- */

static int64_t arith(struct interp *I, const struct node *n, enum tr_op op,
		     int64_t a, int64_t b)
{
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
	int64_t out;

	switch (op) {
	case OP_ADD: return (int64_t)(ua + ub);
	case OP_SUB: return (int64_t)(ua - ub);
	case OP_MUL: return (int64_t)(ua * ub);
	case OP_DIV:
	case OP_MOD:
		if ((op == OP_DIV ? maptap_script_div : maptap_script_mod)(
			    I->ctx, a, b, &out) < 0)
			tr_rt_ctx_error(I, n->tok);
		return out;
	case OP_BAND: return a & b;
	case OP_BOR: return a | b;
	case OP_BXOR: return a ^ b;
	case OP_SHL: return (int64_t)(ua << (b & 63));
	case OP_SHR: return a >> (b & 63);
	default: break;
	}
	tr_rt_error(I, n->tok, "unknown operator %s", tr_op_name(op));
}

/* ---- statistics ---- */

static const struct maptap_script_stat *stat_of(struct interp *I,
						struct node *n)
{
	struct maptap_script_value keys[MAPTAP_SCRIPT_MAX_KEYS], v;

	if (n->kind == N_VAR)
		return I->globals[n->sym->slot].stat;
	eval_keys(I, &n->list, n->sym, keys);
	if (maptap_script_map_get(map_of(I, n), keys, &v) < 0)
		tr_rt_error(I, n->tok, "bad array access");
	return v.u.stat;
}

static int64_t eval_statop(struct interp *I, struct node *n)
{
	static const char *const names[] = {
		"@count", "@sum", "@min", "@max", "@avg", "@variance"
	};
	const struct maptap_script_stat *st = stat_of(I, n->a);
	struct maptap_script_error err;
	int64_t v;
	int op;

	err_init(&err);
	for (op = 0; op < 5 && strcmp(names[op], n->str); op++)
		;
	if (maptap_script_stat_get(st, (enum maptap_script_stat_op)op, &v,
				   &err) < 0)
		rt_lib_error(I, n->tok, &err);
	return v;
}

static void stats_add(struct interp *I, struct node *n)
{
	struct node *l = n->a;
	int64_t v = tr_eval_long(I, n->b);
	struct maptap_script_error err;

	err_init(&err);
	if (l->kind == N_VAR) {
		maptap_script_stat_add(I->globals[l->sym->slot].stat, v);
		return;
	}
	struct maptap_script_value keys[MAPTAP_SCRIPT_MAX_KEYS];

	eval_keys(I, &l->list, l->sym, keys);
	if (maptap_script_map_stat_add(map_of(I, l), keys, v, &err) < 0)
		rt_lib_error(I, l->tok, &err);
}

/* ---- printing ---- */

static void print_value(struct interp *I, struct node *a,
			struct maptap_script_buf *out)
{
	if (a->kind == N_HIST) {
		const struct maptap_script_stat *st = stat_of(I, a->a);
		struct maptap_script_error err;

		err_init(&err);
		if (maptap_script_stat_print_hist(st, I->lim.hist_elision,
						  out, &err) < 0)
			rt_lib_error(I, a->tok, &err);
		return;
	}
	if (a->type == TY_STRING) {
		struct sref r = tr_eval_str(I, a);

		maptap_script_buf_add(out, r.p, r.len);
		return;
	}
	maptap_script_buf_printf(out, "%" PRId64, tr_eval_long(I, a));
}

static void render_format(struct interp *I, struct node *n,
			  struct maptap_script_buf *out)
{
	struct maptap_script_value args[64];
	struct maptap_script_error err;
	int i, nargs = n->list.n - 1;

	err_init(&err);
	if (!n->aux || nargs > 64)
		tr_rt_error(I, n->tok, "bad format");
	for (i = 0; i < nargs; i++) {
		struct node *a = n->list.v[i + 1];

		if (maptap_script_fmt_arg_type(n->aux, (size_t)i) ==
		    MAPTAP_SCRIPT_STRING) {
			struct sref r = tr_eval_str(I, a);

			args[i] = maptap_script_string(r.p, r.len);
		} else {
			args[i] = maptap_script_long(tr_eval_long(I, a));
		}
	}
	if (maptap_script_fmt_render(n->aux, args, (size_t)nargs, NULL, out,
				     &err) < 0)
		rt_lib_error(I, n->tok, &err);
}

static void do_print(struct interp *I, struct node *n,
		     struct maptap_script_buf *out)
{
	const char *name = n->str[0] == 's' ? n->str + 1 : n->str;
	bool ln = strstr(name, "ln") != NULL;
	struct sref delim = { "", 0 };
	int i, first = 0;

	if (!strcmp(name, "printf")) {
		render_format(I, n, out);
		return;
	}
	if (!strncmp(name, "printd", 6)) {
		delim = tr_eval_str(I, n->list.v[0]);
		first = 1;
	}
	for (i = first; i < n->list.n; i++) {
		if (i > first)
			maptap_script_buf_add(out, delim.p, delim.len);
		print_value(I, n->list.v[i], out);
	}
	if (ln)
		maptap_script_buf_addc(out, '\n');
}

/* Write LEN bytes at P to I's output: with tr_write_fd() where it has a
 * file descriptor; a memory stream (open_memstream(3), the tests) has no
 * system call to wait for. */
static int write_out(struct interp *I, const char *p, size_t len)
{
	FILE *f = I->outf;

	if (I->out_fd >= 0)
		return tr_write_fd(I->out_fd, p, len);
	if (fwrite(p, 1, len, f) != len || fflush(f))
		return -(errno ? errno : EIO);
	return 0;
}

/* Output that cannot be written (a full disk, a reader that has gone)
 * must not stop the script or harm a traced process: say so once, then
 * drop it.  A slow reader is no failure, nor a signal that comes while
 * maptap waits for it, nor a command that made the pipe non-blocking
 * (tr_write_fd()).  glibc's stdio to a plain descriptor would drop its
 * buffer on EINTR or EAGAIN, so the output never goes that way. */
void tr_interp_flush(struct interp *I)
{
	int err = 0;

	if (!I->out_failed && fflush(I->outf))
		err = -(errno ? errno : EIO);
	if (I->out.len && !I->out_failed && !err)
		err = write_out(I, I->out.s, I->out.len);
	maptap_script_buf_clear(&I->out);
	if (err) {
		I->out_failed = true;
		fprintf(I->s->err, "maptap: cannot write the output: %s; "
			"the script goes on without it\n", strerror(-err));
	}
}

void tr_interp_output(struct interp *I)
{
	/* As stdio's buffer did: at once to a terminal, else once a
	 * block has gathered. */
	if (I->out.len && (I->out_tty || I->out.len >= 4096))
		tr_interp_flush(I);
}

/* ---- calls ---- */

static void call_user(struct interp *I, struct node *n, int64_t *l,
		      struct sref *s)
{
	struct tr_func *f = n->func;
	size_t np = (size_t)f->params.n, nl = (size_t)f->locals.n, i;
	size_t base = I->frame + I->frame_size, saved_frame = I->frame;
	size_t saved_size = I->frame_size;
	int64_t al[np ? np : 1];
	struct sref as[np ? np : 1];

	if (I->depth >= I->s->limits.maxnesting ||
	    base + nl > I->stack_slots)
		tr_rt_error(I, n->tok, "MAXNESTING exceeded");
	for (i = 0; i < np; i++) {
		const struct tr_sym *p = f->params.v[i];

		if (p->type == TY_STRING)
			as[i] = tr_eval_str(I, n->list.v[i]);
		else
			al[i] = tr_eval_long(I, n->list.v[i]);
	}
	for (i = 0; i < nl; i++) {
		I->stack[base + i].l = 0;
		maptap_script_buf_clear(&I->stack[base + i].s);
	}
	for (i = 0; i < np; i++) {
		const struct tr_sym *p = f->params.v[i];

		if (p->type == TY_STRING)
			set_buf(I, &I->stack[base + i].s, as[i]);
		else
			I->stack[base + i].l = al[i];
	}
	I->frame = base;
	I->frame_size = nl;
	I->depth++;
	I->ret_l = 0;
	maptap_script_buf_clear(&I->ret_s);
	exec(I, f->body);
	I->depth--;
	I->frame = saved_frame;
	I->frame_size = saved_size;
	*l = I->ret_l;
	if (f->ret == TY_STRING) {
		struct maptap_script_buf *b = tr_tmp_get(I);

		maptap_script_buf_add(b, maptap_script_buf_str(&I->ret_s),
				      I->ret_s.len);
		*s = tmp_ref(b);
	}
}

static void call(struct interp *I, struct node *n, int64_t *l,
		 struct sref *s)
{
	*l = 0;
	s->p = "";
	s->len = 0;
	if (n->builtin >= 0)
		tr_builtin_call(I, n, l, s);
	else
		call_user(I, n, l, s);
}

/* ---- expressions ---- */

static int64_t incdec(struct interp *I, struct node *n)
{
	struct lref r;
	struct maptap_script_error err;
	int64_t d = n->op == OP_INC ? 1 : -1, v;

	err_init(&err);
	lref_make(I, n->a, &r);
	if (n->a->kind == N_INDEX) {
		if (maptap_script_map_add(map_of(I, n->a), r.keys, d, &v,
					  &err) < 0)
			rt_lib_error(I, n->a->tok, &err);
	} else {
		v = (int64_t)((uint64_t)lref_get(I, &r).u.l + (uint64_t)d);
		lref_set(I, &r, maptap_script_long(v));
	}
	return n->kind == N_PRE ? v : (int64_t)((uint64_t)v - (uint64_t)d);
}

static int64_t assign_long(struct interp *I, struct node *n)
{
	struct lref r;
	struct maptap_script_error err;
	int64_t v, cur;

	err_init(&err);
	lref_make(I, n->a, &r);
	if (n->op == OP_ASSIGN) {
		v = tr_eval_long(I, n->b);
		lref_set(I, &r, maptap_script_long(v));
		return v;
	}
	v = tr_eval_long(I, n->b);
	if (n->a->kind == N_INDEX && (n->op == OP_ADD_ASSIGN ||
				      n->op == OP_SUB_ASSIGN)) {
		if (maptap_script_map_add(map_of(I, n->a), r.keys,
					  n->op == OP_ADD_ASSIGN ? v :
					  (int64_t)(0 - (uint64_t)v), &cur,
					  &err) < 0)
			rt_lib_error(I, n->a->tok, &err);
		return cur;
	}
	cur = lref_get(I, &r).u.l;
	v = arith(I, n, tr_op_compound(n->op), cur, v);
	lref_set(I, &r, maptap_script_long(v));
	return v;
}

static struct sref assign_str(struct interp *I, struct node *n)
{
	struct lref r;
	struct maptap_script_value cur;
	struct sref b;

	lref_make(I, n->a, &r);
	b = tr_eval_str(I, n->b);
	if (n->op == OP_CAT_ASSIGN) {
		struct maptap_script_buf *t = tr_tmp_get(I);

		cur = lref_get(I, &r);
		maptap_script_concat(I->ctx, cur.u.s.p, cur.u.s.len, b.p,
				     b.len, t);
		b = tmp_ref(t);
	}
	lref_set(I, &r, maptap_script_string(b.p, b.len));
	cur = lref_get(I, &r);
	b.p = cur.u.s.p;
	b.len = cur.u.s.len;
	return b;
}

static int64_t eval_cmp(struct interp *I, struct node *n)
{
	int64_t c;

	if (n->a->type == TY_STRING) {
		struct sref a = tr_eval_str(I, n->a), b = tr_eval_str(I, n->b);
		/* Most comparisons in a handler ($kind == "map") differ in
		 * their first byte: strcmp()'s answer without the call. */
		int r = a.p[0] != b.p[0] ?
			(unsigned char)a.p[0] - (unsigned char)b.p[0] :
			strcmp(a.p, b.p);

		c = r < 0 ? -1 : r > 0;
	} else {
		int64_t a = tr_eval_long(I, n->a), b = tr_eval_long(I, n->b);

		c = a < b ? -1 : a > b;
	}
	switch (n->op) {
	case OP_EQ: return c == 0;
	case OP_NE: return c != 0;
	case OP_LT: return c < 0;
	case OP_LE: return c <= 0;
	case OP_GT: return c > 0;
	case OP_GE: return c >= 0;
	default: return 0;
	}
}

static int64_t eval_in(struct interp *I, struct node *n)
{
	struct maptap_script_value keys[MAPTAP_SCRIPT_MAX_KEYS];
	int rc;

	eval_keys(I, &n->list, n->a->sym, keys);
	rc = maptap_script_map_exists(map_of(I, n->a), keys);
	if (rc < 0)
		tr_rt_error(I, n->tok, "bad array access");
	return rc;
}

static int64_t eval_regex(struct interp *I, struct node *n)
{
	struct sref s = tr_eval_str(I, n->a);
	int rc = maptap_script_regex_match(I->ctx, s.p, n->b->str);

	if (rc < 0)
		tr_rt_ctx_error(I, n->tok);
	return n->op == OP_NOMATCH ? !rc : rc;
}

/* Every kind of node but the leaves tr_eval_long() answers itself, out
 * of line: its frame (the inlined lvalue and call paths take close to
 * 1 KiB) and six saved registers would otherwise be paid by every
 * constant and variable. */
static int64_t __attribute__((noinline))
eval_long_any(struct interp *I, struct node *n)
{
	int64_t l;
	struct sref s;

	switch (n->kind) {
	case N_INDEX: {
		struct lref r;

		lref_make(I, n, &r);
		return lref_get(I, &r).u.l;
	}
	case N_CALL:
		call(I, n, &l, &s);
		return l;
	case N_BINARY:
		return arith(I, n, n->op, tr_eval_long(I, n->a),
			     tr_eval_long(I, n->b));
	case N_REGEX:
		return eval_regex(I, n);
	case N_UNARY:
		l = tr_eval_long(I, n->a);
		switch (n->op) {
		case OP_NEG: return (int64_t)(0 - (uint64_t)l);
		case OP_NOT: return !l;
		case OP_BNOT: return ~l;
		default: return l;
		}
	case N_PRE:
	case N_POST:
		return incdec(I, n);
	case N_ASSIGN:
		return assign_long(I, n);
	case N_TERNARY:
		return tr_eval_long(I, tr_eval_long(I, n->a) ? n->b : n->c);
	case N_IN:
		return eval_in(I, n);
	case N_STATOP:
		return eval_statop(I, n);
	case N_HIST_BUCKET: {
		const struct maptap_script_stat *st = stat_of(I, n->a->a);
		int64_t i = tr_eval_long(I, n->b), v;

		v = i >= 0 && i <= INT32_MAX ?
		    maptap_script_stat_bucket(st, (int)i) : -1;
		if (v < 0)
			tr_rt_error(I, n->tok, "histogram index out of range");
		return v;
	}
	case N_ENTRY:
		if (n->op == OP_ENTRY_SAVED)
			return tr_dwvar_long(I, n);
		return tr_eval_long(I, n->a);
	case N_TARGET:	/* a DWARF one: tr_eval_long() reads the others */
		return tr_dwvar_long(I, n);
	default:
		eval_effect(I, n);
		return 0;
	}
}

/* The leaves a handler reads most -- constants, variables, context
 * variables, comparisons -- on a small frame; the rest in
 * eval_long_any().  Measured with bench/tracer/loginsns.sh. */
int64_t tr_eval_long(struct interp *I, struct node *n)
{
	switch (n->kind) {
	case N_NUM:
		return n->num;
	case N_VAR:
		if (n->sym->scope == SYM_GLOBAL)
			return I->globals[n->sym->slot].l;
		return local(I, n->sym)->l;
	case N_CMP:
		return eval_cmp(I, n);
	case N_LOGIC:
		if (n->op == OP_LAND)
			return tr_eval_long(I, n->a) && tr_eval_long(I, n->b);
		return tr_eval_long(I, n->a) || tr_eval_long(I, n->b);
	case N_TARGET:
		if (!n->aux)
			return tr_cvar_long(I, (int)n->num);
		break;
	default:
		break;
	}
	return eval_long_any(I, n);
}

/* As eval_long_any(), for strings: all but tr_eval_str()'s leaves. */
static struct sref __attribute__((noinline))
eval_str_any(struct interp *I, struct node *n)
{
	struct sref r = { "", 0 };
	int64_t l;

	switch (n->kind) {
	case N_INDEX: {
		struct lref lr;
		struct maptap_script_value v;

		lref_make(I, n, &lr);
		v = lref_get(I, &lr);
		r.p = v.u.s.p;
		r.len = v.u.s.len;
		return r;
	}
	case N_CALL:
		call(I, n, &l, &r);
		return r;
	case N_BINARY: {
		struct sref a = tr_eval_str(I, n->a), b = tr_eval_str(I, n->b);
		struct maptap_script_buf *t = tr_tmp_get(I);

		maptap_script_concat(I->ctx, a.p, a.len, b.p, b.len, t);
		return tmp_ref(t);
	}
	case N_ASSIGN:
		return assign_str(I, n);
	case N_TERNARY:
		return tr_eval_str(I, tr_eval_long(I, n->a) ? n->b : n->c);
	case N_PRINT: {
		struct maptap_script_buf *t = tr_tmp_get(I);

		do_print(I, n, t);
		maptap_script_buf_truncate(t, maxlen(I));
		return tmp_ref(t);
	}
	case N_ENTRY:
		if (n->op == OP_ENTRY_SAVED)
			return tr_dwvar_str(I, n);
		return tr_eval_str(I, n->a);
	case N_TARGET:	/* a DWARF one: tr_eval_str() reads the others */
		return tr_dwvar_str(I, n);
	default:
		tr_rt_error(I, n->tok, "expected a string");
	}
}

/* As tr_eval_long(): the leaves here, the rest in eval_str_any(). */
struct sref tr_eval_str(struct interp *I, struct node *n)
{
	struct sref r;

	switch (n->kind) {
	case N_STR:
		r.p = n->str;
		r.len = n->slen;
		return r;
	case N_VAR:
		if (n->sym->scope == SYM_GLOBAL)
			return buf_ref(&I->globals[n->sym->slot].s);
		return buf_ref(&local(I, n->sym)->s);
	case N_TARGET:
		if (!n->aux)
			return tr_cvar_str(I, (int)n->num);
		break;
	default:
		break;
	}
	return eval_str_any(I, n);
}

static void eval_effect(struct interp *I, struct node *n)
{
	int64_t l;
	struct sref s;

	switch (n->kind) {
	case N_PRINT:
		if (n->str[0] == 's') {
			tr_eval_str(I, n);
			return;
		}
		do_print(I, n, &I->out);
		if (I->out.len > 8192)
			tr_interp_flush(I);
		return;
	case N_STATS_ADD:
		stats_add(I, n);
		return;
	case N_CALL:
		call(I, n, &l, &s);
		return;
	case N_HIST:
		return;
	default:
		if (n->type == TY_STRING)
			tr_eval_str(I, n);
		else
			tr_eval_long(I, n);
	}
}

/* ---- statements ---- */

static void count_action(struct interp *I, const struct node *n)
{
	if (++I->actions > I->lim.maxaction)
		tr_rt_error(I, n->tok, "MAXACTION exceeded");
}

static void store_key(struct interp *I, struct node *var,
		      struct maptap_script_value v)
{
	struct lref r = { .n = var };

	lref_set(I, &r, v);
}

static enum ctl exec_hist_foreach(struct interp *I, struct node *n)
{
	struct foreach_info *fe = n->fe;
	const struct maptap_script_stat *st = stat_of(I, fe->array->a);
	int i, nb = maptap_script_stat_nbuckets(st);
	int64_t limit = fe->limit ? tr_eval_long(I, fe->limit) : -1;
	size_t mark = I->ntmp;
	enum ctl c = C_NORMAL;

	for (i = 0; i < nb && (limit < 0 || i < limit); i++) {
		count_action(I, n);
		store_key(I, fe->keys.v[0], maptap_script_long(i));
		c = exec(I, fe->body);
		I->ntmp = mark;
		if (c == C_BREAK)
			return C_NORMAL;
		if (c == C_CONTINUE)
			c = C_NORMAL;
		if (c != C_NORMAL)
			break;
	}
	return c;
}

static enum ctl exec_foreach(struct interp *I, struct node *n)
{
	struct foreach_info *fe = n->fe;
	struct maptap_script_sort sort = MAPTAP_SCRIPT_SORT_NONE;
	struct maptap_script_value filter[MAPTAP_SCRIPT_MAX_KEYS];
	struct maptap_script_snap *snap = NULL;
	enum ctl c = C_NORMAL;
	size_t i, len, mark = I->ntmp;
	int k;

	if (fe->array->kind == N_HIST)
		return exec_hist_foreach(I, n);
	if (fe->sort_col) {
		sort.dir = fe->sort_dir;
		sort.column = fe->sort_col < 0 ? 0 : (unsigned)fe->sort_col;
		sort.stat_op = fe->sort_aggr ?
			(enum maptap_script_stat_op)(fe->sort_aggr - 1) :
			MAPTAP_SCRIPT_STAT_COUNT;
	}
	if (fe->limit)
		sort.limit = tr_eval_long(I, fe->limit);
	if (fe->slice.n)
		eval_keys(I, &fe->slice, fe->array->sym, filter);
	if (maptap_script_map_snapshot(map_of(I, fe->array), &sort,
				       fe->slice.n ? filter : NULL, &snap) < 0)
		tr_rt_error(I, n->tok, "cannot iterate over array");
	vec_push(&I->s->arena, &I->snaps, snap);
	len = maptap_script_snap_len(snap);
	for (i = 0; i < len; i++) {
		const struct maptap_script_entry *e =
			maptap_script_snap_at(snap, i);

		count_action(I, n);
		for (k = 0; k < fe->keys.n; k++)
			store_key(I, fe->keys.v[k],
				  maptap_script_entry_key(e, (unsigned)k));
		if (fe->value)
			store_key(I, fe->value, maptap_script_entry_value(e));
		c = exec(I, fe->body);
		I->ntmp = mark;
		if (c == C_BREAK) {
			c = C_NORMAL;
			break;
		}
		if (c == C_CONTINUE)
			c = C_NORMAL;
		if (c != C_NORMAL)
			break;
	}
	I->snaps.n--;
	maptap_script_snap_free(snap);
	return c;
}

static enum ctl exec_loop(struct interp *I, struct node *cond,
			  struct node *incr, struct node *body,
			  const struct node *n)
{
	size_t mark = I->ntmp;
	enum ctl c;

	for (;;) {
		count_action(I, n);
		if (cond && !tr_eval_long(I, cond))
			break;
		I->ntmp = mark;
		c = exec(I, body);
		I->ntmp = mark;
		if (c == C_BREAK)
			break;
		if (c == C_RETURN || c == C_NEXT)
			return c;
		if (incr)
			eval_effect(I, incr);
		I->ntmp = mark;
	}
	I->ntmp = mark;
	return C_NORMAL;
}

static void delete_target(struct interp *I, struct node *a)
{
	struct maptap_script_value keys[MAPTAP_SCRIPT_MAX_KEYS];
	struct tr_sym *sym = a->sym;

	if (a->kind == N_INDEX) {
		eval_keys(I, &a->list, sym, keys);
		if (maptap_script_map_delete(map_of(I, a), keys) < 0)
			tr_rt_error(I, a->tok, "bad array access");
		return;
	}
	if (a->kind != N_VAR)
		tr_rt_error(I, a->tok, "cannot delete this");
	if (sym->scope == SYM_GLOBAL) {
		struct gslot *g = &I->globals[sym->slot];

		if (g->map)
			maptap_script_map_clear(g->map);
		else if (g->stat)
			maptap_script_stat_clear(g->stat);
		g->l = 0;
		maptap_script_buf_clear(&g->s);
		return;
	}
	local(I, sym)->l = 0;
	maptap_script_buf_clear(&local(I, sym)->s);
}

static enum ctl exec_try(struct interp *I, struct node *n)
{
	jmp_buf jb, *saved = I->recover;
	size_t mark = I->ntmp, frame = I->frame, fsize = I->frame_size;
	int depth = I->depth, nsnaps = I->snaps.n;
	enum ctl c;

	I->recover = &jb;
	if (setjmp(jb) == 0) {
		c = exec(I, n->a);
		I->recover = saved;
		return c;
	}
	I->recover = saved;
	while (I->snaps.n > nsnaps)
		maptap_script_snap_free(I->snaps.v[--I->snaps.n]);
	I->ntmp = mark;
	I->frame = frame;
	I->frame_size = fsize;
	I->depth = depth;
	if (n->c) {
		struct sref m = buf_ref(&I->errmsg);

		store_key(I, n->c, maptap_script_string(m.p, m.len));
	}
	return exec(I, n->b);
}

static enum ctl exec(struct interp *I, struct node *n)
{
	size_t mark = I->ntmp;
	enum ctl c = C_NORMAL;
	int i;

	switch (n->kind) {
	case N_BLOCK:
		for (i = 0; i < n->list.n && c == C_NORMAL; i++)
			c = exec(I, n->list.v[i]);
		return c;
	case N_NULL:
		return C_NORMAL;
	default:
		break;
	}
	count_action(I, n);
	switch (n->kind) {
	case N_EXPR_STMT:
		eval_effect(I, n->a);
		break;
	case N_IF:
		if (tr_eval_long(I, n->a))
			c = exec(I, n->b);
		else if (n->c)
			c = exec(I, n->c);
		break;
	case N_WHILE:
		c = exec_loop(I, n->a, NULL, n->b, n);
		break;
	case N_FOR:
		if (n->a)
			eval_effect(I, n->a);
		c = exec_loop(I, n->b, n->c, n->d, n);
		break;
	case N_FOREACH:
		c = exec_foreach(I, n);
		break;
	case N_BREAK:
		c = C_BREAK;
		break;
	case N_CONTINUE:
		c = C_CONTINUE;
		break;
	case N_NEXT:
		c = C_NEXT;
		break;
	case N_RETURN:
		if (n->a && n->a->type == TY_STRING)
			set_buf(I, &I->ret_s, tr_eval_str(I, n->a));
		else if (n->a)
			I->ret_l = tr_eval_long(I, n->a);
		c = C_RETURN;
		break;
	case N_DELETE:
		delete_target(I, n->a);
		break;
	case N_TRY:
		c = exec_try(I, n);
		break;
	default:
		eval_effect(I, n);
	}
	I->ntmp = mark;
	return c;
}

/* ---- probes ---- */

static void report_error(struct interp *I)
{
	tr_interp_flush(I);
	fprintf(I->s->err, "ERROR: %s near %s\n",
		maptap_script_buf_str(&I->errmsg),
		I->err_tok ? tr_tok_desc(I->s, I->err_tok) : "<unknown>");
	fflush(I->s->err);
	I->errors++;
	if (I->errors > I->lim.maxerrors)
		I->exit_requested = true;
}

/* The state a handler of DP starts from: no actions, an empty frame of
 * its locals, run-time errors caught at JB (the caller's setjmp). */
static void probe_start(struct interp *I, const struct tr_dprobe *dp,
			jmp_buf *jb)
{
	size_t i, nl = (size_t)dp->locals.n;

	I->cur = dp;
	I->actions = 0;
	I->depth = 0;
	I->frame = 0;
	I->frame_size = nl;
	I->ntmp = 0;
	I->recover = jb;
	for (i = 0; i < nl; i++) {
		I->stack[i].l = 0;
		maptap_script_buf_clear(&I->stack[i].s);
	}
}

struct tr_entry_frame *tr_interp_save_entry(struct interp *I,
					    const struct tr_dprobe *dp)
{
	struct tr_entry_frame *volatile fr = tr_entry_frame_new(dp);
	jmp_buf jb;

	if (!fr)
		return NULL;
	probe_start(I, dp, &jb);
	if (setjmp(jb)) {
		report_error(I);
		I->cur = NULL;
		tr_entry_frame_free(fr);
		return NULL;
	}
	tr_dwvar_save_entry(I, dp, fr);
	I->cur = NULL;
	return fr;
}

bool tr_interp_run_probe(struct interp *I, const struct tr_dprobe *dp)
{
	jmp_buf jb;

	probe_start(I, dp, &jb);
	if (setjmp(jb)) {
		while (I->snaps.n > 0)
			maptap_script_snap_free(I->snaps.v[--I->snaps.n]);
		report_error(I);
		I->cur = NULL;
		return false;
	}
	if (!dp->cond || tr_eval_long(I, dp->cond))
		exec(I, dp->body);
	if (dp->oneshot)
		I->exit_requested = true;
	I->cur = NULL;
	return true;
}
