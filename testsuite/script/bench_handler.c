/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_handler.c -- time one probe handler that updates an associative
 * array and a statistic, as a probe on every address-space event would.
 *
 *   bench-handler [EVENTS [KEYS]]
 *
 * Runs the handler EVENTS times (default 2,000,000) with KEYS distinct
 * array keys (default 1,000; MAXMAPENTRIES is raised to fit) and prints
 * the median of 5 runs in CPU ns per event.  The handler goes through the
 * whole interpreter: tr_interp_run_probe(), as pass 5 calls it.
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

int main(int argc, char **argv)
{
	long events = argc > 1 ? atol(argv[1]) : 2000000;
	long keys = argc > 2 ? atol(argv[2]) : 1000;
	char text[512], maxent[32];
	struct tr_define def = { "MAXMAPENTRIES", maxent };
	struct tr_options o;
	struct tr_session s;
	struct src_file f = { .name = "<bench>" };
	struct tr_file *tf;
	struct interp I;
	double t[5];
	int r;
	long i;

	snprintf(text, sizeof(text), script_fmt, keys);
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
		return 1;
	if (tr_interp_init(&I, &s, stdout) < 0)
		return 1;
	for (r = 0; r < 5; r++) {
		double t0 = now();

		for (i = 0; i < events; i++)
			tr_interp_run_probe(&I, s.elab->probes.v[0]);
		t[r] = (now() - t0) / (double)events;
	}
	qsort(t, 5, sizeof(t[0]), cmp_double);
	printf("handler: array += , string store, stat <<<, %ld keys: "
	       "median %.0f ns/event (min %.0f, max %.0f)\n", keys, t[2],
	       t[0], t[4]);
	tr_interp_fini(&I);
	tr_session_fini(&s);
	return I.errors ? 1 : 0;
}
