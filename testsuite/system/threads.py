#!/usr/bin/env python3
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
NTHREADS, ROUNDS = 4, 40

prog = t.build("t_threads")
maps = os.path.join(t.tmpdir(), "threads.maps")
r = t.maptap(["-c", "%s %s %d %d" % (prog, maps, NTHREADS, ROUNDS)])
t.eq(r.status, 0, "threads: exit status 0")
t.no_verify_diffs(r, "threads")
pid = t.first_pid(r)
rep = t.reports(r.stdout)
areas = {k: v for k, v in rep.items() if k.startswith("area-")}
t.eq(len(areas), NTHREADS * ROUNDS, "threads: every area reported")
tids = {int(k.split("-")[1]) for k in areas}
t.eq(len(tids), NTHREADS, "threads: %d distinct threads" % NTHREADS)
clones = {e["child"] for e in r.find("clone", pid=pid)}
t.ok(tids <= clones, "threads: a clone event for each thread")

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
if not t.ok(not wrong, "threads: each area has exactly its thread's three events"):
    for key, got, want in wrong[:5]:
        t.diag("%s: got %r" % (key, got))
        t.diag("%s: want %r" % (key, want))
t.eq([e for e in r.find("replace", pid=pid) if e["tid"] in tids], [],
     "threads: no replace event by a worker")
t.eq([e for e in r.range_events(pid)
      if not e["snapshot"] and e["syscall"] is None], [],
     "threads: no resync (no range event without a syscall)")
if os.path.exists(maps):
    t.check_replay(r, pid, maps, "threads: log replays into the final maps")
else:
    t.ok(False, "threads: the target saved its maps")

# exec from a non-leader thread: the exec event is the leader's, with the
# exec'ing thread as former_tid (execve(2): it takes the leader's tid).
prog = t.build("t_thread_exec")
maps = os.path.join(t.tmpdir(), "thread-exec.maps")
r = t.maptap(["-c", "%s %s" % (prog, maps)])
t.eq(r.status, 5, "thread exec: the new image's exit status")
t.no_verify_diffs(r, "thread exec")
pid = t.first_pid(r)
rep = t.reports(r.stdout)
execer = rep.get("execer")
execs = r.find("exec", pid=pid)
t.eq([(e["tid"], e["former_tid"]) for e in execs[1:]], [(pid, execer)],
     "thread exec: exec event under the leader's tid, former_tid the thread")
t.ok(execer in {e["child"] for e in r.find("clone", pid=pid)},
     "thread exec: the thread's clone event")
t.eq((rep.get("leader"), rep.get("leader-tid")), (pid, pid),
     "thread exec: the new image runs as the leader")
lo, hi = rep.get("after", (0, 0))
t.eq(t.history(r.events, lo, hi, pid), [("map", (lo, hi), "mmap", pid)],
     "thread exec: the new image's mmap, by the leader")
if os.path.exists(maps):
    t.check_replay(r, pid, maps, "thread exec: log replays into the final maps")
else:
    t.ok(False, "thread exec: the target saved its maps")
t.done()
