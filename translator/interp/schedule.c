/* SPDX-License-Identifier: GPL-2.0-or-later */
/* schedule.c -- the life of a running script: globals and aggregates
 * created, probes run in stap's order (init, begin by priority, timers,
 * then end or error by priority), and the final dump of globals the
 * script wrote but never read, as stap's generated end probe prints them.
 *
 * Signals: SIGINT, SIGTERM and SIGHUP are blocked and taken with
 * sigtimedwait() while waiting for the next timer, so no handler and no
 * global flag is needed.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "interp.h"
#include "target.h"

static enum maptap_script_type rt_type(enum tr_type t)
{
	switch (t) {
	case TY_STRING: return MAPTAP_SCRIPT_STRING;
	case TY_STATS: return MAPTAP_SCRIPT_STATS;
	default: return MAPTAP_SCRIPT_LONG;
	}
}

static void stat_desc(const struct tr_sym *g,
		      struct maptap_script_stat_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->hist = g->hist_kind == 1 ? MAPTAP_SCRIPT_HIST_LOG :
		  g->hist_kind == 2 ? MAPTAP_SCRIPT_HIST_LINEAR :
		  MAPTAP_SCRIPT_HIST_NONE;
	d->start = g->hist_start;
	d->stop = g->hist_stop;
	d->interval = g->hist_interval;
	d->bit_shift = g->bit_shift;
}

static int init_global(struct interp *I, struct tr_sym *g, struct gslot *gs)
{
	struct maptap_script_error err = { 0 };
	struct maptap_script_stat_desc sd;
	int k, rc = 0;

	stat_desc(g, &sd);
	if (g->arity > 0) {
		struct maptap_script_map_desc md = { 0 };

		md.nkeys = (unsigned)g->arity;
		for (k = 0; k < g->arity; k++)
			md.key_types[k] = rt_type(g->key_types[k]);
		md.value_type = rt_type(g->type);
		md.stat = sd;
		md.max_entries = g->maxsize ? (size_t)g->maxsize :
				 I->lim.maxmapentries;
		md.wrap = g->wrap;
		rc = maptap_script_map_new(&md, &gs->map, &err);
	} else if (g->type == TY_STATS) {
		rc = maptap_script_stat_new(&sd, &gs->stat, &err);
	} else if (g->init && g->init->kind == N_STR) {
		maptap_script_buf_add(&gs->s, g->init->str, g->init->slen);
	} else if (g->init) {
		gs->l = g->init->num;
	}
	if (rc < 0) {
		tr_sema_error(I->s, g->hist_tok ? g->hist_tok : g->tok, "%s",
			      err.msg);
		return -1;
	}
	return 0;
}

/* -G NAME=VALUE */
static void set_cmdline_globals(struct interp *I)
{
	const struct tr_options *o = I->s->opts;
	int i, k;

	for (i = 0; o && i < o->n_globals; i++) {
		for (k = 0; k < I->el->globals.n; k++) {
			struct tr_sym *g = I->el->globals.v[k];
			const char *v = o->globals[i].value ?
					o->globals[i].value : "";

			if (strcmp(g->name, o->globals[i].name) || g->arity > 0)
				continue;
			if (g->type == TY_STRING) {
				maptap_script_buf_clear(&I->globals[k].s);
				maptap_script_buf_adds(&I->globals[k].s, v);
			} else {
				I->globals[k].l = strtoll(v, NULL, 0);
			}
		}
	}
}

int tr_interp_init(struct interp *I, struct tr_session *s, FILE *out)
{
	struct tr_elab *el = s->elab;
	int i;

	memset(I, 0, sizeof(*I));
	I->s = s;
	I->el = el;
	I->outf = out;
	/* S's own output is a stream of tr_fd_stream(), whose fileno()
	 * is -1: the log goes to its descriptor directly, in whole lines
	 * (tr_write_fd()), not cut where stdio's buffer happens to end. */
	I->out_fd = out == s->out && s->out_fd >= 0 ? s->out_fd : fileno(out);
	I->out_tty = I->out_fd >= 0 && isatty(I->out_fd) == 1;
	maptap_script_limits_default(&I->lim);
	I->lim.maxstringlen = (size_t)s->limits.maxstringlen;
	I->lim.maxmapentries = (size_t)s->limits.maxmapentries;
	I->lim.maxaction = s->limits.maxaction;
	I->lim.maxerrors = s->limits.maxerrors;
	if (maptap_script_ctx_new(&I->lim, 0, &I->ctx) < 0)
		return -1;
	I->globals = calloc((size_t)el->globals.n + 1, sizeof(*I->globals));
	I->stack_slots = (size_t)(s->limits.maxnesting + 2) *
			 (size_t)(el->max_locals + 1);
	I->stack = calloc(I->stack_slots, sizeof(*I->stack));
	if (!I->globals || !I->stack)
		return -1;
	for (i = 0; i < el->globals.n; i++)
		if (init_global(I, el->globals.v[i], &I->globals[i]) < 0)
			return -1;
	set_cmdline_globals(I);
	return 0;
}

void tr_interp_fini(struct interp *I)
{
	size_t i;

	for (i = 0; I->globals && i < (size_t)I->el->globals.n; i++) {
		maptap_script_map_free(I->globals[i].map);
		maptap_script_stat_free(I->globals[i].stat);
		maptap_script_buf_free(&I->globals[i].s);
	}
	for (i = 0; I->stack && i < I->stack_slots; i++)
		maptap_script_buf_free(&I->stack[i].s);
	for (i = 0; i < I->tmp_cap && I->tmp[i]; i++) {
		maptap_script_buf_free(I->tmp[i]);
		free(I->tmp[i]);
	}
	free(I->tmp);
	free(I->globals);
	free(I->stack);
	maptap_script_buf_free(&I->out);
	maptap_script_buf_free(&I->errmsg);
	maptap_script_buf_free(&I->ret_s);
	maptap_script_ctx_free(I->ctx);
}

/* ---- ordering ---- */

static int cmp_probe(const void *a, const void *b)
{
	const struct tr_dprobe *x = *(const struct tr_dprobe *const *)a;
	const struct tr_dprobe *y = *(const struct tr_dprobe *const *)b;

	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	return x->order - y->order;
}

static int collect(struct interp *I, enum probe_kind kind,
		   const struct tr_dprobe ***out)
{
	const struct tr_dprobe **v;
	int i, n = 0;

	v = calloc((size_t)I->el->probes.n + 1, sizeof(*v));
	if (!v)
		return 0;
	for (i = 0; i < I->el->probes.n; i++) {
		const struct tr_dprobe *dp = I->el->probes.v[i];

		if (dp->kind == kind)
			v[n++] = dp;
	}
	qsort(v, (size_t)n, sizeof(*v), cmp_probe);
	*out = v;
	return n;
}

static void run_kind(struct interp *I, enum probe_kind kind, bool stop_on_exit)
{
	const struct tr_dprobe **v = NULL;
	int i, n = collect(I, kind, &v);

	for (i = 0; i < n; i++) {
		if (I->aborted || (stop_on_exit && I->errors > I->lim.maxerrors))
			break;
		tr_interp_run_probe(I, v[i]);
	}
	free(v);
}

/* ---- timers ---- */

struct timer {
	const struct tr_dprobe *dp;
	int64_t next_ns;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t jitter(struct interp *I, const struct tr_dprobe *dp)
{
	int64_t r = 0;

	if (dp->randomize_ns <= 0)
		return 0;
	/* randint's range is capped; scale a draw to the window. */
	if (maptap_script_randint(I->ctx, 1 << 20, &r) < 0)
		return 0;
	return (r * (2 * dp->randomize_ns + 1)) / (1 << 20) - dp->randomize_ns;
}

/* Wait until DEADLINE_NS (monotonic; < 0: forever) or a signal.
 * Returns false when a signal asked us to stop. */
static bool wait_until(int64_t deadline_ns, const sigset_t *sigs)
{
	struct timespec ts;
	int64_t d;
	int sig;

	for (;;) {
		if (deadline_ns < 0) {
			sig = sigwaitinfo(sigs, NULL);
		} else {
			d = deadline_ns - now_ns();
			if (d <= 0)
				return true;
			ts.tv_sec = d / 1000000000;
			ts.tv_nsec = d % 1000000000;
			sig = sigtimedwait(sigs, NULL, &ts);
		}
		if (sig > 0)
			return false;
		if (errno == EAGAIN)
			return true;
	}
}

/* Wait for DEADLINE_NS (< 0: none): with a target, tracing it until
 * then (target.c).  Returns false when the run should stop. */
static bool wait_next(struct interp *I, int64_t deadline_ns,
		      const sigset_t *sigs)
{
	if (I->tgt && I->tgt->sess)
		return tr_target_wait(I, deadline_ns);
	return wait_until(deadline_ns, sigs);
}

/* Run timer probes until exit(), a signal, -T, or (with a target) the
 * end of tracing.  Returns true when -T expired. */
static bool run_timers(struct interp *I, const sigset_t *sigs)
{
	const struct tr_dprobe **v = NULL;
	int i, n = collect(I, PK_TIMER, &v);
	struct timer *t = calloc((size_t)n + 1, sizeof(*t));
	const struct tr_options *o = I->s->opts;
	int64_t start = now_ns(), stop_at = -1;
	bool timeout = false;

	if (o && o->timeout_s)
		stop_at = start + (int64_t)o->timeout_s * 1000000000;
	for (i = 0; t && i < n; i++) {
		t[i].dp = v[i];
		t[i].next_ns = start + v[i]->interval_ns + jitter(I, v[i]);
	}
	while (t && !I->exit_requested) {
		int best = -1;
		int64_t when = stop_at;

		for (i = 0; i < n; i++)
			if (best < 0 || t[i].next_ns < t[best].next_ns)
				best = i;
		if (best >= 0 && (when < 0 || t[best].next_ns < when))
			when = t[best].next_ns;
		else
			best = -1;
		if (!wait_next(I, when, sigs))
			break;
		if (best < 0) {
			timeout = true;	/* -T expired */
			break;
		}
		tr_interp_run_probe(I, t[best].dp);
		tr_interp_flush(I);
		t[best].next_ns += t[best].dp->interval_ns +
				   jitter(I, t[best].dp);
		/* A handler slower than its period skips the ticks it
		 * missed, as a kernel hrtimer forwarded past now does,
		 * rather than firing them back to back. */
		if (t[best].next_ns < now_ns())
			t[best].next_ns = now_ns() + t[best].dp->interval_ns;
	}
	free(t);
	free(v);
	return timeout;
}

/* ---- the dump of unread globals ---- */

static void dump_value(struct maptap_script_buf *b,
		       struct maptap_script_value v)
{
	if (v.type == MAPTAP_SCRIPT_STRING)
		maptap_script_buf_printf(b, "\"%s\"", v.u.s.p);
	else
		maptap_script_buf_printf(b, "%#" PRIx64, (uint64_t)v.u.l);
}

static void dump_stat(struct interp *I, struct maptap_script_buf *b,
		      const struct maptap_script_stat *st)
{
	int64_t c = maptap_script_stat_count(st), sum = 0, mn = 0, mx = 0,
		avg = 0;

	if (c) {
		maptap_script_stat_get(st, MAPTAP_SCRIPT_STAT_SUM, &sum, NULL);
		maptap_script_stat_get(st, MAPTAP_SCRIPT_STAT_MIN, &mn, NULL);
		maptap_script_stat_get(st, MAPTAP_SCRIPT_STAT_MAX, &mx, NULL);
		maptap_script_stat_get(st, MAPTAP_SCRIPT_STAT_AVG, &avg, NULL);
	}
	(void)I;
	maptap_script_buf_printf(b, " @count=%" PRId64 " @min=%" PRId64
				 " @max=%" PRId64 " @sum=%" PRId64
				 " @avg=%" PRId64 "\n", c, mn, mx, sum, avg);
}

static void dump_array(struct interp *I, const struct tr_sym *g,
		       struct maptap_script_map *m)
{
	struct maptap_script_snap *snap = NULL;
	size_t i, n;
	int k;

	if (maptap_script_map_snapshot(m, NULL, NULL, &snap) < 0)
		return;
	n = maptap_script_snap_len(snap);
	for (i = 0; i < n; i++) {
		const struct maptap_script_entry *e =
			maptap_script_snap_at(snap, i);
		struct maptap_script_value v = maptap_script_entry_value(e);

		maptap_script_buf_printf(&I->out, "%s[", g->name);
		for (k = 0; k < g->arity; k++) {
			struct maptap_script_value kv =
				maptap_script_entry_key(e, (unsigned)k);

			if (k)
				maptap_script_buf_addc(&I->out, ',');
			if (kv.type == MAPTAP_SCRIPT_STRING)
				maptap_script_buf_printf(&I->out, "\"%s\"",
							 kv.u.s.p);
			else
				maptap_script_buf_printf(&I->out, "%" PRId64,
							 kv.u.l);
		}
		maptap_script_buf_addc(&I->out, ']');
		if (v.type == MAPTAP_SCRIPT_STATS) {
			dump_stat(I, &I->out, v.u.stat);
			continue;
		}
		maptap_script_buf_addc(&I->out, '=');
		dump_value(&I->out, v);
		maptap_script_buf_addc(&I->out, '\n');
	}
	maptap_script_snap_free(snap);
}

static void dump_unread(struct interp *I)
{
	int i;

	for (i = 0; i < I->el->globals.n; i++) {
		const struct tr_sym *g = I->el->globals.v[i];
		struct gslot *gs = &I->globals[i];

		if (g->read || !g->written || g->file->src->is_tapset)
			continue;
		if (gs->map) {
			dump_array(I, g, gs->map);
		} else if (gs->stat) {
			maptap_script_buf_adds(&I->out, g->name);
			dump_stat(I, &I->out, gs->stat);
		} else if (g->type == TY_STRING) {
			maptap_script_buf_printf(&I->out, "%s=\"%s\"\n", g->name,
						 maptap_script_buf_str(&gs->s));
		} else {
			maptap_script_buf_printf(&I->out, "%s=%#" PRIx64 "\n",
						 g->name, (uint64_t)gs->l);
		}
	}
}

/* Start tracing (-c/-x) around the begin probes, trace while timers
 * run, and end tracing before the end probes (target.h). */
static int run_main(struct interp *I, const sigset_t *sigs, bool *opened)
{
	bool target = tr_target_wanted(I), timeout = false;

	*opened = target;
	if (target && tr_target_open(I) < 0)
		return -1;
	run_kind(I, PK_INIT, true);
	run_kind(I, PK_BEGIN, true);
	tr_interp_flush(I);
	if (target && !I->exit_requested && tr_target_attach(I) < 0)
		return -1;
	if (!I->exit_requested)
		timeout = run_timers(I, sigs);
	if (target)
		tr_target_finish(I, timeout);
	return 0;
}

int tr_interp_run(struct interp *I)
{
	sigset_t sigs, old;
	bool error_exit, opened;
	int code = 0, tc;

	static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction dfl = { .sa_handler = SIG_DFL }, saved[3];
	size_t k;

	/* A shell starts background jobs with SIGINT ignored; an ignored
	 * signal is never pending, so sigtimedwait() would not see it. */
	sigemptyset(&sigs);
	for (k = 0; k < 3; k++) {
		sigaddset(&sigs, stop_sigs[k]);
		sigaction(stop_sigs[k], &dfl, &saved[k]);
	}
	sigprocmask(SIG_BLOCK, &sigs, &old);
	if (run_main(I, &sigs, &opened) < 0) {
		I->aborted = true;
		code = 1;
	}
	error_exit = I->errors > I->lim.maxerrors;
	if (!I->aborted) {
		I->exit_requested = false;
		I->in_end = true;
		run_kind(I, error_exit ? PK_ERROR : PK_END, false);
		if (!error_exit)
			dump_unread(I);
	}
	tr_interp_flush(I);
	tc = opened ? tr_target_close(I) : 0;
	if (!code)
		code = tc;
	for (k = 0; k < 3; k++)
		sigaction(stop_sigs[k], &saved[k], NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (I->errors) {
		fprintf(I->s->err, "WARNING: Number of errors: %ld, skipped "
			"probes: 0\n", I->errors);
		return 1;
	}
	return code;
}
