/* SPDX-License-Identifier: GPL-2.0-or-later */
/* builtins.c -- the script functions maptap implements in C.
 *
 * These are the functions stap's tapsets define with embedded C (string.stp,
 * conversions.stp, tokenize.stp, ctime.stp, random.stp, timestamp.stp,
 * logging.stp, regex matched()); the work is done by the script runtime
 * library, this file only moves arguments and results.  A script or
 * tapset function of the same name in the user's script wins.
 */
#include <config.h>

#include <string.h>
#include <time.h>

#include "interp.h"

enum {
	B_EXIT, B_ERROR, B_WARN, B_LOG, B_ABORT, B_ASSERT,
	B_STRLEN, B_SUBSTR, B_STRINGAT, B_ISINSTR, B_STRPOS, B_STR_REPLACE,
	B_STRTOL, B_ISDIGIT, B_TOKENIZE, B_TEXT_STR, B_TEXT_STRN,
	B_STRING_QUOTED, B_TOUPPER, B_TOLOWER, B_CTIME,
	B_GTOD_S, B_GTOD_MS, B_GTOD_US, B_GTOD_NS,
	B_CLOCK_S, B_CLOCK_MS, B_CLOCK_US, B_CLOCK_NS,
	B_RANDINT, B_MATCHED, B_NGROUPS, B_PP, B_PROBEFUNC, B_PPFUNC,
	B_PN, B_TZ_GMTOFF, B_TZ_NAME,
};

#define L TY_LONG
#define S TY_STRING
#define U TY_UNKNOWN

static const struct tr_builtin builtins[] = {
	{ "exit", 0, 0, { U }, U, B_EXIT },
	{ "error", 1, 1, { S }, U, B_ERROR },
	{ "warn", 1, 1, { S }, U, B_WARN },
	{ "log", 1, 1, { S }, U, B_LOG },
	{ "abort", 0, 0, { U }, U, B_ABORT },
	{ "assert", 1, 2, { L, S }, U, B_ASSERT },
	{ "strlen", 1, 1, { S }, L, B_STRLEN },
	{ "substr", 3, 3, { S, L, L }, S, B_SUBSTR },
	{ "stringat", 2, 2, { S, L }, L, B_STRINGAT },
	{ "isinstr", 2, 2, { S, S }, L, B_ISINSTR },
	{ "strpos", 2, 2, { S, S }, L, B_STRPOS },
	{ "str_replace", 3, 3, { S, S, S }, S, B_STR_REPLACE },
	{ "strtol", 1, 2, { S, L }, L, B_STRTOL },
	{ "isdigit", 1, 1, { S }, L, B_ISDIGIT },
	{ "tokenize", 2, 2, { S, S }, S, B_TOKENIZE },
	{ "text_str", 1, 1, { S }, S, B_TEXT_STR },
	{ "text_strn", 3, 3, { S, L, L }, S, B_TEXT_STRN },
	{ "string_quoted", 1, 1, { S }, S, B_STRING_QUOTED },
	{ "toupper", 1, 1, { S }, S, B_TOUPPER },
	{ "tolower", 1, 1, { S }, S, B_TOLOWER },
	{ "ctime", 0, 1, { L }, S, B_CTIME },
	{ "gettimeofday_s", 0, 0, { U }, L, B_GTOD_S },
	{ "gettimeofday_ms", 0, 0, { U }, L, B_GTOD_MS },
	{ "gettimeofday_us", 0, 0, { U }, L, B_GTOD_US },
	{ "gettimeofday_ns", 0, 0, { U }, L, B_GTOD_NS },
	{ "local_clock_s", 0, 0, { U }, L, B_CLOCK_S },
	{ "local_clock_ms", 0, 0, { U }, L, B_CLOCK_MS },
	{ "local_clock_us", 0, 0, { U }, L, B_CLOCK_US },
	{ "local_clock_ns", 0, 0, { U }, L, B_CLOCK_NS },
	{ "randint", 1, 1, { L }, L, B_RANDINT },
	{ "matched", 1, 1, { L }, S, B_MATCHED },
	{ "ngroups", 0, 0, { U }, L, B_NGROUPS },
	{ "pp", 0, 0, { U }, S, B_PP },
	{ "probefunc", 0, 0, { U }, S, B_PROBEFUNC },
	{ "ppfunc", 0, 0, { U }, S, B_PPFUNC },
	{ "pn", 0, 0, { U }, S, B_PN },
	{ "tz_gmtoff", 0, 0, { U }, L, B_TZ_GMTOFF },
	{ "tz_name", 0, 0, { U }, S, B_TZ_NAME },
};

#undef L
#undef S
#undef U

/* The groups of builtins kept in their own files (interp.h): each
 * has a set of descriptors and a call function, and ids from its own
 * base. */
static const struct tr_builtin_group *const groups[] = {
	&tr_builtins_proc,	/* builtins_proc.c: process context */
	&tr_builtins_ucontext,	/* builtins_ucontext.c: uaddr, registers */
	&tr_builtins_stack,	/* builtins_stack.c: backtraces */
	&tr_builtins_usymbols,	/* builtins_usymbols.c: symbols, modules,
				 * VMAs of an address */
	&tr_builtins_uconversions, /* builtins_uconversions.c: user memory */
};

#define N_GROUPS (sizeof(groups) / sizeof(groups[0]))

/* The sets pass 2 sees, in the order it searches them. */
static const struct tr_builtin_set core = {
	.table = builtins,
	.n = sizeof(builtins) / sizeof(builtins[0]),
};

static const struct tr_builtin_set *const sets[] = {
	&core,
	&tr_builtins_proc.set,
	&tr_builtins_ucontext.set,
	&tr_builtins_usymbols.set,
	&tr_builtins_uconversions.set,
	&tr_builtins_stack.set,
};

void tr_interp_builtins(struct tr_session *s)
{
	s->builtins = sets;
	s->n_builtins = sizeof(sets) / sizeof(sets[0]);
}

static struct sref arg_s(struct interp *I, struct node *n, int i)
{
	return tr_eval_str(I, n->list.v[i]);
}

static int64_t arg_l(struct interp *I, struct node *n, int i)
{
	return tr_eval_long(I, n->list.v[i]);
}

static int64_t clock_val(clockid_t id, int64_t div)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec) / div;
}

/* Builtins returning a string write into a temporary. */
static void string_result(struct interp *I, struct node *n,
			  struct maptap_script_buf *b, int rc,
			  struct sref *s)
{
	if (rc < 0)
		tr_rt_ctx_error(I, n->tok);
	s->p = maptap_script_buf_str(b);
	s->len = b->len;
}

/* The local time now (TZ, /etc/localtime); false when unknown. */
static bool local_tm(struct tm *tm)
{
	time_t now = time(NULL);

	return localtime_r(&now, tm) != NULL;
}

static void call_string(struct interp *I, struct node *n, struct sref *s)
{
	struct maptap_script_buf *b = tr_tmp_get(I);
	struct maptap_script_ctx *c = I->ctx;
	struct sref a, x, y;
	struct tm tm;
	int64_t l1, l2;
	int rc = 0;

	switch (n->builtin) {
	case B_SUBSTR:
		a = arg_s(I, n, 0);
		l1 = arg_l(I, n, 1);
		l2 = arg_l(I, n, 2);
		rc = maptap_script_substr(c, a.p, a.len, l1, l2, b);
		break;
	case B_STR_REPLACE:
		a = arg_s(I, n, 0);
		x = arg_s(I, n, 1);
		y = arg_s(I, n, 2);
		rc = maptap_script_str_replace(c, a.p, x.p, y.p, b);
		break;
	case B_TOKENIZE:
		a = arg_s(I, n, 0);
		x = arg_s(I, n, 1);
		rc = maptap_script_tokenize(c, a.p, x.p, b);
		break;
	case B_TEXT_STR:
	case B_STRING_QUOTED:
		a = arg_s(I, n, 0);
		rc = maptap_script_text_strn(c, a.p, a.len, 0,
					     n->builtin == B_STRING_QUOTED, b);
		break;
	case B_TEXT_STRN:
		a = arg_s(I, n, 0);
		l1 = arg_l(I, n, 1);
		l2 = arg_l(I, n, 2);
		rc = maptap_script_text_strn(c, a.p, a.len, l1, (int)l2, b);
		break;
	case B_TOUPPER:
	case B_TOLOWER:
		a = arg_s(I, n, 0);
		rc = (n->builtin == B_TOUPPER ? maptap_script_toupper :
		      maptap_script_tolower)(c, a.p, a.len, b);
		break;
	case B_CTIME:
		l1 = n->list.n ? arg_l(I, n, 0) :
		     maptap_script_gettimeofday_s();
		rc = maptap_script_ctime(c, l1, b);
		break;
	case B_MATCHED:
		rc = maptap_script_regex_matched(c, arg_l(I, n, 0), b);
		break;
	case B_PP:
		maptap_script_buf_clear(b);
		rc = maptap_script_buf_adds(b, I->cur ? I->cur->name : "");
		break;
	case B_PROBEFUNC:
	case B_PPFUNC:
		/* The probed function of a breakpoint probe; "" elsewhere
		 * (stap's would be a kernel function). */
		maptap_script_buf_clear(b);
		rc = maptap_script_buf_adds(b, I->cur && I->cur->up_func ?
					    I->cur->up_func : "");
		break;
	case B_PN:
		/* The script's probe point this one came from: an alias as
		 * the script names it, else pp() (docs/language.md). */
		maptap_script_buf_clear(b);
		rc = maptap_script_buf_adds(b, I->cur && I->cur->origin ?
					    I->cur->origin : "");
		break;
	case B_TZ_NAME:
		maptap_script_buf_clear(b);
		rc = maptap_script_buf_adds(b, local_tm(&tm) ? tm.tm_zone :
					    "UTC");
		break;
	}
	string_result(I, n, b, rc, s);
}

static void do_output(struct interp *I, struct sref m, bool newline)
{
	maptap_script_buf_add(&I->out, m.p, m.len);
	if (newline)
		maptap_script_buf_addc(&I->out, '\n');
}

static bool call_action(struct interp *I, struct node *n)
{
	struct sref a;

	switch (n->builtin) {
	case B_EXIT:
		I->exit_requested = true;
		return true;
	case B_ABORT:
		I->exit_requested = I->aborted = true;
		return true;
	case B_ERROR:
		a = arg_s(I, n, 0);
		tr_rt_error(I, n->tok, "%s", a.p);
	case B_ASSERT:
		if (arg_l(I, n, 0))
			return true;
		if (n->list.n > 1) {
			a = arg_s(I, n, 1);
			tr_rt_error(I, n->tok, "%s", a.p);
		}
		tr_rt_error(I, n->tok, "Assertion failed");
	case B_WARN:
		a = arg_s(I, n, 0);
		tr_interp_flush(I);
		fprintf(I->s->err, "WARNING: %s\n", a.p);
		return true;
	case B_LOG:
		do_output(I, arg_s(I, n, 0), true);
		return true;
	}
	return false;
}

void tr_builtin_call(struct interp *I, struct node *n, int64_t *l,
		     struct sref *s)
{
	struct maptap_script_ctx *c = I->ctx;
	struct sref a, b;
	struct tm tm;
	int64_t v = 0;
	int rc = 0;

	*l = 0;
	if (n->builtin >= TR_BUILTIN_GROUP_BASE) {
		size_t g = (size_t)(n->builtin / TR_BUILTIN_GROUP_BASE) - 1;

		if (g < N_GROUPS) {
			groups[g]->call(I, n, l, s);
			return;
		}
	}
	if (call_action(I, n))
		return;
	switch (n->builtin) {
	case B_STRLEN:
		a = arg_s(I, n, 0);
		*l = maptap_script_strlen(a.p, a.len);
		return;
	case B_STRINGAT:
		a = arg_s(I, n, 0);
		rc = maptap_script_stringat(c, a.p, a.len, arg_l(I, n, 1), &v);
		break;
	case B_ISINSTR:
	case B_STRPOS:
		a = arg_s(I, n, 0);
		b = arg_s(I, n, 1);
		*l = n->builtin == B_ISINSTR ? maptap_script_isinstr(a.p, b.p)
		     : maptap_script_strpos(a.p, b.p);
		return;
	case B_STRTOL:
		a = arg_s(I, n, 0);
		rc = maptap_script_strtol(c, a.p, n->list.n > 1 ?
					  arg_l(I, n, 1) : 10, &v);
		break;
	case B_ISDIGIT:
		a = arg_s(I, n, 0);
		*l = maptap_script_isdigit(a.p);
		return;
	case B_GTOD_S: *l = maptap_script_gettimeofday_s(); return;
	case B_GTOD_MS: *l = maptap_script_gettimeofday_ms(); return;
	case B_GTOD_US: *l = maptap_script_gettimeofday_us(); return;
	case B_GTOD_NS: *l = maptap_script_gettimeofday_ns(); return;
	case B_CLOCK_S: *l = clock_val(CLOCK_MONOTONIC, 1000000000); return;
	case B_CLOCK_MS: *l = clock_val(CLOCK_MONOTONIC, 1000000); return;
	case B_CLOCK_US: *l = clock_val(CLOCK_MONOTONIC, 1000); return;
	case B_CLOCK_NS: *l = clock_val(CLOCK_MONOTONIC, 1); return;
	case B_RANDINT:
		rc = maptap_script_randint(c, arg_l(I, n, 0), &v);
		break;
	case B_NGROUPS:
		*l = maptap_script_regex_ngroups(c);
		return;
	case B_TZ_GMTOFF:	/* seconds west of UTC, as stap's */
		*l = local_tm(&tm) ? -(int64_t)tm.tm_gmtoff : 0;
		return;
	default:
		call_string(I, n, s);
		return;
	}
	if (rc < 0)
		tr_rt_ctx_error(I, n->tok);
	*l = v;
}
