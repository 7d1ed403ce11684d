#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""vforkwait.py -- maptap -x and a parent asleep in vfork(2): it cannot
stop for maptap until its child execs, maybe never.  SIGINT must still
end maptap at once and leave the target untraced (whether the vfork began
before the attach or while traced), and an attach must not wait for that
thread: it is traced from its first stop, with nothing it did missed.
The test knows the vfork is in progress from the child's "ready" line,
never from a sleep; every wait is bounded.

4. A short uninterruptible sleep is not a vfork parent's: a thread that
waited for the mm's lock ('D' too) was taken for one, so that -x of a
mapping storm said "cannot stop now" one attach in three and read the
maps without that thread (a fresh helper's finding).  A parent whose
vfork children live 2 ms, asleep in 'D' nearly always, must stop for
the attach like any thread; so must threads that wait for the mm's
lock behind their siblings' MAP_POPULATE of 256 MiB (5).
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t

prog = t.build("t_vforkwait")


def start_target():
    tp = subprocess.Popen([prog], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
    f = tp.stdout.readline().split()
    return tp, int(f[1]) if len(f) == 2 and f[0] == "pid" else None


def line(tp, text):
    tp.stdin.write(text + "\n")
    tp.stdin.flush()


def start_vfork(tp, pid, name):
    """Let TP vfork; wait until its parent sleeps in vfork()."""
    line(tp, "vfork")
    f = tp.stdout.readline().split()
    t.eq(f, ["ready", str(pid)], name + ": the vfork child runs")
    t.ok(t.wait_until(lambda: t.task_states(pid).get(pid) == "D",
                      what="the parent asleep in vfork"),
         name + ": the parent sleeps in vfork()")


def start_maptap(pid):
    full, jsonfile = t.maptap_argv(["-x", str(pid)])
    mp = subprocess.Popen(full, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    return mp, full, jsonfile


def attached(jsonfile):
    try:
        with open(jsonfile) as f:
            return '"attach"' in f.read()
    except OSError:
        return False


def interrupt(tp, pid, mp, full, jsonfile, name):
    """SIGINT to maptap: it ends within 5 s and lets go of the target,
    which then completes as without maptap."""
    t0 = time.monotonic()
    mp.send_signal(signal.SIGINT)
    r = t.finish(mp, full, jsonfile, timeout=5)
    took = time.monotonic() - t0
    t.ok(took < 5 and r.status == 0,
         "%s: SIGINT ends maptap at once (%.2f s, status %s)"
         % (name, took, r.status))
    t.eq(t.tracer_pid(pid), 0, name + ": the target is not traced afterwards")
    t.ok(len(r.find("detach", pid=pid)) >= 1, name + ": a detach event")
    line(tp, "go")
    out = tp.stdout.read()
    t.eq(tp.wait(timeout=60), 0, name + ": the target completes normally")
    t.ok("done" in out, name + ": the target's parent runs on after the exec")
    return r


# 1. The vfork began before the attach.
tp, pid = start_target()
start_vfork(tp, pid, "vfork before attach")
mp, full, jsonfile = start_maptap(pid)
t.ok(t.wait_until(lambda: attached(jsonfile), what="the attach event"),
     "vfork before attach: the attach completes without that thread")
interrupt(tp, pid, mp, full, jsonfile, "vfork before attach")

# 2. The vfork began while traced: the detach must not wait for it.
tp, pid = start_target()
mp, full, jsonfile = start_maptap(pid)
t.ok(t.wait_until(lambda: attached(jsonfile), what="the attach event"),
     "vfork while traced: attached")
start_vfork(tp, pid, "vfork while traced")
interrupt(tp, pid, mp, full, jsonfile, "vfork while traced")

# 3. Attached while in vfork, traced on: once back from vfork() the
# parent is traced, and its mmap is reported under its own call.
tp, pid = start_target()
start_vfork(tp, pid, "late thread")
mp, full, jsonfile = start_maptap(pid)
t.ok(t.wait_until(lambda: attached(jsonfile), what="the attach event"),
     "late thread: attached")
line(tp, "go")
out = tp.stdout.read()
t.eq(tp.wait(timeout=60), 0, "late thread: the target's status")
r = t.finish(mp, full, jsonfile, timeout=60)
t.eq(r.status, 0, "late thread: maptap exits 0 with the target")
t.no_verify_diffs(r, "late thread")
lo, hi = t.reports(out).get("mapped", (0, 0))
t.eq(t.history(r.events, lo, hi, pid), [("map", (lo, hi), "mmap", pid)],
     "late thread: its mmap after vfork() is one map event of its call")
t.ok("cannot stop now" in r.stderr, "late thread: maptap says why it went on")

# What the attach says of a thread it read the maps without
# (runtime/tracer/attach.c).  The detach has its own line for a thread
# that does not stop within its bound (loop.c, let_go_unstoppable()):
# there the bound is the point -- SIGINT must end maptap at once, and a
# vfork parent stops only when its child has run to its exit, which on
# a loaded machine may take longer than the 50 ms allowed (the one
# "vfork churn" failure seen, in CI, was that line), so it is not
# counted; the thread is let go all the same (checked below).
ATTACH_WITHOUT = "the maps are read without it"


def attaches_all_stop(args, n, name):
    """Start the target with ARGS, attach to it N times (each ended by
    SIGINT): every attach must find every thread stopping (no "cannot
    stop now ... the maps are read without it") and exit 0, and the
    target is untraced afterwards."""
    tp = subprocess.Popen([prog] + args, stdout=subprocess.PIPE, text=True)
    pid = int(tp.stdout.readline().split()[1])
    said = 0
    for i in range(n):
        mp, full, jsonfile = start_maptap(pid)
        t.wait_until(lambda: attached(jsonfile), what="the attach event")
        mp.send_signal(signal.SIGINT)
        r = t.finish(mp, full, jsonfile, timeout=60)
        if ATTACH_WITHOUT in r.stderr or r.status != 0:
            t.diag("attach %d: status %s, stderr %r"
                   % (i, r.status, r.stderr))
            said += 1
        elif "cannot stop now" in r.stderr:
            t.diag("attach %d: a thread let go at the detach without a "
                   "stop: %r" % (i, r.stderr))
    t.eq(said, 0, name)
    t.eq(t.tracer_pid(pid), 0, name.split(":")[0] +
         ": the target is not traced afterwards")
    tp.kill()
    tp.wait(timeout=60)


# 4. Short sleeps in vfork: not a thread that cannot stop.
attaches_all_stop(["churn", "1000000"], 5,
                  "vfork churn: 5 attaches, each with every thread stopped "
                  "(no maps read without one), each exits 0")

# 5. Long lock waits: threads that MAP_POPULATE 256 MiB each wait for the
# mm's lock in 'D' behind the others for 0.1 s and more.  Taken for
# vfork parents after 0.1 s, they were said to be unable to stop in 8 of
# 8 attaches (a second fresh helper's finding); they are in no vfork.
attaches_all_stop(["populate", "4", "256"], 3,
                  "lock waits: 3 attaches to threads populating 256 MiB, "
                  "each with every thread stopped, each exits 0")

t.done()
