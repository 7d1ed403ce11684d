/* SPDX-License-Identifier: GPL-2.0-or-later */
/* target.h -- pass 5 with traced processes (-c CMD / -x PID): the
 * session and module layer behind I->tgt, and the probes they fire.
 *
 * The order of a run (schedule.c): tr_target_open() (launches -c's
 * command, held before its first instruction, so target() is known in
 * begin probes), init and begin probes, tr_target_attach() (-x: attach
 * after begin, as stap starts probing the target after its begin
 * probes), then tr_target_wait() between timer probes until tracing
 * ends, tr_target_finish(), end probes, tr_target_close().
 *
 * Not thread-safe: the session belongs to the thread that runs the
 * script (maptap/session.h).
 */
#ifndef TR_TARGET_H
#define TR_TARGET_H

#include <stdbool.h>
#include <stdint.h>

struct interp;

/* True when the run has a target (-c or -x). */
bool tr_target_wanted(const struct interp *I);

/* Create the session and the module layer, set I->tgt, and with -c
 * launch the command.  Returns 0, or -1 after printing why. */
int tr_target_open(struct interp *I);

/* -x: attach to the process.  Returns 0, or -1 after printing why.
 * Nothing to do (0) with -c. */
int tr_target_attach(struct interp *I);

/* Trace until CLOCK_MONOTONIC DEADLINE_NS (< 0: no deadline), running
 * the probes of every event, system call and lifetime point on the way.
 * Returns true at the deadline, false when tracing has ended (every
 * traced process gone or detached), also after a signal asked maptap
 * to stop (SIGINT, SIGTERM, SIGHUP: -x detaches, -c passes it on to the
 * command as the default log does). */
bool tr_target_wait(struct interp *I, int64_t deadline_ns);

/* End tracing: after exit() (I->exit_requested) -x detaches and -c's
 * command is killed (it cannot run on without maptap: its seccomp
 * filter); after -T, -c's command gets SIGTERM and -x detaches.  Waits
 * until tracing has ended; probes still fire unless exit() was called.
 * TIMEOUT: -T expired. */
void tr_target_finish(struct interp *I, bool timeout);

/* Free everything tr_target_open() made.  Returns the exit status the
 * target gives the run: with -c the command's (128+N when killed by
 * signal N) unless the script ended it with exit() (then 0); 0 with -x;
 * 1 when tracing failed. */
int tr_target_close(struct interp *I);

#endif
