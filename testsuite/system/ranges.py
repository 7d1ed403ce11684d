#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""ranges.py -- one address-space change per run, checked to the page:
dlopen/dlclose, MAP_FIXED over a library's text, partial munmap, mprotect
splits, mremap grow/shrink in place and move, brk grow and shrink.

Each run: no verify difference, the exact events of the change (range,
kind, old state, tid, syscall), nothing else in the touched area, and the
replayed log equals the maps the target saved just before exiting.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t

PG = 4096
prog = t.build("t_maps")
lib = t.build("t_lib", shared=True)


def run(scenario, *extra):
    maps = os.path.join(t.tmpdir(), scenario + ".maps")
    r = t.maptap(["-c", " ".join([prog, scenario, maps] + list(extra))])
    t.eq(r.status, 0, "%s: exit status 0" % scenario)
    t.no_verify_diffs(r, scenario)
    pid = t.first_pid(r)
    rep = t.reports(r.stdout)
    if os.path.exists(maps):
        t.check_replay(r, pid, maps,
                       scenario + ": log replays into the final maps")
    else:
        t.ok(False, scenario + ": the target saved its maps")
    return r, pid, rep


# dlopen/dlclose: the library's mappings come in with mmap and leave with
# munmap, all of them, in the name of the only thread.
r, pid, rep = run("dlopen", lib)
maps = [e for e in r.find("map", pid=pid, path=lib) if not e["snapshot"]]
pages_in = set()
for e in maps:
    pages_in |= set(range(*t.span(e), PG))
# The unmaps of those pages (the library's bss is anonymous by then).
unmaps = [e for e in r.find("unmap", pid=pid)
          if set(range(*t.span(e), PG)) & pages_in and
          r.events.index(e) > r.events.index(maps[-1])] if maps else []
pages_out = set()
for e in unmaps:
    pages_out |= set(range(*t.span(e), PG))
t.ok(len(maps) >= 1, "dlopen: the library is mapped")
t.ok(all(e["syscall"] == "mmap" and e["tid"] == pid for e in maps),
     "dlopen: by mmap, thread %d" % pid)
t.ok(any("x" in e["perms"] for e in maps) or
     r.find("replace", pid=pid, path=lib, perms="r-xp") or
     r.find("protect", pid=pid, path=lib, perms="r-xp"),
     "dlopen: its text is executable")
t.ok(pages_in and pages_in <= pages_out, "dlclose: every page of it is unmapped")
t.ok(all(e["syscall"] == "munmap" and e["tid"] == pid for e in unmaps),
     "dlclose: by munmap, thread %d" % pid)

# MAP_FIXED over the library's text: one replace, exact range, old state
# the library's text.
r, pid, rep = run("fixed", lib)
lo, hi = rep.get("fixed", (0, 0))
# After the loader mapped the library there, the only change is ours.
first = r.find("map", pid=pid, path=lib)
since = r.events[r.events.index(first[0]):] if first else []
ev = [e for e in t.touching(since, lo, hi, pid) if e["path"] != lib]
t.eq([(e["event"], t.span(e), e["syscall"], e["tid"]) for e in ev],
     [("replace", (lo, hi), "mmap", pid)], "MAP_FIXED: one replace event")
if ev:
    t.eq((ev[0]["perms"], ev[0]["path"], ev[0]["old"]["path"],
          ev[0]["old"]["perms"]),
         ("rw-p", None, lib, "r-xp"), "MAP_FIXED: old state is the text")

# Partial munmap: the unmap is exactly the middle, the rest is silent.
r, pid, rep = run("munmap")
lo, hi = rep.get("mapped", (0, 0))
ulo, uhi = rep.get("unmapped", (0, 0))
t.eq(t.history(r.events, lo, hi, pid),
     [("map", (lo, hi), "mmap", pid), ("unmap", (ulo, uhi), "munmap", pid)],
     "partial munmap: one map, one unmap of exactly the middle")

# mprotect in the middle splits the VMA in three: one protect event.
r, pid, rep = run("mprotect")
lo, hi = rep.get("mapped", (0, 0))
plo, phi = rep.get("protected", (0, 0))
t.eq(t.history(r.events, lo, hi, pid),
     [("map", (lo, hi), "mmap", pid), ("protect", (plo, phi), "mprotect", pid)],
     "mprotect split: one protect event of exactly the range")
ev = r.find("protect", pid=pid, start=hex(plo))
t.eq([(e["perms"], e["old"]["perms"]) for e in ev], [("r--p", "rw-p")],
     "mprotect split: perms rw-p -> r--p")

# mremap in place: grow then shrink, each with its old extent.
r, pid, rep = run("grow")
lo, hi = rep.get("mapped", (0, 0))
glo, ghi = rep.get("grown", (0, 0))
slo, shi = rep.get("shrunk", (0, 0))
ev = [e for e in t.touching(r.events, lo, ghi, pid) if e["syscall"] == "mremap"]
t.eq([(e["event"], t.span(e), t.old_span(e), e["tid"]) for e in ev],
     [("grow", (glo, ghi), (lo, hi), pid),
      ("shrink", (slo, shi), (glo, ghi), pid)],
     "mremap in place: grow and shrink with the old extents")

# mremap move: one move event, old and new range, nothing else.
r, pid, rep = run("move")
flo, fhi = rep.get("from", (0, 0))
tlo, thi = rep.get("to", (0, 0))
ev = [e for e in r.range_events(pid) if e["syscall"] == "mremap"]
t.eq([(e["event"], t.span(e), t.old_span(e), e["tid"]) for e in ev],
     [("move", (tlo, thi), (flo, fhi), pid)], "mremap move: one move event")
if ev:
    t.eq(ev[0]["perms"], "rw-p", "mremap move: perms kept")

# brk: [heap] grows and shrinks, with the old break as old extent.
r, pid, rep = run("brk")
cur, grown = rep.get("brk", (0, 0))
_, shrunk = rep.get("brk-shrunk", (0, 0))
ev = [e for e in r.range_events(pid) if e["syscall"] == "brk" and
      e["event"] in ("grow", "shrink")]
got = [(e["event"], e["name"], t.old_span(e)[1], t.span(e)[1], e["tid"])
       for e in ev][-2:]
t.eq(got, [("grow", "[heap]", cur, grown, pid),
           ("shrink", "[heap]", grown, shrunk, pid)],
     "brk: [heap] grows to the new break, then shrinks")

t.done()
