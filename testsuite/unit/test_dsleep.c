/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_dsleep.c -- when an attach or a detach gives up on a thread that
 * does not stop (runtime/tracer/procfs.c, mt_dsleep_give_up()), on
 * made-up looks: a zombie at once; a vfork parent after
 * MT_VFORK_WAIT_NS in 'D'; any other 'D' after MT_DSLEEP_NS, the count
 * started again while the process's CPU time grows (the attach's
 * patience: threads waiting for the mm's lock behind siblings that
 * populate, on a loaded machine, took more than 2 s: vforkwait.py 5
 * pinned to one busy CPU), but not beyond MT_DSLEEP_MAX_NS.
 */
#include <config.h>

#include "../../runtime/tracer/tracer_priv.h"
#include "../lib/tap.h"

#include <string.h>

#define MS 1000000ULL
#define T0 (1000 * MS)

int main(void)
{
	struct mt_dsleep d;
	uint64_t now, cpu;
	bool gave_up;

	memset(&d, 0, sizeof(d));
	tap_ok(mt_dsleep_give_up(&d, 'Z', false, 0, T0), "a zombie at once");
	tap_ok(!mt_dsleep_give_up(&d, 'S', false, 0, T0) &&
	       !mt_dsleep_give_up(&d, 'R', false, 0, T0) && !d.since,
	       "asleep or running: never");

	/* a vfork parent */
	memset(&d, 0, sizeof(d));
	tap_ok(!mt_dsleep_give_up(&d, 'D', false, 0, T0),
	       "vfork: not at the first look");
	tap_ok(!mt_dsleep_give_up(&d, 'D', true, 0,
				  T0 + MT_VFORK_WAIT_NS - 1),
	       "vfork: not before MT_VFORK_WAIT_NS");
	tap_ok(mt_dsleep_give_up(&d, 'D', true, 0, T0 + MT_VFORK_WAIT_NS),
	       "vfork: after MT_VFORK_WAIT_NS in 'D'");
	tap_ok(!mt_dsleep_give_up(&d, 'S', false, 0, T0 + 2 * MT_DSLEEP_NS) &&
	       !mt_dsleep_give_up(&d, 'D', true, 0, T0 + 2 * MT_DSLEEP_NS),
	       "a look out of 'D' starts the count again");

	/* another 'D', no progress (a detach, or nothing else runs) */
	memset(&d, 0, sizeof(d));
	mt_dsleep_give_up(&d, 'D', false, 7, T0);
	tap_ok(!mt_dsleep_give_up(&d, 'D', false, 7, T0 + MT_DSLEEP_NS - 1),
	       "'D': not before MT_DSLEEP_NS");
	tap_ok(mt_dsleep_give_up(&d, 'D', false, 7, T0 + MT_DSLEEP_NS),
	       "'D' with no progress: after MT_DSLEEP_NS");

	/* another 'D' while the process gets on: every 100 ms a tick */
	memset(&d, 0, sizeof(d));
	gave_up = false;
	cpu = 100;
	for (now = T0; now < T0 + 10 * MT_DSLEEP_NS && !gave_up;
	     now += 100 * MS)
		gave_up = mt_dsleep_give_up(&d, 'D', false, ++cpu, now);
	tap_ok(!gave_up, "'D' while the process gets on: waited 10 x "
	       "MT_DSLEEP_NS");
	tap_ok(!mt_dsleep_give_up(&d, 'D', false, cpu, now) &&
	       mt_dsleep_give_up(&d, 'D', false, cpu, now + MT_DSLEEP_NS),
	       "... then MT_DSLEEP_NS with no progress: given up");

	/* progress for ever: given up MT_DSLEEP_NS after MT_DSLEEP_MAX_NS */
	memset(&d, 0, sizeof(d));
	gave_up = false;
	for (now = T0; now < T0 + 2 * MT_DSLEEP_MAX_NS && !gave_up;
	     now += 100 * MS)
		gave_up = mt_dsleep_give_up(&d, 'D', false, ++cpu, now);
	tap_ok(gave_up && now - T0 > MT_DSLEEP_MAX_NS &&
	       now - T0 <= MT_DSLEEP_MAX_NS + MT_DSLEEP_NS + 200 * MS,
	       "'D' with progress for ever: given up by MT_DSLEEP_MAX_NS + "
	       "MT_DSLEEP_NS");
	return tap_done();
}
