/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.c -- maptap --profile (profile.h): samples from maptap/profile.h,
 * stacks from maptap_unwind_sample(), names from the symbol layer as the
 * module layer is at the drain, which target.c makes happen before each
 * address-space change; so every sample is named in the image it ran in.
 *
 * A frame's name is its function symbol; code without one is named by
 * its module, "[libfoo.so]", and code outside every module "[unknown]";
 * a sample taken in the kernel gets a last frame "[kernel]" above the
 * user stack of the system call it interrupted.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>

#include <maptap/maptap.h>

#include "flame_svg.h"
#include "interp.h"
#include "profile.h"

/* A string -> count table (chained hash), for functions and stacks. */
struct cnt_ent {
	struct cnt_ent *next;
	uint64_t n;
	char key[];
};

struct cnt_tab {
	struct cnt_ent **b;
	size_t nb, n;
};

/* One perf event configuration: the --profile's own, or the probes of a
 * script that sample alike. */
struct src {
	struct tr_profile *p;
	struct maptap_profiler *prof;
	struct maptap_profile_opts o;
	bool aggregate;			/* --profile's */
	const struct tr_dprobe **probes;
	int n;
};

struct tr_profile {
	struct tr_target *t;
	struct tr_profile_cfg cfg;
	FILE *err;
	struct src *srcs;
	int nsrcs;
	struct maptap_profiler *prof;	/* --profile's; NULL without */
	tr_profile_fire_fn fire;
	void *fire_arg;
	struct maptap_frame *frames;
	struct cnt_tab self;		/* "function\tmodule" of frame 0 */
	struct cnt_tab stacks;		/* folded, outermost first */
	uint64_t samples;		/* named */
	uint64_t no_regs;		/* samples without user registers */
	uint64_t truncated;		/* walks that ended short of the
					 * outermost frame */
	bool open_failed_said;
	char *buf;			/* the folded key being built */
	size_t buf_len, buf_cap;
	bool oom;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
	return h;
}

static int cnt_add(struct cnt_tab *t, const char *key, uint64_t n)
{
	struct cnt_ent *e;
	size_t i, len;

	if (t->n >= t->nb) {
		size_t nb = t->nb ? 2 * t->nb : 256;
		struct cnt_ent **b = calloc(nb, sizeof(*b));

		if (!b)
			return -ENOMEM;
		for (i = 0; i < t->nb; i++)
			while (t->b[i]) {
				e = t->b[i];
				t->b[i] = e->next;
				e->next = b[hash_str(e->key) % nb];
				b[hash_str(e->key) % nb] = e;
			}
		free(t->b);
		t->b = b;
		t->nb = nb;
	}
	i = hash_str(key) % t->nb;
	for (e = t->b[i]; e; e = e->next)
		if (strcmp(e->key, key) == 0) {
			e->n += n;
			return 0;
		}
	len = strlen(key) + 1;
	e = malloc(sizeof(*e) + len);
	if (!e)
		return -ENOMEM;
	memcpy(e->key, key, len);
	e->n = n;
	e->next = t->b[i];
	t->b[i] = e;
	t->n++;
	return 0;
}

static void cnt_free(struct cnt_tab *t)
{
	struct cnt_ent *e;
	size_t i;

	for (i = 0; i < t->nb; i++)
		while ((e = t->b[i])) {
			t->b[i] = e->next;
			free(e);
		}
	free(t->b);
}

/* The entries of T in an array (owned by T), or NULL. */
static struct cnt_ent **cnt_list(const struct cnt_tab *t)
{
	struct cnt_ent **v = malloc((t->n + 1) * sizeof(*v)), *e;
	size_t i, k = 0;

	if (!v)
		return NULL;
	for (i = 0; i < t->nb; i++)
		for (e = t->b[i]; e; e = e->next)
			v[k++] = e;
	return v;
}

int tr_profile_cfg_of(const struct tr_options *o,
		      struct tr_profile_cfg *cfg, FILE *err)
{
	static const struct {
		const char *name;
		uint64_t max;
	} names[] = {
		{ "PROFILE_FREQ", 1000000 },
		{ "PROFILE_PERIOD", UINT64_MAX / 2 },
		{ "PROFILE_STACK", 65528 },
		{ "PROFILE_PAGES", 1 << 16 },
		{ "PROFILE_TOP", 1 << 20 },
		{ "MAXBACKTRACE", 4096 },
		{ "PROFILE_DRAIN_MS", 1000000 },
	};
	uint64_t v[7] = { 0 };
	int i, k;

	memset(cfg, 0, sizeof(*cfg));
	cfg->aggregate = o->profile != 0;
	cfg->format = o->profile == 3 ? TR_PROFILE_SVG :
		      o->profile == 2 ? TR_PROFILE_FOLDED : TR_PROFILE_TOP;
	cfg->popts.default_event = true;
	for (i = 0; i < o->n_defines; i++)
		for (k = 0; k < 7; k++) {
			const struct tr_define *d = &o->defines[i];
			unsigned long long x;
			char *end;

			if (strcmp(d->name, names[k].name))
				continue;
			errno = 0;
			x = d->value ? strtoull(d->value, &end, 0) : 0;
			if (!d->value || errno || *end || !x ||
			    x > names[k].max) {
				fprintf(err, "maptap: invalid value for -D "
					"%s\n", d->name);
				return -1;
			}
			v[k] = x;
		}
	cfg->popts.freq = v[0];
	cfg->popts.period = v[1];
	if (v[0] && v[1]) {
		fputs("maptap: -D PROFILE_FREQ and -D PROFILE_PERIOD "
		      "exclude each other\n", err);
		return -1;
	}
	cfg->popts.stack_bytes = (uint32_t)v[2];
	cfg->popts.pages = (unsigned)v[3];
	cfg->top = (unsigned)v[4];
	cfg->max_frames = (unsigned)v[5];
	cfg->drain_ns = v[6] ? (int64_t)v[6] * 1000000 : TR_PROFILE_DRAIN_NS;
	/* the table names frame 0 only: no stack to copy */
	cfg->popts.no_stack = cfg->format == TR_PROFILE_TOP;
	if (cfg->popts.stack_bytes % 8 ||
	    (cfg->popts.pages & (cfg->popts.pages - 1))) {
		fputs("maptap: -D PROFILE_STACK must be a multiple of 8 and "
		      "-D PROFILE_PAGES a power of two\n", err);
		return -1;
	}
	return 0;
}

/* A new source with options O; NULL after printing why. */
static struct src *src_add(struct tr_profile *p,
			   const struct maptap_profile_opts *o, bool aggregate)
{
	struct src *v = realloc(p->srcs, (size_t)(p->nsrcs + 1) * sizeof(*v));
	struct src *sr;
	int rc;

	if (!v) {
		fputs("maptap: out of memory\n", p->err);
		return NULL;
	}
	p->srcs = v;
	sr = &v[p->nsrcs];
	memset(sr, 0, sizeof(*sr));
	sr->p = p;
	sr->o = *o;
	sr->aggregate = aggregate;
	rc = maptap_profiler_new(o, &sr->prof);
	if (rc == 0 && !o->default_event)
		rc = maptap_profile_probe(sr->prof, o->type, o->config);
	if (rc) {
		fprintf(p->err, "maptap: %s: %s\n", aggregate ? "--profile" :
			"perf probe", sr->prof &&
			*maptap_profile_errmsg(sr->prof) ?
			maptap_profile_errmsg(sr->prof) :
			rc == -EINVAL ? "invalid sampling options" :
			strerror(-rc));
		maptap_profiler_free(sr->prof);
		return NULL;
	}
	p->nsrcs++;
	return sr;
}

int tr_profile_new(struct tr_target *t, const struct tr_profile_cfg *cfg,
		   FILE *err, struct tr_profile **out)
{
	struct tr_profile *p = calloc(1, sizeof(*p));

	if (!p) {
		fputs("maptap: out of memory\n", err);
		return -1;
	}
	p->t = t;
	p->cfg = *cfg;
	p->err = err;
	if (!p->cfg.max_frames)
		p->cfg.max_frames = 64;
	if (!p->cfg.top)
		p->cfg.top = 20;
	if (!p->cfg.drain_ns)
		p->cfg.drain_ns = TR_PROFILE_DRAIN_NS;
	p->frames = calloc(p->cfg.max_frames, sizeof(*p->frames));
	if (!p->frames) {
		fputs("maptap: out of memory\n", err);
		tr_profile_free(p);
		return -1;
	}
	if (cfg->aggregate) {
		struct src *sr = src_add(p, &p->cfg.popts, true);

		if (!sr) {
			tr_profile_free(p);
			return -1;
		}
		p->prof = sr->prof;
	}
	*out = p;
	return 0;
}

int tr_profile_add_probe(struct tr_profile *p, const struct tr_dprobe *dp)
{
	struct maptap_profile_opts o = { 0 };
	const struct tr_dprobe **v;
	struct src *sr = NULL;
	int i;

	o.type = dp->perf_type;
	o.config = dp->perf_config;
	o.period = dp->perf_period;
	o.freq = dp->perf_freq;
	/* the stack and ring sizes of -D PROFILE_STACK / PROFILE_PAGES */
	o.stack_bytes = p->cfg.popts.stack_bytes;
	o.pages = p->cfg.popts.pages;
	for (i = 0; i < p->nsrcs && !sr; i++)
		if (!p->srcs[i].aggregate && p->srcs[i].o.type == o.type &&
		    p->srcs[i].o.config == o.config &&
		    p->srcs[i].o.period == o.period &&
		    p->srcs[i].o.freq == o.freq)
			sr = &p->srcs[i];
	if (!sr && !(sr = src_add(p, &o, false)))
		return -1;
	v = realloc(sr->probes, (size_t)(sr->n + 1) * sizeof(*v));
	if (!v) {
		fputs("maptap: out of memory\n", p->err);
		return -1;
	}
	v[sr->n++] = dp;
	sr->probes = v;
	return 0;
}

void tr_profile_set_fire(struct tr_profile *p, tr_profile_fire_fn fn,
			 void *arg)
{
	p->fire = fn;
	p->fire_arg = arg;
}

void tr_profile_free(struct tr_profile *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nsrcs; i++) {
		maptap_profiler_free(p->srcs[i].prof);
		free(p->srcs[i].probes);
	}
	free(p->srcs);
	cnt_free(&p->self);
	cnt_free(&p->stacks);
	free(p->frames);
	free(p->buf);
	free(p);
}

static void open_one(struct tr_profile *p, pid_t pid, pid_t tid)
{
	int i, rc;

	for (i = 0; i < p->nsrcs; i++) {
		rc = maptap_profile_open(p->srcs[i].prof, pid, tid);
		/* A thread that exited before it could be opened is no
		 * news. */
		if (rc && rc != -ESRCH && !p->open_failed_said) {
			p->open_failed_said = true;
			fprintf(p->err, "maptap: thread %d not sampled: "
				"%s\n", (int)tid,
				maptap_profile_errmsg(p->srcs[i].prof));
		}
	}
}

void tr_profile_thread(struct tr_profile *p, pid_t pid, pid_t tid,
		       bool all_threads)
{
	char path[64];
	struct dirent *d;
	DIR *dir;

	if (!all_threads) {
		open_one(p, pid, tid);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir) {
		open_one(p, pid, pid);
		return;
	}
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			open_one(p, pid, (pid_t)atoi(d->d_name));
	closedir(dir);
}

void tr_profile_stop(struct tr_profile *p, pid_t pid, pid_t tid)
{
	int i;

	tr_profile_drain(p);
	for (i = 0; i < p->nsrcs; i++) {
		if (tid)
			maptap_profile_close(p->srcs[i].prof, tid);
		else
			maptap_profile_close_pid(p->srcs[i].prof, pid);
	}
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* The name of frame F of PID into BUF, and its module's path in *MOD
 * ("" when none). */
static const char *frame_name(struct tr_profile *p, pid_t pid,
			      const struct maptap_frame *f, char *buf,
			      size_t size, const char **mod)
{
	struct maptap_sym_info si;
	int rc;

	memset(&si, 0, sizeof(si));
	rc = maptap_frame_lookup(p->t->mods, pid, f, MAPTAP_SYM_FUNC, &si);
	*mod = "";
	if (rc || !si.where.has_module)
		return "[unknown]";
	*mod = si.where.module.path ? si.where.module.path : "";
	if (si.func.name)
		return si.func.name;
	snprintf(buf, size, "[%s]", base_name(*mod));
	return buf;
}

/* Prepend NAME and a ';' (unless first) to the folded key. */
static void key_prepend(struct tr_profile *p, const char *name, bool first)
{
	size_t len = strlen(name) + (first ? 0 : 1);
	char *b;

	if (p->buf_len + len + 1 > p->buf_cap) {
		size_t cap = 2 * (p->buf_len + len + 1) + 256;

		b = realloc(p->buf, cap);
		if (!b) {
			p->oom = true;
			return;
		}
		if (!p->buf)
			b[0] = '\0';
		p->buf = b;
		p->buf_cap = cap;
	}
	memmove(p->buf + len, p->buf, p->buf_len + 1);
	memcpy(p->buf, name, strlen(name));
	if (!first)
		p->buf[len - 1] = ';';
	p->buf_len += len;
}

static int on_sample(const struct maptap_profile_sample *s, void *arg)
{
	struct src *sr = arg;
	struct tr_profile *p = sr->p;
	enum maptap_unwind_end end = MAPTAP_UNWIND_COMPLETE;
	char nbuf[300], kbuf[600];
	const char *name, *mod;
	int n, i;

	if (!sr->aggregate) {
		if (p->fire)
			p->fire(s, sr->probes, sr->n, p->fire_arg);
		return 0;
	}
	if (!s->has_regs) {
		p->no_regs++;
		return 0;
	}
	if (p->cfg.format != TR_PROFILE_TOP) {
		if (!p->t->unw &&
		    maptap_unwinder_new(p->t->mods, &p->t->unw) != 0)
			return 0;
		n = maptap_unwind_sample(p->t->unw, s->pid, s->tid, s->regs,
					 s->stack, s->stack_len, p->frames,
					 p->cfg.max_frames, &end);
		if (n <= 0)
			return 0;
		if (end != MAPTAP_UNWIND_COMPLETE)
			p->truncated++;
	} else {
		p->frames[0] = (struct maptap_frame){
			.pc = s->regs->rip, .sp = s->regs->rsp,
			.activation = true, .how = MAPTAP_FRAME_REGS,
		};
		n = 1;
	}
	p->samples++;
	/* frame 0 is where the thread was in user mode */
	name = frame_name(p, s->pid, &p->frames[0], nbuf, sizeof(nbuf), &mod);
	if (!s->user_mode) {
		name = "[kernel]";
		mod = "";
	}
	snprintf(kbuf, sizeof(kbuf), "%s\t%s", name, mod);
	if (cnt_add(&p->self, kbuf, 1))
		p->oom = true;
	if (p->cfg.format == TR_PROFILE_TOP)
		return 0;
	p->buf_len = 0;
	if (p->buf)
		p->buf[0] = '\0';
	if (!s->user_mode)
		key_prepend(p, "[kernel]", true);
	for (i = 0; i < n; i++) {
		name = frame_name(p, s->pid, &p->frames[i], nbuf,
				  sizeof(nbuf), &mod);
		key_prepend(p, name, i == 0 && s->user_mode);
	}
	if (p->buf && cnt_add(&p->stacks, p->buf, 1))
		p->oom = true;
	return 0;
}

int64_t tr_profile_drain_ns(const struct tr_profile *p)
{
	return p->cfg.drain_ns;
}

void tr_profile_drain(struct tr_profile *p)
{
	int i;

	for (i = 0; p && i < p->nsrcs; i++)
		maptap_profile_drain(p->srcs[i].prof, on_sample,
				     &p->srcs[i]);
}

static int by_count(const void *a, const void *b)
{
	const struct cnt_ent *x = *(struct cnt_ent *const *)a;
	const struct cnt_ent *y = *(struct cnt_ent *const *)b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->key, y->key);
}

static int by_key(const void *a, const void *b)
{
	const struct cnt_ent *x = *(struct cnt_ent *const *)a;
	const struct cnt_ent *y = *(struct cnt_ent *const *)b;

	return strcmp(x->key, y->key);
}

static void print_header(struct tr_profile *p, FILE *out,
			 const struct maptap_profile_stats *st)
{
	const struct maptap_profile_opts *o = &p->cfg.popts;
	char ev[64];

	maptap_profile_event_name(o->default_event ? PERF_TYPE_SOFTWARE :
				  o->type, o->default_event ?
				  PERF_COUNT_SW_CPU_CLOCK : o->config, ev,
				  sizeof(ev));
	fprintf(out, "maptap profile: %llu samples of %s",
		(unsigned long long)p->samples, ev);
	if (o->period)
		fprintf(out, " every %llu", (unsigned long long)o->period);
	else
		fprintf(out, " at %llu Hz", (unsigned long long)
			(o->freq ? o->freq : MAPTAP_PROFILE_FREQ));
	fprintf(out, ", %llu perf events, %llu lost\n",
		(unsigned long long)st->threads,
		(unsigned long long)st->lost);
}

static int print_top(struct tr_profile *p, FILE *out)
{
	struct cnt_ent **v = cnt_list(&p->self);
	size_t i;

	if (!v)
		return -ENOMEM;
	qsort(v, p->self.n, sizeof(*v), by_count);
	fprintf(out, "%7s %8s  %-32s %s\n", "share", "samples", "function",
		"module");
	for (i = 0; i < p->self.n && i < p->cfg.top; i++) {
		char *tab = strchr(v[i]->key, '\t');

		*tab = '\0';
		fprintf(out, "%6.2f%% %8llu  %-32s %s\n",
			p->samples ? 100.0 * (double)v[i]->n /
			(double)p->samples : 0.0,
			(unsigned long long)v[i]->n, v[i]->key, tab + 1);
		*tab = '\t';
	}
	free(v);
	return 0;
}

static int print_svg(struct tr_profile *p, FILE *out,
		     const struct maptap_profile_stats *st)
{
	struct cnt_ent **v = cnt_list(&p->stacks);
	const char **keys = malloc((p->stacks.n + 1) * sizeof(*keys));
	uint64_t *counts = malloc((p->stacks.n + 1) * sizeof(*counts));
	char title[160];
	size_t i;
	int rc = -ENOMEM;

	if (v && keys && counts) {
		qsort(v, p->stacks.n, sizeof(*v), by_key);
		for (i = 0; i < p->stacks.n; i++) {
			keys[i] = v[i]->key;
			counts[i] = v[i]->n;
		}
		snprintf(title, sizeof(title), "maptap profile: %llu "
			 "samples, %llu lost", (unsigned long long)p->samples,
			 (unsigned long long)st->lost);
		rc = tr_flame_svg(out, keys, counts, p->stacks.n, title);
	}
	free(v);
	free(keys);
	free(counts);
	return rc;
}

static int print_folded(struct tr_profile *p, FILE *out)
{
	struct cnt_ent **v = cnt_list(&p->stacks);
	size_t i;

	if (!v)
		return -ENOMEM;
	qsort(v, p->stacks.n, sizeof(*v), by_key);
	for (i = 0; i < p->stacks.n; i++)
		fprintf(out, "%s %llu\n", v[i]->key,
			(unsigned long long)v[i]->n);
	free(v);
	return 0;
}

/* The script's sampling probes: lost samples always (never silently
 * dropped), the rest with -v. */
static void print_probe_stats(struct tr_profile *p, FILE *err, int verbose)
{
	struct maptap_profile_stats st;
	char ev[64];
	int i;

	for (i = 0; i < p->nsrcs; i++) {
		const struct src *sr = &p->srcs[i];

		if (sr->aggregate)
			continue;
		maptap_profile_get_stats(sr->prof, &st);
		if (!verbose && !st.lost)
			continue;
		maptap_profile_event_name(sr->o.type, sr->o.config, ev,
					  sizeof(ev));
		fprintf(err, "maptap: perf probes on %s: %llu samples read, "
			"%llu lost, %llu in the kernel, %llu perf events\n",
			ev, (unsigned long long)st.samples,
			(unsigned long long)st.lost,
			(unsigned long long)st.kernel_samples,
			(unsigned long long)st.threads);
	}
}

int tr_profile_print(struct tr_profile *p, FILE *out, FILE *err,
		     int verbose)
{
	struct maptap_profile_stats st;
	int rc;

	print_probe_stats(p, err, verbose);
	if (!p->prof)
		return 0;
	maptap_profile_get_stats(p->prof, &st);
	if (verbose)
		fprintf(err, "maptap: profile: %llu samples read, %llu lost "
			"(%llu lost records), %llu in the kernel%s, %llu "
			"without user registers, %llu stacks cut short, "
			"%llu perf events (%llu could not be opened)\n",
			(unsigned long long)st.samples,
			(unsigned long long)st.lost,
			(unsigned long long)st.lost_records,
			(unsigned long long)st.kernel_samples,
			st.kernel_excluded ? " (excluded)" : "",
			(unsigned long long)p->no_regs,
			(unsigned long long)p->truncated,
			(unsigned long long)st.threads,
			(unsigned long long)st.open_fails);
	if (p->oom)
		fputs("maptap: --profile: out of memory; the profile is "
		      "incomplete\n", err);
	if (p->cfg.format != TR_PROFILE_TOP) {
		rc = p->cfg.format == TR_PROFILE_SVG ?
		     print_svg(p, out, &st) : print_folded(p, out);
		if (st.lost)
			fprintf(err, "maptap: profile: %llu samples lost\n",
				(unsigned long long)st.lost);
	} else {
		print_header(p, out, &st);
		rc = print_top(p, out);
	}
	if (rc == 0 && fflush(out))
		rc = -(errno ? errno : EIO);
	return rc;
}
