#!/usr/bin/env python3
"""filters.py -- a target's own seccomp filter acts as it would untraced
(docs/tracer.md, "Other seccomp filters in the target"):

- its SECCOMP_RET_TRACE, with no tracer of its own, fails the call with
  ENOSYS, also under maptap's filter, which traces some of the same calls
  (madvise, mprotect) but not others (getppid);
- a mapping call its SECCOMP_RET_KILL_PROCESS or SECCOMP_RET_TRAP stops
  never ran: no event, although the exit stop of --no-seccomp reads the
  call's number as its return value (the kernel rolls the registers back).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t

prog = t.build("t_filter")
MODES = (["-c"], ["--no-seccomp", "-c"])


def output(text):
    """What the target printed, but the area's address (ASLR)."""
    if isinstance(text, bytes):
        text = text.decode()
    return [l for l in text.splitlines() if not l.startswith("area ")]


def area_history(r, name):
    pid = t.first_pid(r)
    lo, hi = t.reports(r.stdout).get("area", (0, 0))
    if not t.ok(lo < hi, name + ": the target reported its area"):
        return None
    return [e[:3] for e in t.history(r.events, lo, hi, pid)], (lo, hi)


for mode, want_lines in (("trace", ["getppid -1 38", "madvise -1 38",
                                    "mprotect -1 38", "byte 1"]),
                         ("trap", ["munmap 0 0", "byte 2"]),
                         ("kill", [])):
    code, out = t.untraced([prog, mode])
    t.eq(output(out), want_lines,
         "%s untraced: the target's filter acts (check of the test)" % mode)
    for opts in MODES:
        name = "%s %s" % (mode, " ".join(opts))
        maps = os.path.join(t.tmpdir(), "maps-%s-%d" % (mode, len(opts)))
        r = t.maptap(opts + ["%s %s %s" % (prog, mode, maps)])
        t.eq((r.status, output(r.stdout)), (code, output(out)),
             name + ": exit status and output as untraced")
        got = area_history(r, name)
        if got:
            t.eq(got[0], [("map", got[1], "mmap")],
                 name + ": the area's only event is its mmap")
        t.no_verify_diffs(r, name)
        if mode != "kill":
            t.check_replay(r, t.first_pid(r), maps,
                           name + ": log replays into the final maps")

t.done()
