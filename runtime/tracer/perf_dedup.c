/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* perf_dedup.c -- perf mode: every record once, however many copies of
 * maptap's events a thread carries (docs/tracer.md, "A thread with two
 * sets of events").
 *
 * Events are opened with inherit: a task gets a copy of every event its
 * creator has at perf_event_init_task() (kernel/events/core.c), and a
 * record of that task is written once per copy.  A thread that appears
 * during an attach, made by a thread whose events were already open, is
 * found in /proc/PID/task and given its own events too (take_thread());
 * from then on it has two sets, and so has every task it makes.  Each
 * copy reports the id of the event it was inherited from
 * (PERF_SAMPLE_IDENTIFIER: primary_event_id()), an event maptap opened.
 *
 * A source is the events maptap opened on one thread: the ids the kernel
 * gave them are above those of every source opened before (perf_event_id
 * only grows), so the first id tells the source of any id.  The copies of
 * one record are written into the ring of the CPU it happened on, one
 * after the other.  Per thread and CPU the newest source seen wins: a
 * copy from an older source once a newer one was seen there is dropped
 * (the newer set is on from its first record).  A thread whose records
 * came from one source only needs no table.  The first copy of an EXIT
 * record ends the thread, and with it its table: the source and CPU of
 * the last MT_PERF_EXITED EXIT records kept are remembered by tid, and
 * a copy from an older source on that CPU is dropped.  The same tid may
 * exit twice: an exec from a non-leader thread ends the old leader, whose
 * tid the exec'ing thread then takes (de_thread(), fs/exec.c).
 */
#include "tracer_priv.h"

#include <errno.h>
#include <stdlib.h>

int mt_perf_srcs_add(struct mt_perf_srcs *ss, uint64_t id_lo)
{
	size_t i;

	if (ss->n == ss->cap) {
		size_t cap = ss->cap ? 2 * ss->cap : 16;
		uint64_t *v = realloc(ss->id_lo, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ss->id_lo = v;
		ss->cap = cap;
	}
	/* ascending: normally at the end */
	for (i = ss->n; i > 0 && ss->id_lo[i - 1] > id_lo; i--)
		ss->id_lo[i] = ss->id_lo[i - 1];
	ss->id_lo[i] = id_lo;
	ss->n++;
	return (int)i;
}

int mt_perf_srcs_find(const struct mt_perf_srcs *ss, uint64_t id)
{
	size_t lo = 0, hi = ss->n;

	/* the last source whose first id is at most ID */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ss->id_lo[mid] <= id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? (int)lo - 1 : -1;
}

bool mt_perf_exit_again(struct mt_perf_srcs *ss, pid_t tid, int cpu,
			int src)
{
	struct mt_perf_exited *x;
	size_t i;

	for (i = 0; i < MT_PERF_EXITED; i++) {
		x = &ss->exited[i];
		if (x->tid != tid || x->cpu != cpu)
			continue;
		if (src >= 0 && src < x->src) {
			x->tid = 0;	/* one copy per source */
			return true;
		}
		break;	/* a later exit of the tid (an exec from a
			 * non-leader thread ended the old leader) */
	}
	if (i == MT_PERF_EXITED) {
		x = &ss->exited[ss->exited_pos];
		ss->exited_pos = (ss->exited_pos + 1) % MT_PERF_EXITED;
	}
	*x = (struct mt_perf_exited){ tid, cpu, src };
	return false;
}

void mt_perf_srcs_free(struct mt_perf_srcs *ss)
{
	free(ss->id_lo);
	ss->id_lo = NULL;
	ss->n = ss->cap = 0;
}

bool mt_perf_dup_keep(struct mt_perf_dup *d, int ncpu, int cpu, int src)
{
	uint32_t k = (uint32_t)src + 1;
	int c;

	if (src < 0 || cpu < 0 || cpu >= ncpu)
		return true;
	if (!d->by_cpu) {
		if (!d->src0 || d->src0 == k) {
			d->src0 = k;
			if (cpu < 64)
				d->src0_cpus |= 1ULL << cpu;
			return true;
		}
		/* A second source: from now on per CPU.  Where the first
		 * was seen it stands; elsewhere nothing is known yet. */
		d->by_cpu = calloc((size_t)ncpu, sizeof(*d->by_cpu));
		if (!d->by_cpu)
			return true;	/* a copy too many, none lost */
		for (c = 0; c < ncpu && c < 64; c++)
			if (d->src0_cpus >> c & 1)
				d->by_cpu[c] = d->src0;
	}
	if (d->by_cpu[cpu] > k)
		return false;
	d->by_cpu[cpu] = k;
	return true;
}

void mt_perf_dup_free(struct mt_perf_dup *d)
{
	free(d->by_cpu);
	d->by_cpu = NULL;
}
