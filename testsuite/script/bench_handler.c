/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_handler.c -- time probe handlers through the whole interpreter.
 *
 *   bench-handler [EVENTS [KEYS]]
 *
 * Two handlers.  The first updates an associative array and a statistic,
 * as a probe on every address-space event would: it runs EVENTS times
 * (default 2,000,000) with KEYS distinct array keys (default 1,000;
 * MAXMAPENTRIES is raised to fit).  The second is the interpreter's own
 * work: a loop of compound assignments, comparisons and logic on scalars
 * (no array, no runtime call), 100 iterations a run, EVENTS / 100 runs.
 * Each prints the median of 5 runs in CPU ns per event (per iteration for
 * the loop).  Both go through tr_interp_run_probe(), as pass 5 calls it.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interp.h"

static const char script_fmt[] =
	"global counts, lat, names, n\n"
	"probe timer.s(1000) {\n"
	"	n++\n"
	"	counts[n %% %ld] += 1\n"
	"	names[n %% 16] = \"event\"\n"
	"	lat <<< n & 1023\n"
	"}\n";

#define LOOP_ITERS 100

static const char loop_script[] =
	"global x, y, n\n"
	"probe timer.s(1000) {\n"
	"	for (i = 0; i < 100; i++) {\n"
	"		x += i\n"
	"		x ^= i << 2\n"
	"		y -= 1\n"
	"		if (x > y && i != 7)\n"
	"			y = x\n"
	"		else if (x <= y || i >= 50)\n"
	"			n++\n"
	"		x %= 1000003\n"
	"	}\n"
	"}\n";

/* CPU time, not wall time: the machines this runs on are shared, and
 * time spent runnable but not running is not the handler's. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Parse, elaborate and run TEXT's first probe EVENTS times, 5 rounds:
 * T gets each round's CPU ns per event divided by PER, sorted.  Returns
 * 0, or -1 when the script does not compile or a run failed. */
static int bench(const char *text, long events, long keys, long per,
		 double t[5])
{
	char maxent[32];
	struct tr_define def = { "MAXMAPENTRIES", maxent };
	struct tr_options o;
	struct tr_session s;
	struct src_file f = { .name = "<bench>" };
	struct tr_file *tf;
	struct interp I;
	int r;
	long i;

	snprintf(maxent, sizeof(maxent), "%ld", keys + 16);
	memset(&o, 0, sizeof(o));
	o.last_pass = 5;
	o.defines = &def;
	o.n_defines = 1;
	tr_session_init(&s, &o);
	tr_interp_builtins(&s);
	s.limits.maxmapentries = keys + 16;
	f.text = text;
	f.len = strlen(text);
	tf = tr_parse_file(&s, &f);
	if (s.parse_errors || tr_elaborate(&s, tf) < 0)
		return -1;
	if (tr_interp_init(&I, &s, stdout) < 0)
		return -1;
	for (r = 0; r < 5; r++) {
		double t0 = now();

		for (i = 0; i < events; i++)
			tr_interp_run_probe(&I, s.elab->probes.v[0]);
		t[r] = (now() - t0) / (double)events / (double)per;
	}
	qsort(t, 5, sizeof(t[0]), cmp_double);
	tr_interp_fini(&I);
	tr_session_fini(&s);
	return I.errors ? -1 : 0;
}

int main(int argc, char **argv)
{
	long events = argc > 1 ? atol(argv[1]) : 2000000;
	long keys = argc > 2 ? atol(argv[2]) : 1000;
	char text[512];
	double t[5];

	snprintf(text, sizeof(text), script_fmt, keys);
	if (bench(text, events, keys, 1, t) < 0)
		return 1;
	printf("handler: array += , string store, stat <<<, %ld keys: "
	       "median %.0f ns/event (min %.0f, max %.0f)\n", keys, t[2],
	       t[0], t[4]);
	if (bench(loop_script, events > LOOP_ITERS ? events / LOOP_ITERS : 1,
		  0, LOOP_ITERS, t) < 0)
		return 1;
	printf("loop: +=, ^=, -=, %%=, <<, <, >, <=, >=, !=, &&, ||, ++: "
	       "median %.1f ns/iteration (min %.1f, max %.1f)\n", t[2],
	       t[0], t[4]);
	return 0;
}
