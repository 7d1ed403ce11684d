#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""calls.py -- the less common calls that can change the address space:
mremap(MREMAP_DONTUNMAP), an mprotect that fails half way, a refused
MAP_FIXED_NOREPLACE, calls that only split VMAs (madvise, mlock, munlock,
mseal), shmat/shmdt, io_setup/io_destroy, remap_file_pages,
pkey_mprotect.  Exact events, no verify difference, and the log replays
into the final maps.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t

PG = 4096
prog = t.build("t_calls")


def run(call):
    """Run t_calls CALL untraced and traced; None when this kernel or
    machine lacks the call (status 77)."""
    maps = os.path.join(t.tmpdir(), call + ".maps")
    code, _ = t.untraced([prog, call, maps + ".untraced"])
    if code == 77:
        t.skip("%s: not available here" % call)
        return None
    r = t.maptap(["-c", "%s %s %s" % (prog, call, maps)])
    t.eq((r.status, code), (0, 0), "%s: exit status 0, as untraced" % call)
    t.no_verify_diffs(r, call)
    if os.path.exists(maps):
        t.check_replay(r, t.first_pid(r), maps,
                       call + ": log replays into the final maps")
    else:
        t.ok(False, call + ": the target saved its maps")
    return r, t.first_pid(r), t.reports(r.stdout)


x = run("dontunmap")
if x:
    r, pid, rep = x
    lo, hi = rep["old"]
    nlo, nhi = rep["new"]
    t.eq(t.history(r.events, lo, hi, pid), [("map", (lo, hi), "mmap", pid)],
         "MREMAP_DONTUNMAP: the old range stays, no event")
    t.eq([(e["event"], t.span(e)) for e in r.range_events(pid)
          if e["syscall"] == "mremap"], [("map", (nlo, nhi))],
         "MREMAP_DONTUNMAP: the new range is a map")

x = run("partial")
if x:
    r, pid, rep = x
    lo, hi = rep["area"]
    clo, chi = rep["changed"]
    t.eq(t.history(r.events, lo, hi, pid),
         [("map", (lo, hi), "mmap", pid),
          ("unmap", (lo + 2 * PG, lo + 3 * PG), "munmap", pid),
          ("protect", (clo, chi), "mprotect", pid)],
         "mprotect failing with ENOMEM: the part before the hole changed")

for call, why in (("noreplace", "MAP_FIXED_NOREPLACE refused: no event"),
                  ("silent", "madvise, mlock, munlock: no event"),
                  ("mseal", "mseal, a refused mprotect: no event")):
    x = run(call)
    if x:
        r, pid, rep = x
        lo, hi = rep["area"]
        t.eq(t.history(r.events, lo, hi, pid),
             [("map", (lo, hi), "mmap", pid)], why)

x = run("shm")
if x:
    r, pid, rep = x
    lo, hi = rep["attached"]
    ev = t.touching(r.events, lo, hi, pid)
    t.eq([(e["event"], t.span(e), e["syscall"], e["perms"]) for e in ev][-2:],
         [("map", (lo, hi), "shmat", "rw-s"),
          ("unmap", (lo, hi), "shmdt", "rw-s")], "shmat and shmdt")
    t.ok(ev and ev[-1]["path"].startswith("/SYSV"), "shmat: the SysV name")

x = run("aio")
if x:
    r, pid, rep = x
    ctx = rep["ctx"]
    ev = [e for e in r.range_events(pid) if t.span(e)[0] == ctx]
    t.eq([(e["event"], e["syscall"], e["path"]) for e in ev][-2:],
         [("map", "io_setup", "/[aio] (deleted)"),
          ("unmap", "io_destroy", "/[aio] (deleted)")],
         "io_setup and io_destroy: the [aio] ring")

x = run("remap")
if x:
    r, pid, rep = x
    lo, hi = rep["area"]
    rlo, rhi = rep["remapped"]
    ev = t.touching(r.events, rlo, rhi, pid)
    t.eq([(e["event"], t.span(e), e["syscall"], e["offset"],
           e.get("old", {}).get("offset")) for e in ev][-1:],
         [("replace", (rlo, rhi), "remap_file_pages", "0x3000", "0x1000")],
         "remap_file_pages: page 1 now shows file page 3")

x = run("pkey")
if x:
    r, pid, rep = x
    lo, hi = rep["area"]
    plo, phi = rep["protected"]
    t.eq(t.history(r.events, lo, hi, pid),
         [("map", (lo, hi), "mmap", pid),
          ("protect", (plo, phi), "pkey_mprotect", pid)], "pkey_mprotect")
# mmaps a lone thread makes take no exit stop (issue 16): where each went
# is found at the thread's next stop, whatever that stop is -- the next
# call, a fork, a signal, the exit -- and its event comes before that
# stop's own; one that failed makes none.
x = run("placed")
if x:
    r, pid, rep = x
    lo, hi = rep["area"]
    t.eq(t.history(r.events, lo, hi, pid),
         [("map", (lo, hi), "mmap", pid),
          ("unmap", (lo + PG, lo + 2 * PG), "munmap", pid),
          ("map", (lo + PG, lo + 2 * PG), "mmap", pid)],
         "placed: a hint into a hole, merged on both sides, is its page")
    for key in ("noreplace", "forked", "signalled", "last"):
        a, b = rep[key]
        t.eq(t.history(r.events, a, b, pid), [("map", (a, b), "mmap", pid)],
             "placed: %s: one map event, in the mmap's name" % key)
    mmaps = [e for e in r.range_events(pid) if e["syscall"] == "mmap"]
    order = [e["event"] if e["event"] == "fork" else t.span(e)
             for e in r.events if e.get("pid") == pid and
             (e["event"] == "fork" or e in mmaps)]
    t.ok(rep["forked"] in order and "fork" in order and
         order.index(rep["forked"]) < order.index("fork"),
         "placed: the mmap before the fork is logged before the fork")
    # From the area's map on: the area, the hint's page, 20 pages
    # unmapped again, noreplace, 41 pages, forked, signalled, last -- no
    # more.
    first = [i for i, e in enumerate(mmaps) if e["event"] == "map" and
             t.span(e) == (lo, hi)]
    t.eq(len([e for e in mmaps[first[-1] if first else 0:]
              if e["event"] == "map"]), 8,
         "placed: 8 mmaps mapped; the three that failed made no event")
# A single-threaded process whose last mmap took no exit stop, attached
# by its traced parent (maptap lets it go to its new tracer): that mmap
# is read at the interrupt's stop, before it goes (before: missing from
# the log, which then did not replay into its maps).
x = run("attached")
if x:
    r, pid, rep = x
    forks = r.find("fork", pid=pid)
    child = forks[0]["child"] if forks else None
    maps = os.path.join(t.tmpdir(), "attached.maps.child")
    t.ok(child and os.path.exists(maps), "attached: the child saved its maps")
    if child and os.path.exists(maps):
        t.check_replay(r, child, maps, "attached: the child's log, up to "
                       "its let-go, replays into its maps")
        lo, hi = t.reports(r.stdout).get("mapped", (0, 0))
        t.eq(t.history(r.events, lo, hi, child),
             [("map", (lo, hi), "mmap", child)],
             "attached: its last mmap is logged before it is let go")
t.done()
