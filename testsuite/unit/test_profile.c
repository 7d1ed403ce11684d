/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_profile.c -- include/maptap/profile.h on the test's own thread:
 * bad options, the events' names, a sampled spin whose samples carry
 * this thread's ids, CLOCK_MONOTONIC times inside the spin, user
 * registers and a copy of the top of this thread's stack; a closed
 * event gives nothing more; a hardware counter is either there or
 * refused with a message naming it.
 */
#include <config.h>

#include <maptap/profile.h>

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <sys/user.h>
#include <time.h>
#include <unistd.h>

#include "../lib/tap.h"

static volatile uint64_t sink;

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

struct seen {
	long n, bad_ids, bad_time, no_regs, bad_stack, user;
	uint64_t t0, t1, stack_lo, stack_hi, last_time;
	bool out_of_order;
};

static int on_sample(const struct maptap_profile_sample *s, void *arg)
{
	struct seen *v = arg;

	v->n++;
	if (s->pid != getpid() || s->tid != gettid())
		v->bad_ids++;
	if (s->time_ns < v->t0 || s->time_ns > v->t1)
		v->bad_time++;
	if (s->time_ns < v->last_time)
		v->out_of_order = true;
	v->last_time = s->time_ns;
	if (!s->has_regs) {
		v->no_regs++;
		return 0;
	}
	if (s->user_mode) {
		v->user++;
		/* the stack copy starts at the sampled %rsp, in this
		 * thread's stack, and holds what was asked or less */
		if (s->regs->rip != s->ip || !s->stack ||
		    s->stack_len == 0 || s->stack_len > 4096 ||
		    s->regs->rsp < v->stack_lo || s->regs->rsp > v->stack_hi)
			v->bad_stack++;
	}
	return 0;
}

static void options(void)
{
	struct maptap_profile_opts o;
	struct maptap_profiler *p = NULL;

	memset(&o, 0, sizeof(o));
	o.default_event = true;
	o.freq = 100;
	o.period = 1000;
	tap_int_eq(maptap_profiler_new(&o, &p), -EINVAL,
		   "freq and period together: -EINVAL");
	o.period = 0;
	o.stack_bytes = 12;
	tap_int_eq(maptap_profiler_new(&o, &p), -EINVAL,
		   "a stack size not a multiple of 8: -EINVAL");
	o.stack_bytes = 0;
	o.pages = 3;
	tap_int_eq(maptap_profiler_new(&o, &p), -EINVAL,
		   "ring pages not a power of two: -EINVAL");
	tap_int_eq(maptap_profiler_new(NULL, &p), 0, "defaults: created");
	maptap_profiler_free(p);
}

static void names(void)
{
	char b[64];

	tap_str_eq(maptap_profile_event_name(PERF_TYPE_SOFTWARE,
		   PERF_COUNT_SW_CPU_CLOCK, b, sizeof(b)), "cpu-clock",
		   "name: cpu-clock");
	tap_str_eq(maptap_profile_event_name(PERF_TYPE_SOFTWARE,
		   PERF_COUNT_SW_TASK_CLOCK, b, sizeof(b)), "task-clock",
		   "name: task-clock");
	tap_str_eq(maptap_profile_event_name(PERF_TYPE_HARDWARE,
		   PERF_COUNT_HW_CPU_CYCLES, b, sizeof(b)), "cycles",
		   "name: cycles");
	tap_str_eq(maptap_profile_event_name(7, 9, b, sizeof(b)),
		   "type 7 config 9", "name: others by number");
}

static void spin(void)
{
	struct maptap_profile_opts o;
	struct maptap_profiler *p;
	struct maptap_profile_stats st;
	struct seen v;
	char here;
	uint64_t i, cpu0;
	long got;
	int rc;

	memset(&o, 0, sizeof(o));
	o.default_event = true;
	o.freq = 1000;
	o.stack_bytes = 4096;
	memset(&v, 0, sizeof(v));
	/* this frame's stack: the sampled %rsp is below &here, within
	 * the ring's reach of it (spin() calls nothing deep) */
	v.stack_hi = (uintptr_t)&here + 4096;
	v.stack_lo = (uintptr_t)&here - 65536;
	if (maptap_profiler_new(&o, &p)) {
		tap_ok(false, "profiler created");
		return;
	}
	v.t0 = now_ns(CLOCK_MONOTONIC);
	rc = maptap_profile_open(p, getpid(), gettid());
	if (rc) {
		tap_skip("perf_event_open refused: %s",
			 maptap_profile_errmsg(p));
		maptap_profiler_free(p);
		return;
	}
	tap_int_eq(maptap_profile_open(p, getpid(), gettid()), 0,
		   "opening a sampled thread again: 0, nothing new");
	/* 200 ms of CPU: about 200 samples */
	cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	while (now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0 < 200000000)
		for (i = 0; i < 100000; i++)
			sink += i;
	v.t1 = now_ns(CLOCK_MONOTONIC);
	got = maptap_profile_drain(p, on_sample, &v);
	tap_ok(got == v.n && v.n >= 50,
	       "a 200 ms CPU spin gives samples (%ld)", v.n);
	tap_int_eq(v.bad_ids, 0, "every sample has this pid and tid");
	tap_int_eq(v.bad_time, 0, "every sample's time is CLOCK_MONOTONIC, "
		   "inside the spin");
	tap_ok(!v.out_of_order, "a thread's samples come in time order");
	tap_int_eq(v.no_regs, 0, "every sample has user registers");
	tap_ok(v.user >= v.n / 2, "most samples in user mode (%ld of %ld)",
	       v.user, v.n);
	tap_int_eq(v.bad_stack, 0, "user samples: rip == ip, a stack copy "
		   "of at most 4096 bytes from an %rsp in this stack");
	maptap_profile_get_stats(p, &st);
	tap_int_eq((long long)st.samples, v.n, "stats count the samples");
	tap_int_eq((long long)st.threads, 1, "stats: one event");
	maptap_profile_close(p, gettid());
	cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	while (now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0 < 20000000)
		sink++;
	v.n = 0;
	tap_int_eq(maptap_profile_drain(p, on_sample, &v), 0,
		   "a closed event gives no more samples");
	maptap_profiler_free(p);
}

static void hardware(void)
{
	struct maptap_profiler *p;
	int rc;

	if (maptap_profiler_new(NULL, &p)) {
		tap_ok(false, "profiler created");
		return;
	}
	rc = maptap_profile_probe(p, PERF_TYPE_HARDWARE,
				  PERF_COUNT_HW_CPU_CYCLES);
	if (rc == 0)
		tap_ok(true, "this machine counts cycles");
	else
		tap_ok(strstr(maptap_profile_errmsg(p), "cycles") != NULL,
		       "no cycles counter (%d): the message names it: %s",
		       rc, maptap_profile_errmsg(p));
	maptap_profiler_free(p);
}

int main(void)
{
	options();
	names();
	spin();
	hardware();
	return tap_done();
}
