#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""starve.py -- every traced thread gets its turn (runtime/tracer/waitq.c).

waitpid(-1) reports the first tracee with a stop in the kernel's list
order, not the oldest stop.  With maptap and its target on one CPU, a
sibling that hammers mapping calls was stopped again before each
waitpid(-1) and reported every time; the main thread's stop, pending
behind it, was never taken: the run never ended (attach.py's ^Z/fg case
hung that way under `taskset -c 0`).  Here the main thread makes a
fixed number of mapping calls while its sibling hammers, in launch
mode (seccomp stops) and attach mode (syscall stops), each pinned to
one CPU and unpinned, with a hard timeout: every run must end, with the
target's own output and status and --verify clean.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t

N = 3000
TIMEOUT = 120
prog = t.build("t_starve")
cpu0 = min(os.sched_getaffinity(0))


def pinned_to(cpu):
    """A preexec_fn that pins the child to CPU (None: no pinning)."""
    if cpu is None:
        return None
    return lambda: os.sched_setaffinity(0, {cpu})


def launch(cpu, name):
    full, jsonfile = t.maptap_argv(["-c", "%s %d" % (prog, N)])
    p = subprocess.Popen(full, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, preexec_fn=pinned_to(cpu))
    r = t.finish(p, full, jsonfile, timeout=TIMEOUT)
    t.eq((r.status, r.stdout.split("\n", 1)[-1]), (0, "done %d\n" % N),
         "%s: the run ends with the target's output and status" % name)
    t.no_verify_diffs(r, name)


def attach(cpu, name):
    tp = subprocess.Popen([prog, str(N)], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True,
                          preexec_fn=pinned_to(cpu))
    pid = int(tp.stdout.readline().split()[1])
    full, jsonfile = t.maptap_argv(["-x", str(pid)])
    mp = subprocess.Popen(full, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, preexec_fn=pinned_to(cpu))
    if t.EVENTS == "perf":
        t.wait_attached(mp)
    else:
        t.wait_until(lambda: t.tracer_pid(pid) == mp.pid, what="the attach")
    try:
        out, _ = tp.communicate("go\n", timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        t.diag("%s: the target did not end; its threads: %s" %
               (name, t.task_states(pid)))
        tp.kill()
        out, _ = tp.communicate()
    r = t.finish(mp, full, jsonfile, timeout=TIMEOUT)
    t.eq((tp.returncode, out), (0, "done %d\n" % N),
         "%s: the target ends with its own output and status" % name)
    t.eq(r.status, 0, "%s: maptap ends with the target, status 0" % name)
    t.no_verify_diffs(r, name)


for rnd in range(3):
    launch(cpu0, "-c pinned to CPU %d, round %d" % (cpu0, rnd))
    attach(cpu0, "-x pinned to CPU %d, round %d" % (cpu0, rnd))
launch(None, "-c unpinned")
attach(None, "-x unpinned")
t.done()
