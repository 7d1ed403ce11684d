/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.h -- maptap --profile: sampled stacks of the traced threads,
 * named against the module layer as it was at each sample, counted by
 * function and by whole stack, printed when tracing ends (profile.c,
 * docs/profile.md).
 *
 * target.c owns one when --profile is given: it tells it of every
 * thread the session reports, drains it before every event reaches
 * the module layer (so samples are named in time order with the
 * address-space history), every PROFILE_DRAIN_NS while the target
 * runs, and once at the end.
 *
 * Not thread-safe: the tracer thread only.
 */
#ifndef TR_PROFILE_H
#define TR_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <maptap/profile.h>

struct tr_target;
struct tr_profile;

/* How often target.c drains the rings while the target runs by
 * default: well within what a ring holds (MAPTAP_PROFILE_PAGES). */
#define TR_PROFILE_DRAIN_NS 10000000LL

enum tr_profile_format {
	TR_PROFILE_TOP = 0,	/* a table of functions by samples */
	TR_PROFILE_FOLDED,	/* folded stacks: "main;f;g 123" */
	TR_PROFILE_SVG,		/* those as a flame graph (flame_svg.h) */
};

/* Settings of --profile and its -D names (maptap(1)). */
struct tr_profile_cfg {
	bool aggregate;		/* --profile: count and print */
	enum tr_profile_format format;
	struct maptap_profile_opts popts;
	unsigned top;		/* rows of the table */
	unsigned max_frames;	/* frames per stack */
	int64_t drain_ns;	/* target.c drains this often, ns */
};

struct tr_options;

/* The settings O asks for: --profile's format, and the -D names
 * PROFILE_FREQ (samples per second of CPU time), PROFILE_PERIOD (ns of
 * CPU time between samples; instead of a frequency), PROFILE_STACK
 * (bytes of stack copied per sample), PROFILE_PAGES (ring pages per
 * thread, a power of two), PROFILE_TOP (rows of the table),
 * PROFILE_DRAIN_MS (how often the rings are read while the target runs,
 * besides before each address-space event) and MAXBACKTRACE (frames per
 * stack).  Returns 0, or -1 after printing
 * which value is bad to ERR. */
int tr_profile_cfg_of(const struct tr_options *o,
		      struct tr_profile_cfg *cfg, FILE *err);

/* Make a profiler for target T (borrowed: its module layer names the
 * samples, its unwinder walks them): with CFG->aggregate, --profile's
 * event; the script's sampling probes are added with
 * tr_profile_add_probe().  Returns 0, or -1 after printing why to
 * ERR. */
int tr_profile_new(struct tr_target *t, const struct tr_profile_cfg *cfg,
		   FILE *err, struct tr_profile **out);
void tr_profile_free(struct tr_profile *p);

struct tr_dprobe;

/* Sample for the PK_PERF probe DP too: probes of one event, period and
 * frequency share one perf event per thread.  Returns 0, or -1 after
 * printing why (the machine cannot count the event). */
int tr_profile_add_probe(struct tr_profile *p, const struct tr_dprobe *dp);

/* Receives each sample of the script's probes V[0..N), while the rings
 * are drained (so before the address-space event that follows it). */
typedef void (*tr_profile_fire_fn)(const struct maptap_profile_sample *s,
				   const struct tr_dprobe *const *v, int n,
				   void *arg);

void tr_profile_set_fire(struct tr_profile *p, tr_profile_fire_fn fn,
			 void *arg);

/* Sample thread TID of PID from now on; ALL_THREADS: every thread
 * /proc/PID/task lists (an attach).  A failure is said once on the
 * error stream and counted; the run goes on. */
void tr_profile_thread(struct tr_profile *p, pid_t pid, pid_t tid,
		       bool all_threads);

/* Stop sampling TID, or with TID 0 every thread of PID, after reading
 * what its ring holds. */
void tr_profile_stop(struct tr_profile *p, pid_t pid, pid_t tid);

/* How often to drain while the target runs (ns). */
int64_t tr_profile_drain_ns(const struct tr_profile *p);

/* Read and name every sample the rings hold. */
void tr_profile_drain(struct tr_profile *p);

/* Print the profile to OUT in the configured format; -v counters to
 * ERR when VERBOSE.  Returns 0 or -errno of the write. */
int tr_profile_print(struct tr_profile *p, FILE *out, FILE *err,
		     int verbose);

#endif
