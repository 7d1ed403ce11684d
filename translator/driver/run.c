/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run.c -- translator_run(): the passes, in stap's order and with stap's
 * messages ("Pass 1: parse failed.  [man error::pass1]").
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <maptap/script_value.h>

#include "driver.h"
#include "interp.h"
#include "listing.h"

struct pass_clock {
	struct timespec real;
	struct rusage ru;
};

static void clock_start(struct pass_clock *c)
{
	clock_gettime(CLOCK_MONOTONIC, &c->real);
	getrusage(RUSAGE_SELF, &c->ru);
}

static long tv_ms(const struct timeval *a, const struct timeval *b)
{
	return (b->tv_sec - a->tv_sec) * 1000 +
	       (b->tv_usec - a->tv_usec) / 1000;
}

/* stap -v: "Pass 1: parsed user script and 3 library scripts in
 * 0usr/0sys/1real ms." */
static void clock_report(struct tr_session *s, const struct pass_clock *c,
			 const char *what)
{
	struct pass_clock now;
	long real;

	if (!s->opts || s->opts->verbose < 1)
		return;
	clock_start(&now);
	real = (now.real.tv_sec - c->real.tv_sec) * 1000 +
	       (now.real.tv_nsec - c->real.tv_nsec) / 1000000;
	fprintf(s->err, "%s in %ldusr/%ldsys/%ldreal ms.\n", what,
		tv_ms(&c->ru.ru_utime, &now.ru.ru_utime),
		tv_ms(&c->ru.ru_stime, &now.ru.ru_stime), real);
}

static int apply_define(struct tr_session *s, const struct tr_define *d)
{
	static const struct {
		const char *name;
		size_t off;
		int64_t min;
	} lim[] = {
		{ "MAXSTRINGLEN", offsetof(struct tr_limits, maxstringlen), 2 },
		{ "MAXACTION", offsetof(struct tr_limits, maxaction), 1 },
		{ "MAXMAPENTRIES", offsetof(struct tr_limits, maxmapentries), 1 },
		{ "MAXERRORS", offsetof(struct tr_limits, maxerrors), 0 },
		{ "MAXNESTING", offsetof(struct tr_limits, maxnesting), 0 },
		{ "MAXSKIPPED", offsetof(struct tr_limits, maxskipped), 0 },
		{ "MAXBACKTRACE", offsetof(struct tr_limits, maxbacktrace), 1 },
	};
	size_t i;
	char *end;
	long long v;

	for (i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
		if (strcmp(lim[i].name, d->name))
			continue;
		errno = 0;
		v = d->value ? strtoll(d->value, &end, 0) : -1;
		if (!d->value || errno || *end || v < lim[i].min) {
			fprintf(s->err, "maptap: invalid value for -D %s\n",
				d->name);
			return -1;
		}
		*(int64_t *)((char *)&s->limits + lim[i].off) = v;
		return 0;
	}
	return 0;	/* stap hands other -D names to the C compiler */
}

static struct src_file *script_source(struct tr_session *s)
{
	const struct tr_options *o = s->opts;
	struct src_file *f;

	if (o->script_text) {
		f = arena_alloc(&s->arena, sizeof(*f));
		f->name = "<input>";
		f->text = arena_strdup(&s->arena, o->script_text);
		f->len = strlen(f->text);
		return f;
	}
	f = tr_read_file(s, o->script_file, false);
	if (!f)
		fprintf(s->err, "maptap: cannot read script %s: %s\n",
			o->script_file, strerror(errno));
	return f;
}

static int run_pass5(struct tr_session *s)
{
	struct tr_target none = { 0 };	/* no -c/-x: no process context */
	struct interp I;
	struct pass_clock c;
	int rc;

	clock_start(&c);
	if (tr_interp_init(&I, s, s->out) < 0) {
		tr_interp_fini(&I);
		fputs("Pass 5: run failed.  [man error::pass5]\n", s->err);
		return 1;
	}
	I.tgt = &none;
	rc = tr_interp_run(&I);
	/* A nonzero status without script errors is -c's command's own,
	 * or a target refused with its one-line message (target.c). */
	if (I.errors)
		fputs("Pass 5: run failed.  [man error::pass5]\n", s->err);
	else
		clock_report(s, &c, "Pass 5: run completed");
	tr_interp_fini(&I);
	return rc;
}

static int run_passes(struct tr_session *s)
{
	const struct tr_options *o = s->opts;
	struct pass_clock c;
	struct src_file *src;
	struct tr_file *f;
	const char *what;

	clock_start(&c);
	tr_load_macro_libs(s);
	src = script_source(s);
	if (!src)
		return 1;
	f = tr_parse_file(s, src);
	if (s->parse_errors) {
		fprintf(s->err, "%d parse error%s.\n", s->parse_errors,
			s->parse_errors > 1 ? "s" : "");
		fputs("Pass 1: parse failed.  [man error::pass1]\n", s->err);
		return 1;
	}
	clock_report(s, &c, "Pass 1: parsed user script");
	if (o->last_pass == 1) {
		fputs("# parse tree dump\n", s->out);
		tr_dump_file(s, s->out, f);
		return 0;
	}
	clock_start(&c);
	if (tr_elaborate(s, f) < 0) {
		if (s->parse_errors)
			fprintf(s->err, "%d parse error%s.\n", s->parse_errors,
				s->parse_errors > 1 ? "s" : "");
		fputs("Pass 2: analysis failed.  [man error::pass2]\n", s->err);
		return 1;
	}
	what = arena_printf(&s->arena, "Pass 2: analyzed script: %d "
			    "probe(s), %d function(s), %d global(s) using "
			    "%d library script(s)", s->elab->probes.n,
			    s->elab->functions.n, s->elab->globals.n,
			    s->tapsets.n);
	clock_report(s, &c, what);
	if (o->listing)
		return tr_list_probes(s, s->out, o->listing == 2) > 0 ? 0 : 1;
	if (o->last_pass == 2) {
		tr_dump_elab(s, s->out);
		return 0;
	}
	if (o->last_pass == 3) {
		tr_dump_slots(s, s->out);
		return 0;
	}
	if (o->last_pass < 5)
		return 0;	/* no pass 4: nothing is compiled to C */
	return run_pass5(s);
}

/* The output (the -o file, else stdout for a script's output and
 * stderr for maptap's own: OWN_OUTPUT) and stderr as streams that wait
 * for a slow reader whatever the command does to them (outstream.c).
 * Output on a terminal or on stderr is line-buffered, so that it keeps
 * its place among the diagnostics. */
static int open_streams(struct tr_session *s, const char *path,
			bool own_output)
{
	int fd = own_output ? STDERR_FILENO : STDOUT_FILENO;
	bool own = false;

	if (path && !strcmp(path, "-")) {
		fd = STDOUT_FILENO;	/* -o -: stdout, whatever it holds */
	} else if (path) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (fd < 0) {
			fprintf(stderr, "maptap: cannot open %s: %s\n", path,
				strerror(errno));
			return -1;
		}
		own = true;
	}
	s->out_fd = fd;
	s->out = tr_fd_stream(fd, own, isatty(fd) == 1 ||
			      fd == STDERR_FILENO ? _IOLBF : _IOFBF);
	s->err = tr_fd_stream(STDERR_FILENO, false, _IONBF);
	if (s->out && s->err)
		return 0;
	fputs("maptap: out of memory\n", stderr);
	if (s->out)
		fclose(s->out);
	else if (own)
		close(fd);
	if (s->err)
		fclose(s->err);
	return -1;
}

int translator_run(const struct tr_options *opts)
{
	struct tr_session s;
	int i, rc;

	tr_session_init(&s, opts);
	tr_interp_builtins(&s);
	for (i = 0; i < opts->n_defines; i++)
		if (apply_define(&s, &opts->defines[i]) < 0) {
			tr_session_fini(&s);
			return 1;
		}
	if (open_streams(&s, opts->output_file, opts->own_output) < 0) {
		tr_session_fini(&s);
		return 1;
	}
	rc = run_passes(&s);
	fclose(s.out);
	fclose(s.err);
	tr_session_fini(&s);
	return rc;
}
