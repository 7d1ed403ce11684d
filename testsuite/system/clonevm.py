#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""clonevm.py -- a thread and a process that shares its parent's mm are
told apart: vfork()+exec, vfork()+_exit, clone(CLONE_VM|SIGCHLD) and a
pthread, in the text log, in JSON, and in scripts ($thread, the
lifetime probes).

A vfork or CLONE_VM child was logged as "clone thread N": the clone
event did not say whether the child was a thread.  Now the event's
`thread` field (JSON) / $thread (scripts) says it, and the text log
reads "thread N" or "process N (same mm)".  After the child's exec its
events are its own (own pid, own snapshot); the parent's are untouched.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t

prog = t.build("t_clonevm")

MODES = (("vfork-exec", False), ("vfork-exit", False), ("clone-vm", False),
         ("thread", True))

for mode, thread in MODES:
    name = mode
    r = t.maptap(["-c", "%s %s" % (prog, mode)])
    t.eq(r.status, 0, name + ": exit status 0")
    t.no_verify_diffs(r, name)
    rep = t.reports(r.stdout)
    parent = rep.get("parent")
    child = rep.get("child")
    clones = r.find("clone")
    if thread:
        child = clones[0]["child"] if clones else None
    t.eq([(e["pid"], e["child"], e.get("thread")) for e in clones],
         [(parent, child, thread)],
         name + ": one clone event, thread %s" % str(thread).lower())
    t.eq([e["pid"] for e in r.find("exit", tid=child)],
         [parent if thread else child],
         name + ": the child's exit is its own process's" if not thread
         else name + ": the thread's exit is its process's")
    if not thread:
        t.eq([e["group_exit"] for e in r.find("exit", tid=child)], [True],
             name + ": the child's exit ends a process")
    lo, hi = rep.get("area", (0, 0))
    if mode == "vfork-exec":
        # After its exec the child has its own mm: its own snapshot and
        # its mapping under its pid; nothing of it touches the parent.
        t.eq([e["pid"] for e in r.find("exec")][1:], [child],
             name + ": the exec is the child's")
        t.ok(len(r.find("map", pid=child, snapshot=True)) > 3,
             name + ": the child's own snapshot after its exec")
        t.eq(t.history(r.events, lo, hi, child),
             [("map", (lo, hi), "mmap", child)],
             name + ": the exec'd child's mmap under its pid")
        t.eq([e for e in r.range_events(parent) if e["tid"] != parent], [],
             name + ": no event of the parent's is the child's")
    elif mode == "clone-vm":
        # On the shared mm, a call is logged under the process that made
        # it: the child's mmap under the child, the parent's munmap of
        # the same page under the parent.
        t.eq([(e["event"], e["pid"], e["tid"], e["syscall"])
              for e in r.events if e["event"] in ("map", "unmap") and
              (t.hexint(e["start"]), t.hexint(e["end"])) == (lo, hi)],
             [("map", child, child, "mmap"),
              ("unmap", parent, parent, "munmap")],
             name + ": the child's mmap and the parent's munmap")
    elif mode == "thread":
        t.eq(t.history(r.events, lo, hi, parent),
             [("map", (lo, hi), "mmap", child)],
             name + ": the thread's mmap under the process")

    # The text log says the same.
    r = t.maptap(["-c", "%s %s" % (prog, mode)], json_out=False)
    rep = t.reports(r.stdout)
    got = re.findall(r" clone +(.*)", r.stdout)
    want = "thread %d" if thread else "process %d (same mm)"
    if thread:
        t.eq(len(got), 1, name + " (text): one clone line")
        t.ok(got and re.fullmatch(r"thread \d+", got[0]),
             name + " (text): " + (got[0] if got else "no clone line"))
    else:
        t.eq(got, [want % rep.get("child", 0)],
             name + " (text): the clone line names a process")

    # Scripts: $thread, and which lifetime probe fires for the child.
    script = r'''
probe maptap.process.clone { printf("clone %d thread %d\n", $child, $thread) }
probe process.begin { printf("begin %d\n", pid()) }
probe process.thread.begin { printf("thread.begin %d\n", tid()) }
'''
    r = t.maptap(["-e", script, "-c", "%s %s" % (prog, mode)],
                 json_out=False)
    rep = t.reports(r.stdout)
    lines = r.stdout.splitlines()
    c = [l for l in lines if l.startswith("clone ")]
    if thread:
        t.ok(len(c) == 1 and c[0].endswith(" thread 1"),
             name + " (script): $thread is 1: %r" % c)
        tid = int(c[0].split()[1]) if c else -1
        t.eq([l for l in lines if l.startswith("thread.begin")],
             ["thread.begin %d" % tid],
             name + " (script): process.thread.begin for the thread")
    else:
        child = rep.get("child", 0)
        t.eq(c, ["clone %d thread 0" % child],
             name + " (script): $thread is 0")
        t.eq([l for l in lines if l.startswith("thread.begin")], [],
             name + " (script): no process.thread.begin")
        t.ok("begin %d" % child in lines,
             name + " (script): process.begin for the child")
t.done()
