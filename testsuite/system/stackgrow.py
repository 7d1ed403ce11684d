#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""stackgrow.py -- changes made without a system call, seen at the stops
maptap has, and --verify's checks (issue 17, parts 6 and 7).

* t_deepstack recurses 2 MiB deeper than main (the main stack grows in
  page faults) and exits with no mapping call after it: under -c (with
  and without the filter) and -x, the log has the [stack] `grow`
  (syscall null) and replays into the [stack] the target saw just before
  its exit; --report's live bytes are its /proc/PID/maps; no --verify
  difference.  (Before: the growth was never seen, the report was short
  by it, and --verify, which excused every [stack] difference, said
  nothing; with the check at the exit stop turned off, --verify now
  reports "model none, kernel rw-p [stack]".)
* t_deepstack gd plants what no tracer can see: a MAP_GROWSDOWN mapping
  grown one page by a fault.  --verify checks only the range each event
  touched and the whole map at a bounded rate, so it must still find
  the planted page at the process's exit: exactly one difference, that
  page.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t  # noqa: E402

KIB = 2048
deep = t.build("t_deepstack")


def maps_total(path):
    total = 0
    for line in open(path):
        lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
        total += hi - lo
    return total


def stack_of(pages):
    """[lo, hi) of the [stack] pages of a page map, or None."""
    s = sorted(a for a, v in pages.items() if v[1] == "[stack]")
    return (s[0], s[-1] + 4096) if s else None


def check(r, pid, out, maps, name):
    rep = t.reports(out)
    before, after = rep.get("before"), rep.get("after")
    t.ok(before and after and after[0] <= before[0] - (KIB - 256) * 1024,
         "%s: the target grew [stack] by about %d KiB (%s -> %s)"
         % (name, KIB, before, after))
    grows = [e for e in r.find("grow", pid=pid, name="[stack]")
             if e["syscall"] is None]
    t.ok(grows and t.hexint(grows[-1]["start"]) <= after[0],
         "%s: a [stack] grow without a call covers the growth" % name)
    t.eq(stack_of(t.replay(r.events, pid)), after,
         "%s: the log's [stack] is the kernel's at the exit" % name)
    t.check_replay(r, pid, maps, name + ": the log replays into the maps")
    t.no_verify_diffs(r, name)


for name, extra in (("-c", []), ("-c --no-seccomp", ["--no-seccomp"])):
    maps = os.path.join(t.tmpdir(), "deep%d.maps" % len(extra))
    r = t.maptap(extra + ["-c", "%s %s %d" % (deep, maps, KIB)])
    t.eq(r.status, 0, name + ": exit status 0")
    check(r, t.first_pid(r), r.stdout, maps, name)

maps = os.path.join(t.tmpdir(), "deepx.maps")
r, pid, status = t.attach_run([deep, maps, str(KIB), "wait"])
t.eq(status, 0, "-x: the target's exit status 0")
check(r, pid, r.stdout, maps, "-x")

# --report: the live bytes at the exit are the maps the target saw.
maps = os.path.join(t.tmpdir(), "deeprep.maps")
jf = os.path.join(t.tmpdir(), "deeprep.json")
r = t.maptap(["--report", "--json", "-o", jf, "-c",
              "%s %s %d" % (deep, maps, KIB)], json_out=False, verify=False)
recs = [json.loads(line) for line in open(jf)] if os.path.exists(jf) else []
recs = [e for e in recs if e.get("event") == "report"]
t.eq([e["live_bytes"] for e in recs][-1:], [maps_total(maps)],
     "--report: live bytes at the exit are the target's /proc/PID/maps")

# A planted difference: found by --verify at the exit, and only it.
maps = os.path.join(t.tmpdir(), "gd.maps")
r = t.maptap(["-c", "%s %s gd" % (deep, maps)])
t.eq(r.status, 0, "growsdown: exit status 0")
rep = t.reports(r.stdout)
gd, grown = rep.get("gd"), rep.get("grown")
d = r.verify_diffs()
t.eq(len(d), 1, "growsdown: --verify reports one difference")
t.ok(gd and d and ("[0x%x, 0x%x) model none" % (grown[0], gd[0])) in d[0],
     "growsdown: the planted page, model none, kernel rw-p (%s)"
     % (d[0] if d else None))

t.done()
