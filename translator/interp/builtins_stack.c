/* SPDX-License-Identifier: GPL-2.0-or-later */
/* builtins_stack.c -- script functions of user backtraces (stap's
 * ucontext-unwind and ucontext-symbols tapsets): ubacktrace,
 * print_ubacktrace, sprint_ubacktrace, print_ubacktrace_brief,
 * print_ubacktrace_fileline, ucallers, ustack, print_usyms, sprint_usyms,
 * print_ustack, sprint_ustack.
 *
 * Group 3 of builtins.c's groups: ids from 3 * TR_BUILTIN_GROUP_BASE.
 *
 * The stack is the current handler's thread (I->tgt: pid, tid, in a
 * ptrace stop; with perf events, the copy its call's entry record took,
 * maptap_session_get_call_stack(); a profile sample's copy), walked by
 * maptap_unwind() up to MAXBACKTRACE frames (-D
 * MAXBACKTRACE=N, stap's default 20), once per stop for all of these
 * functions (struct tr_stack_cache).  Outside a stopped user context
 * (begin, end, timers, a thread that exited) there is no user stack:
 * the print functions print "<no user backtrace at PP>", the others
 * return "" or 0, as stap does.
 *
 * Formats (stap's runtime/sym.c _stp_snprint_addr flag sets):
 *   full     " 0xADDR : SYM+0xOFF/0xSIZE [MODPATH]\n"   print_ubacktrace,
 *                                                      print_usyms
 *   fileline the same with " at FILE:LINE" before the module
 *   simple   "SYM+0xOFF [MODBASENAME]\n"                sprint_ubacktrace,
 *                                                      sprint_usyms
 *   brief    "SYM+0xOFF\n"                              print_ubacktrace_brief
 * without a symbol "0xADDR [MOD+0xOFF]" (module-relative offset), and
 * without a module "0xADDR".  ubacktrace() and ucallers() give hex
 * addresses separated by single spaces.  Strings are cut at MAXSTRINGLEN
 * between frames, never inside one.  The print functions end a walk that
 * stopped early (no CFI, implausible frame) with a marker line
 * " <unwinding stopped: REASON>".
 *
 * Frames are looked up as maptap_frame_lookup() says: a return address
 * at pc - 1.  Hex strings passed back to *_usyms / *_ustack carry no
 * such mark: their first address is taken as the exact pc, the others
 * as return addresses, which is what ubacktrace() produced.
 */
#include <config.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <maptap/session.h>
#include <maptap/symbols.h>
#include <maptap/unwind.h>

#include <sys/user.h>

#include "interp.h"

enum {
	K_UBACKTRACE = 3 * TR_BUILTIN_GROUP_BASE, K_PRINT_UBACKTRACE,
	K_SPRINT_UBACKTRACE, K_PRINT_UBACKTRACE_BRIEF,
	K_PRINT_UBACKTRACE_FILELINE, K_UCALLERS, K_USTACK, K_PRINT_USYMS,
	K_SPRINT_USYMS, K_PRINT_USTACK, K_SPRINT_USTACK,
	K_UFRAMES, K_UFRAME_PC, K_UFRAME_SYM, K_UFRAME_OFFSET,
	K_UFRAME_MODULE, K_UFRAME_FILE, K_UFRAME_LINE,
};

#define L TY_LONG
#define S TY_STRING
#define U TY_UNKNOWN

static const struct tr_builtin table[] = {
	{ "ubacktrace", 0, 0, { U }, S, K_UBACKTRACE },
	{ "print_ubacktrace", 0, 0, { U }, U, K_PRINT_UBACKTRACE },
	{ "sprint_ubacktrace", 0, 0, { U }, S, K_SPRINT_UBACKTRACE },
	{ "print_ubacktrace_brief", 0, 0, { U }, U,
	  K_PRINT_UBACKTRACE_BRIEF },
	{ "print_ubacktrace_fileline", 0, 0, { U }, U,
	  K_PRINT_UBACKTRACE_FILELINE },
	{ "ucallers", 1, 1, { L }, S, K_UCALLERS },
	{ "ustack", 1, 1, { L }, L, K_USTACK },
	{ "print_usyms", 1, 1, { S }, U, K_PRINT_USYMS },
	{ "sprint_usyms", 1, 1, { S }, S, K_SPRINT_USYMS },
	{ "print_ustack", 1, 1, { S }, U, K_PRINT_USTACK },
	{ "sprint_ustack", 1, 1, { S }, S, K_SPRINT_USTACK },
	/* maptap's own: frame I's fields, for the log's --stacks */
	{ "maptap_uframes", 0, 0, { U }, L, K_UFRAMES },
	{ "maptap_uframe_pc", 1, 1, { L }, L, K_UFRAME_PC },
	{ "maptap_uframe_symbol", 1, 1, { L }, S, K_UFRAME_SYM },
	{ "maptap_uframe_offset", 1, 1, { L }, L, K_UFRAME_OFFSET },
	{ "maptap_uframe_module", 1, 1, { L }, S, K_UFRAME_MODULE },
	{ "maptap_uframe_file", 1, 1, { L }, S, K_UFRAME_FILE },
	{ "maptap_uframe_line", 1, 1, { L }, L, K_UFRAME_LINE },
};

#undef L
#undef S
#undef U

enum fmt { F_FULL, F_FILELINE, F_SIMPLE, F_BRIEF };

/* Frames of one walk, borrowed from the stop's cache (see below). */
struct walk {
	const struct maptap_frame *frames;
	int n;			/* < 0: no user context */
	enum maptap_unwind_end end;
};

static bool user_context(const struct interp *I)
{
	return I->tgt && I->tgt->pid && I->tgt->mods &&
	       (I->tgt->stopped || (I->tgt->sample &&
				    I->tgt->sample->has_regs));
}

static unsigned max_frames(const struct interp *I)
{
	int64_t v = I->s->limits.maxbacktrace;

	return v > 0 && v < 100000 ? (unsigned)v : MAPTAP_MAXBACKTRACE;
}

static void walk(struct interp *I, struct walk *w);

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* One frame in format F onto B, newline included. */
static void format_frame(struct interp *I, const struct maptap_frame *f,
			 enum fmt fmt, struct maptap_script_buf *b)
{
	unsigned flags = MAPTAP_SYM_FUNC |
			 (fmt == F_FILELINE ? MAPTAP_SYM_LINE : 0);
	const struct maptap_module_info *mi;
	struct maptap_sym_info si;
	const char *mod = NULL;

	maptap_frame_lookup(I->tgt->mods, I->tgt->pid, f, flags, &si);
	mi = &si.where.module;
	if (si.where.has_module && mi->path)
		mod = fmt == F_SIMPLE ? base_name(mi->path) : mi->path;
	if (fmt == F_FULL || fmt == F_FILELINE)
		maptap_script_buf_printf(b, " %#" PRIx64, f->pc);
	if (!si.func.name) {
		if (fmt != F_FULL && fmt != F_FILELINE)
			maptap_script_buf_printf(b, "%#" PRIx64, f->pc);
		if (mod)
			maptap_script_buf_printf(b, " [%s+%#" PRIx64 "]", mod,
						 f->pc - mi->bias);
		maptap_script_buf_addc(b, '\n');
		return;
	}
	if (fmt == F_FULL || fmt == F_FILELINE)
		maptap_script_buf_adds(b, " : ");
	maptap_script_buf_printf(b, "%s+%#" PRIx64, si.func.name,
				 si.func.offset);
	if (fmt == F_FULL || fmt == F_FILELINE)
		maptap_script_buf_printf(b, "/%#" PRIx64, si.func.size);
	if (fmt == F_FILELINE && si.src_file)
		maptap_script_buf_printf(b, " at %s:%d", si.src_file,
					 si.src_line);
	if (mod && fmt != F_BRIEF)
		maptap_script_buf_printf(b, " [%s]", mod);
	maptap_script_buf_addc(b, '\n');
}

/* Frames F[0..N) in FMT onto B; with LIMIT (bytes, 0: none) only the
 * whole lines that fit. */
static void format_frames(struct interp *I, const struct maptap_frame *f,
			  int n, enum fmt fmt, size_t limit,
			  struct maptap_script_buf *b)
{
	size_t keep;
	int i;

	for (i = 0; i < n; i++) {
		keep = b->len;
		format_frame(I, &f[i], fmt, b);
		if (limit && b->len > limit) {
			maptap_script_buf_truncate(b, keep);
			return;
		}
	}
}

/* PCs of F[FROM..TO) as hex separated by spaces, whole addresses only
 * within LIMIT bytes. */
static void hex_frames(const struct maptap_frame *f, int from, int to,
		       size_t limit, struct maptap_script_buf *b)
{
	size_t keep;
	int i;

	for (i = from; i < to; i++) {
		keep = b->len;
		maptap_script_buf_printf(b, i > from ? " %#" PRIx64 :
					 "%#" PRIx64, f[i].pc);
		if (b->len > limit) {
			maptap_script_buf_truncate(b, keep);
			return;
		}
	}
}

/* The frames named by a hex string of ubacktrace(): up to MAX. */
static int parse_hex(struct sref a, struct maptap_frame *f, unsigned max)
{
	char *buf = strndup(a.p, a.len), *p, *end;
	int n = 0;

	if (!buf)
		return 0;
	for (p = buf; *p && (unsigned)n < max; p = end) {
		uint64_t v = strtoull(p, &end, 16);

		if (end == p)
			break;
		memset(&f[n], 0, sizeof(f[n]));
		f[n].pc = v;
		f[n].activation = n == 0;
		n++;
	}
	free(buf);
	return n;
}

static void no_backtrace(struct interp *I, struct maptap_script_buf *b)
{
	maptap_script_buf_printf(b, "<no user backtrace at %s>\n",
				 I->cur ? I->cur->name : "");
}

static void print_walk(struct interp *I, enum fmt fmt)
{
	struct maptap_script_buf *b = &I->out;
	struct walk w;

	walk(I, &w);
	if (w.n < 0) {
		no_backtrace(I, b);
	} else {
		format_frames(I, w.frames, w.n, fmt, 0, b);
		if (w.end == MAPTAP_UNWIND_NOINFO ||
		    w.end == MAPTAP_UNWIND_BADFRAME)
			maptap_script_buf_printf(b,
				" <unwinding stopped: %s>\n",
				maptap_unwind_end_name(w.end));
	}
}

static void print_syms(struct interp *I, struct node *n)
{
	struct sref a = tr_eval_str(I, n->list.v[0]);
	unsigned max = max_frames(I);
	struct maptap_frame *f;
	int k;

	if (!user_context(I))
		return;
	f = calloc(max, sizeof(*f));
	if (!f)
		return;
	k = parse_hex(a, f, max);
	format_frames(I, f, k, F_FULL, 0, &I->out);
	free(f);
}

/* One walk per stop, shared by every function of this file: a mapping
 * call gives several events (and module events) at one stop, the log
 * asks for every field of every frame (maptap_uframe*), and a handler
 * may ask for ubacktrace() and print_ubacktrace() alike.  The key is the
 * stop: the thread and the time the tracker gave its events (all events
 * of one call share it); a handler without a time walks anew on every
 * call.  The raw frames are kept as walked (DEPTH frames asked for); a
 * request for more frames than a truncated walk has walks again.  The
 * symbolized frames of the maptap_uframe* functions are made from the
 * raw ones on first need. */
struct ucache_frame {
	uint64_t pc, offset;
	char *sym, *module, *file;	/* NULL: unknown */
	int line;			/* 0: unknown */
};

struct tr_stack_cache {
	pid_t pid, tid;
	uint64_t time_ns;		/* 0: not a known stop */
	/* the raw walk */
	bool walked;
	unsigned depth;			/* frames it was asked for */
	int nraw;			/* < 0: no user context */
	enum maptap_unwind_end end;
	struct maptap_frame *raw;	/* cap of them */
	/* the symbolized frames */
	bool symbolized;
	int n;				/* 0 without user context */
	struct ucache_frame *f;		/* cap of them */
	unsigned cap;
};

static void ucache_clear(struct tr_stack_cache *c)
{
	int i;

	for (i = 0; i < c->n; i++) {
		free(c->f[i].sym);
		free(c->f[i].module);
		free(c->f[i].file);
	}
	c->n = 0;
	c->symbolized = false;
}

void tr_stack_cache_free(struct tr_stack_cache *c)
{
	if (!c)
		return;
	ucache_clear(c);
	free(c->f);
	free(c->raw);
	free(c);
}

/* The time that names the current stop; 0: none known (no caching). */
static uint64_t stop_time(const struct interp *I)
{
	const struct tr_target *t = I->tgt;

	if (t->ev)
		return t->ev->time_ns;
	if (t->mev)
		return t->mev->time_ns;
	if (t->sc)
		return t->sc->time_ns;
	if (t->sample)
		return t->sample->time_ns;
	return 0;
}

/* T's cache, emptied unless it holds the stop of TID of PID at NOW (0:
 * an unknown stop, never reused); NULL on ENOMEM. */
static struct tr_stack_cache *cache_for(struct tr_target *t, pid_t pid,
					pid_t tid, uint64_t now)
{
	struct tr_stack_cache *c = t->stk;

	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		t->stk = c;
	} else if (now && c->time_ns == now && c->pid == pid &&
		   c->tid == tid) {
		return c;
	}
	ucache_clear(c);
	c->walked = false;
	c->pid = pid;
	c->tid = tid;
	c->time_ns = now;
	return c;
}

/* The cache, emptied unless it holds the current stop; NULL on ENOMEM. */
static struct tr_stack_cache *stop_cache(struct interp *I)
{
	return cache_for(I->tgt, I->tgt->pid, I->tgt->tid, stop_time(I));
}

/* Room for MAX frames in C; 0 or -1. */
static int cache_reserve(struct tr_stack_cache *c, unsigned max)
{
	struct maptap_frame *raw;
	struct ucache_frame *f;

	if (c->cap >= max)
		return 0;
	raw = realloc(c->raw, max * sizeof(*raw));
	if (!raw)
		return -1;
	c->raw = raw;
	f = realloc(c->f, max * sizeof(*f));
	if (!f)
		return -1;
	c->f = f;
	c->cap = max;
	return 0;
}

/* Whether T's session reads perf events: its threads run on, and an
 * event's stack is the copy taken at its call's entry.  No session (a
 * caller that drives the stops itself): ptrace. */
static bool perf_events(const struct tr_target *t)
{
	enum maptap_events_source used;

	if (!t->sess)
		return false;
	maptap_session_events(t->sess, &used);
	return used == MAPTAP_EVENTS_PERF;
}

/* Walk the stack of C's thread at the entry of the call of the event
 * being delivered (maptap_session_get_call_stack()), MAX frames, into
 * C; -ENOENT when the session holds none (no user context). */
static int call_walk(struct tr_target *t, struct tr_stack_cache *c,
		     unsigned max)
{
	pid_t tid = c->tid ? c->tid : c->pid;
	struct user_regs_struct regs;
	const void *stack;
	size_t len;
	int err;

	err = maptap_session_get_call_stack(t->sess, tid, &regs, &stack,
					    &len);
	if (err)
		return err;
	return maptap_unwind_sample(t->unw, c->pid, tid, &regs, stack, len,
				    c->raw, max, &c->end);
}

/* Walk the stack of C's thread, MAX frames, into C. */
static int cache_walk(struct tr_target *t, struct tr_stack_cache *c,
		      unsigned max)
{
	if (!t->unw && maptap_unwinder_new(t->mods, &t->unw) != 0)
		return -1;
	if (cache_reserve(c, max) != 0)
		return -1;
	ucache_clear(c);
	c->end = MAPTAP_UNWIND_COMPLETE;
	/* a sample's thread ran on: its registers and stack copy */
	if (t->sample && t->sample->has_regs && t->sample->tid == c->tid)
		c->nraw = maptap_unwind_sample(t->unw, c->pid, c->tid,
					       t->sample->regs,
					       t->sample->stack,
					       t->sample->stack_len, c->raw,
					       max, &c->end);
	else if (!t->sample && perf_events(t))
		c->nraw = call_walk(t, c, max);
	else
		c->nraw = maptap_unwind(t->unw, c->pid,
					c->tid ? c->tid : c->pid, c->raw,
					max, &c->end);
	c->depth = max;
	c->walked = true;
	return 0;
}

/* The current stop's frames, up to MAXBACKTRACE, into W. */
static void walk(struct interp *I, struct walk *w)
{
	unsigned max = max_frames(I);
	struct tr_stack_cache *c;

	w->n = -1;
	w->frames = NULL;
	w->end = MAPTAP_UNWIND_COMPLETE;
	if (!user_context(I) || !(c = stop_cache(I)))
		return;
	if ((!c->walked || (c->depth < max &&
			    c->end == MAPTAP_UNWIND_TRUNCATED)) &&
	    cache_walk(I->tgt, c, max) != 0)
		return;
	w->frames = c->raw;
	w->n = c->nraw;
	w->end = c->end;
	if (w->n > (int)max) {
		w->n = (int)max;
		w->end = MAPTAP_UNWIND_TRUNCATED;
	}
}

int tr_stack_raw(struct tr_target *t, pid_t pid, pid_t tid,
		 uint64_t time_ns, unsigned max,
		 const struct maptap_frame **out, enum maptap_unwind_end *end)
{
	struct tr_stack_cache *c = cache_for(t, pid, tid, time_ns);

	*out = NULL;
	*end = MAPTAP_UNWIND_COMPLETE;
	if (!c)
		return -1;
	if ((!c->walked || (c->depth < max &&
			    c->end == MAPTAP_UNWIND_TRUNCATED)) &&
	    cache_walk(t, c, max) != 0)
		return -1;
	*out = c->raw;
	*end = c->end;
	if (c->nraw > (int)max) {
		*end = MAPTAP_UNWIND_TRUNCATED;
		return (int)max;
	}
	return c->nraw;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Symbolize every frame of C's raw walk. */
static void ucache_fill(struct interp *I, struct tr_stack_cache *c)
{
	const struct maptap_module_info *mi;
	struct maptap_sym_info si;
	int i;

	for (i = 0; i < c->nraw; i++) {
		struct ucache_frame *u = &c->f[i];

		memset(u, 0, sizeof(*u));
		u->pc = c->raw[i].pc;
		maptap_frame_lookup(I->tgt->mods, I->tgt->pid, &c->raw[i],
				    MAPTAP_SYM_FUNC | MAPTAP_SYM_LINE, &si);
		mi = &si.where.module;
		if (si.where.has_module && mi->path)
			u->module = strdup(mi->path);
		if (si.func.name) {
			u->sym = strdup(si.func.name);
			u->offset = si.func.offset;
		}
		u->file = dup_or_null(si.src_file);
		u->line = si.src_line;
	}
	c->n = c->nraw > 0 ? c->nraw : 0;
	c->symbolized = true;
}

/* The symbolized walk of the current stop, made now if it is not there,
 * and in *N its frames up to MAXBACKTRACE (the cached walk may be
 * deeper); NULL and 0 without user context. */
static struct tr_stack_cache *ucache(struct interp *I, int *n)
{
	struct tr_stack_cache *c;
	struct walk w;

	*n = 0;
	walk(I, &w);
	c = I->tgt->stk;
	if (w.n < 0 || !c)
		return NULL;
	if (!c->symbolized)
		ucache_fill(I, c);
	*n = w.n < c->n ? w.n : c->n;
	return c;
}

/* Frame K of the cached walk, or NULL. */
static const struct ucache_frame *uframe(struct interp *I, struct node *n)
{
	int64_t k = tr_eval_long(I, n->list.v[0]);
	int nf;
	struct tr_stack_cache *c = ucache(I, &nf);

	return c && k >= 0 && k < nf ? &c->f[k] : NULL;
}

static int64_t call_uframe_long(struct interp *I, struct node *n)
{
	const struct ucache_frame *u;
	int nf;

	if (n->builtin == K_UFRAMES) {
		ucache(I, &nf);
		return nf;
	}
	u = uframe(I, n);
	if (!u)
		return 0;
	if (n->builtin == K_UFRAME_PC)
		return (int64_t)u->pc;
	if (n->builtin == K_UFRAME_OFFSET)
		return (int64_t)u->offset;
	return u->line;
}

static void call_uframe_string(struct interp *I, struct node *n,
			       struct maptap_script_buf *b)
{
	const struct ucache_frame *u = uframe(I, n);
	const char *s = NULL;

	maptap_script_buf_clear(b);
	if (!u)
		return;
	if (n->builtin == K_UFRAME_SYM)
		s = u->sym;
	else if (n->builtin == K_UFRAME_MODULE)
		s = u->module;
	else
		s = u->file;
	if (s)
		maptap_script_buf_adds(b, s);
}

static int64_t call_long(struct interp *I, struct node *n)
{
	int64_t k = tr_eval_long(I, n->list.v[0]);
	struct walk w;
	int64_t v = 0;

	walk(I, &w);
	if (k >= 0 && k < w.n)
		v = (int64_t)w.frames[k].pc;
	return v;
}

static void call_string(struct interp *I, struct node *n,
			struct maptap_script_buf *b)
{
	size_t limit = I->lim.maxstringlen - 1;
	unsigned max = max_frames(I);
	struct maptap_frame *f;
	int64_t k;
	struct walk w;

	maptap_script_buf_clear(b);
	switch (n->builtin) {
	case K_UBACKTRACE:
	case K_SPRINT_UBACKTRACE:
		walk(I, &w);
		if (w.n > 0 && n->builtin == K_UBACKTRACE)
			hex_frames(w.frames, 0, w.n, limit, b);
		else if (w.n > 0)
			format_frames(I, w.frames, w.n, F_SIMPLE, limit, b);
		break;
	case K_UCALLERS:
		/* stap: N levels above the current one, -1 for all */
		k = tr_eval_long(I, n->list.v[0]);
		walk(I, &w);
		if (w.n > 1)
			hex_frames(w.frames, 1, k < 0 || k >= w.n - 1 ? w.n :
				   (int)k + 1, limit, b);
		break;
	default:		/* sprint_usyms, sprint_ustack */
		f = calloc(max, sizeof(*f));
		if (f && user_context(I))
			format_frames(I, f, parse_hex(tr_eval_str(I,
				      n->list.v[0]), f, max), F_SIMPLE, limit,
				      b);
		free(f);
		break;
	}
}

static void call(struct interp *I, struct node *n, int64_t *l,
		 struct sref *s)
{
	struct maptap_script_buf *b;

	*l = 0;
	switch (n->builtin) {
	case K_PRINT_UBACKTRACE:
		print_walk(I, F_FULL);
		return;
	case K_PRINT_UBACKTRACE_BRIEF:
		print_walk(I, F_BRIEF);
		return;
	case K_PRINT_UBACKTRACE_FILELINE:
		print_walk(I, F_FILELINE);
		return;
	case K_PRINT_USYMS:
	case K_PRINT_USTACK:
		print_syms(I, n);
		return;
	case K_USTACK:
		*l = call_long(I, n);
		return;
	case K_UFRAMES:
	case K_UFRAME_PC:
	case K_UFRAME_OFFSET:
	case K_UFRAME_LINE:
		*l = call_uframe_long(I, n);
		return;
	}
	b = tr_tmp_get(I);
	if (n->builtin >= K_UFRAME_SYM)
		call_uframe_string(I, n, b);
	else
		call_string(I, n, b);
	s->p = maptap_script_buf_str(b);
	s->len = b->len;
}

/* Every stack function walks the stopped thread's stack. */
static bool at_stop(int id)
{
	(void)id;
	return true;
}

const struct tr_builtin_group tr_builtins_stack = {
	.set = {
		.table = table,
		.n = sizeof(table) / sizeof(table[0]),
		.at_stop = at_stop,
	},
	.call = call,
};
