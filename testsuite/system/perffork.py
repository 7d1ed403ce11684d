#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""perffork.py -- perf mode (docs/tracer.md, "Event sources"): the fork
children of a process whose other threads map, unmap, mprotect and
mark pages MADV_DONTFORK all the while.  Each child's log, replayed,
must give the maps the child wrote itself before it exited, under -c
and -x, with the system calls' records from the BPF programs and from
tracepoint events (MAPTAP_PERF_BPF=0).

Skipped, with the reason, where perf mode cannot be had.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t

t.perf_or_skip_all()
t.EVENTS = "perf"	# attach_run waits for perf's attach

# A child has the mm as dup_mmap() copied it, under the mm's write lock
# (kernel/fork.c); its FORK record and its creator's task_newtask come
# after, at the end of copy_process().  The child's snapshot was the
# parent's model when task_newtask was read: a sibling's munmap, mmap,
# mprotect or madvise(MADV_DONTFORK) that took the lock after the copy
# and whose records came before was in it, though the child never had
# it, and one that took the lock before the copy and ended after was
# not (5-20 children in 150 a page off, with the BPF programs and
# without them).  Every child's log is checked against its own maps.
forkrace = t.build("t_forkrace")
NFORKS = 150


def forkrace_run(how, tp):
    """t_forkrace under maptap HOW (-c or -x), the system calls' records
    from tracepoint events if TP: (Run, parent pid, target status)."""
    maps = os.path.join(t.tmpdir(), "forkrace%s%s.maps" %
                        (how, "-tp" if tp else ""))
    with t.env_set("MAPTAP_PERF_BPF", "0" if tp else None):
        if how == "-x":
            r, parent, status = t.attach_run([forkrace, str(NFORKS), maps,
                                              "wait"])
        else:
            r = t.maptap(["--events=perf", "-c",
                          "%s %d %s" % (forkrace, NFORKS, maps)])
            parent, status = t.first_pid(r), 0
    return r, parent, status, maps


for how in ("-c", "-x"):
    for tp in (False, True):
        name = "forks beside mapping threads (%s%s)" % (
            how, ", tracepoint events" if tp else "")
        r, parent, status, maps = forkrace_run(how, tp)
        t.eq((status, r.status), (0, 0), name + ": exit status 0")
        t.no_verify_diffs(r, name)
        kids = [e["child"] for e in r.find("fork", pid=parent)]
        t.eq(len(kids), NFORKS, name + ": every fork logged")
        bad = []
        for pid in kids:
            own = "%s.%d" % (maps, pid)
            if not os.path.exists(own):
                bad.append((pid, "wrote no maps"))
                continue
            diff = t.replay_diffs(r, pid, own)
            if diff:
                bad.append((pid, diff[0]))
        if not t.ok(not bad, name + ": each child's log replays into its "
                    "own maps (%d of %d do not)" % (len(bad), len(kids))):
            for pid, why in bad[:8]:
                t.diag("child %d: %s" % (pid, why))
        t.check_replay(r, parent, maps, name + ": the parent's log "
                       "replays into its final maps")

t.done()
