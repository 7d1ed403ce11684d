/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_perf_dedup.c -- perf mode: each record once, however many copies
 * of maptap's events a thread carries (runtime/tracer/perf_dedup.c).
 *
 * The copies as the kernel writes them: a thread made during an attach
 * inherits its creator's events (source A), is then given its own
 * (source B), and each of its records is written once per set into the
 * ring of the CPU it ran on.  Source B's events were opened after A's,
 * so their ids are above all of A's.  Before the fix every copy was
 * applied: two exit events for one thread, one execve as two exec
 * events (a --events=perf -x attach to a thread-churning target, 5 in
 * 25 attaches).
 */
#include <config.h>

#include "../../runtime/tracer/tracer_priv.h"
#include "../lib/tap.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
	struct mt_perf_srcs ss;
	struct mt_perf_dup d, e;
	int a, b, c, i, kept;

	memset(&ss, 0, sizeof(ss));
	a = mt_perf_srcs_add(&ss, 100);	/* the leader's 28 events */
	b = mt_perf_srcs_add(&ss, 160);	/* a thread taken later */
	c = mt_perf_srcs_add(&ss, 140);	/* out of order: sorted in */
	tap_ok(a == 0 && b == 1 && c == 1 && ss.n == 3 &&
	       ss.id_lo[0] == 100 && ss.id_lo[1] == 140 &&
	       ss.id_lo[2] == 160, "sources are kept by first id");
	tap_int_eq(mt_perf_srcs_find(&ss, 99), -1,
		   "an id below every source has none");
	tap_int_eq(mt_perf_srcs_find(&ss, 100), 0, "the first id: source 0");
	tap_int_eq(mt_perf_srcs_find(&ss, 139), 0, "the last of source 0");
	tap_int_eq(mt_perf_srcs_find(&ss, 140), 1, "the first of source 1");
	tap_int_eq(mt_perf_srcs_find(&ss, 1000), 2, "above all: the newest");

	/* One source: every record counts, on any CPU. */
	memset(&d, 0, sizeof(d));
	kept = 0;
	for (i = 0; i < 8; i++)
		kept += mt_perf_dup_keep(&d, 4, i % 4, 0);
	tap_ok(kept == 8 && !d.by_cpu, "one source: all kept, no table");

	/* Inherited copies only (CPU 0 and 1), then its own set is on:
	 * each record twice, its own copy first, as the kernel writes them
	 * (the newer event is first in the context's lists). */
	memset(&d, 0, sizeof(d));
	tap_ok(mt_perf_dup_keep(&d, 2, 0, 0) && mt_perf_dup_keep(&d, 2, 1, 0),
	       "before its own events: the inherited copies count");
	tap_ok(mt_perf_dup_keep(&d, 2, 0, 2), "its own first copy counts");
	tap_ok(!mt_perf_dup_keep(&d, 2, 0, 0),
	       "the inherited copy of the same record is dropped");
	tap_ok(mt_perf_dup_keep(&d, 2, 1, 0),
	       "on a CPU where its own set has written nothing yet, the "
	       "inherited copy counts");
	tap_ok(mt_perf_dup_keep(&d, 2, 1, 2) && !mt_perf_dup_keep(&d, 2, 1, 0),
	       "then that CPU too takes its own copies only");
	tap_ok(mt_perf_dup_keep(&d, 2, 0, 2) && mt_perf_dup_keep(&d, 2, 1, 2),
	       "its own copies go on counting");
	mt_perf_dup_free(&d);

	/* Its own copy seen first (no record before its events were on),
	 * then the inherited copy: dropped on that CPU. */
	memset(&e, 0, sizeof(e));
	tap_ok(mt_perf_dup_keep(&e, 2, 1, 2) && !mt_perf_dup_keep(&e, 2, 1, 0),
	       "an older copy after a newer one on that CPU is dropped");
	tap_ok(mt_perf_dup_keep(&e, 2, 0, 0),
	       "an older copy on a CPU the newer set has not written on "
	       "counts (no record lost)");
	tap_ok(mt_perf_dup_keep(&e, 2, 5, 0) && mt_perf_dup_keep(&e, 2, -1, 0)
	       && mt_perf_dup_keep(&e, 2, 0, -1),
	       "a CPU or source out of range: kept");
	mt_perf_dup_free(&e);

	/* An EXIT record's second copy finds the thread gone. */
	tap_ok(!mt_perf_exit_again(&ss, 4242, 1, 2),
	       "the first exit of a tid counts");
	tap_ok(mt_perf_exit_again(&ss, 4242, 1, 0),
	       "its copy from an older source on that CPU is dropped");
	tap_ok(!mt_perf_exit_again(&ss, 4243, 0, 0) &&
	       !mt_perf_exit_again(&ss, 4243, 0, 0),
	       "a tid that exits twice through one source (an exec from a "
	       "non-leader thread ended the old leader): both count");
	tap_ok(!mt_perf_exit_again(&ss, 4244, 0, 2) &&
	       !mt_perf_exit_again(&ss, 4244, 1, 0),
	       "a copy on another CPU is no copy");
	tap_ok(!mt_perf_exit_again(&ss, 4245, 0, 2) &&
	       mt_perf_exit_again(&ss, 4245, 0, 0) &&
	       !mt_perf_exit_again(&ss, 4245, 0, 2) &&
	       mt_perf_exit_again(&ss, 4245, 0, 0),
	       "two sources, two exits of the tid: each kept once");
	tap_ok(!mt_perf_exit_again(&ss, 4246, 0, 2), "one more exit");
	for (i = 0; i < MT_PERF_EXITED; i++)
		mt_perf_exit_again(&ss, 10000 + i, 0, 2);
	tap_ok(!mt_perf_exit_again(&ss, 4246, 0, 0),
	       "the ring forgets after MT_PERF_EXITED exits");
	mt_perf_srcs_free(&ss);
	return tap_done();
}
