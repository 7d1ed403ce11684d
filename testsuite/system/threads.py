#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""threads.py -- threads mapping concurrently, and exec from a thread
that is not the leader.

Concurrent threads: every event in a thread's area is made by that
thread's call (its tid, the syscall it made), there is no replace (an
mmap without MAP_FIXED never replaces) and no resync (no range event with
a null syscall), no verify difference, and the log replays into the
final maps.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t

PG = 4096
# MT_THREADS and MT_ROUNDS raise the load (docs/tracer.md).
NTHREADS = int(os.environ.get("MT_THREADS", 4))
ROUNDS = int(os.environ.get("MT_ROUNDS", 40))

prog = t.build("t_threads")


def check_threads(mode):
    name = "threads (%s)" % mode
    maps = os.path.join(t.tmpdir(), "threads-%s.maps" % mode.strip("-"))
    args = [maps, str(NTHREADS), str(ROUNDS)]
    if mode == "-x":
        r, pid, status = t.attach_run([prog] + args + ["wait"])
        t.eq((status, r.status), (0, 0), name + ": exit status 0, maptap 0")
    else:
        opts = [mode] if mode.startswith("--") else []
        r = t.maptap(opts + ["-c", " ".join([prog] + args)])
        pid = t.first_pid(r)
        t.eq(r.status, 0, name + ": exit status 0")
    t.no_verify_diffs(r, name)
    rep = t.reports(r.stdout)
    areas = {k: v for k, v in rep.items() if k.startswith("area-")}
    t.eq(len(areas), NTHREADS * ROUNDS, name + ": every area reported")
    tids = {int(k.split("-")[1]) for k in areas}
    t.eq(len(tids), NTHREADS, name + ": %d distinct threads" % NTHREADS)
    if mode != "-x":
        clones = {e["child"] for e in r.find("clone", pid=pid)}
        t.ok(tids <= clones, name + ": a clone event for each thread")
    wrong = []
    for key, (lo, hi) in sorted(areas.items()):
        tid = int(key.split("-")[1])
        # Events are cut to what changed, so a neighbour's area merged
        # with this one adds nothing here: what touches it is ours.
        got = t.history(r.events, lo, hi, pid)
        want = [("map", (lo, hi), "mmap", tid),
                ("protect", (lo + 2 * PG, lo + 4 * PG), "mprotect", tid),
                ("unmap", (lo + 5 * PG, lo + 7 * PG), "munmap", tid)]
        if got != want:
            wrong.append((key, got, want))
    if not t.ok(not wrong,
                name + ": each area has exactly its thread's three events"):
        for key, got, want in wrong[:5]:
            t.diag("%s: got %r" % (key, got))
            t.diag("%s: want %r" % (key, want))
    t.eq([e for e in r.find("replace", pid=pid) if e["tid"] in tids], [],
         name + ": no replace event by a worker")
    t.eq([e for e in r.range_events(pid)
          if not e["snapshot"] and e["syscall"] is None], [],
         name + ": no resync (no range event without a syscall)")
    if os.path.exists(maps):
        t.check_replay(r, pid, maps, name + ": log replays into the final maps")
    else:
        t.ok(False, name + ": the target saved its maps")


for mode in ("-c", "--no-seccomp", "-x"):
    check_threads(mode)

# exec from a non-leader thread: the exec event is the leader's, with the
# exec'ing thread as former_tid (execve(2): it takes the leader's tid).
prog = t.build("t_thread_exec")
for mode in ("-c", "-x"):
    name = "thread exec (%s)" % mode
    maps = os.path.join(t.tmpdir(), "thread-exec%s.maps" % mode)
    if mode == "-x":
        r, pid, status = t.attach_run([prog, maps, "wait"])
        t.eq((status, r.status), (5, 0), name + ": exit status 5, maptap 0")
    else:
        r = t.maptap(["-c", "%s %s" % (prog, maps)])
        pid = t.first_pid(r)
        t.eq(r.status, 5, name + ": the new image's exit status")
    t.no_verify_diffs(r, name)
    rep = t.reports(r.stdout)
    execer = rep.get("execer")
    execs = [e for e in r.find("exec", pid=pid) if e["former_tid"] != pid]
    t.eq([(e["tid"], e["former_tid"]) for e in execs], [(pid, execer)],
         name + ": exec event under the leader's tid, former_tid the thread")
    t.ok(execer in {e["child"] for e in r.find("clone", pid=pid)},
         name + ": the thread's clone event")
    t.eq((rep.get("leader"), rep.get("leader-tid")), (pid, pid),
         name + ": the new image runs as the leader")
    lo, hi = rep.get("after", (0, 0))
    t.eq(t.history(r.events, lo, hi, pid), [("map", (lo, hi), "mmap", pid)],
         name + ": the new image's mmap, by the leader")
    if os.path.exists(maps):
        t.check_replay(r, pid, maps, name + ": log replays into the final maps")
    else:
        t.ok(False, name + ": the target saved its maps")
t.done()
