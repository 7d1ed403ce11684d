#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""filters.py -- a target's own seccomp filter acts as it would untraced
(docs/tracer.md, "Other seccomp filters in the target"):

- its SECCOMP_RET_TRACE, with no tracer of its own, fails the call with
  ENOSYS, also under maptap's filter, which traces some of the same calls
  (madvise, mprotect) but not others (getppid);
- the same after a filter with a listener (maptap then stops at every
  entry and exit, and the target's TRACE comes second);
- a mapping call its SECCOMP_RET_KILL_PROCESS or SECCOMP_RET_TRAP stops
  never ran: no event, although the exit stop of --no-seccomp reads the
  call's number as its return value (the kernel rolls the registers back);
- mapping calls its SECCOMP_RET_USER_NOTIF sends to a supervisor thread,
  which outranks maptap's TRACE: those the supervisor lets run are logged
  in their names, those it answers without running log nothing.
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
    return [l for l in text.splitlines()
            if not l.startswith(("area ", "b ", "c "))]


def area_history(r, name):
    pid = t.first_pid(r)
    lo, hi = t.reports(r.stdout).get("area", (0, 0))
    if not t.ok(lo < hi, name + ": the target reported its area"):
        return None
    return [e[:3] for e in t.history(r.events, lo, hi, pid)], (lo, hi)


for mode, want_lines in (("trace", ["getppid -1 38", "madvise -1 38",
                                    "mprotect -1 38", "byte 1"]),
                         ("trace-listener", ["getppid -1 38",
                                             "madvise -1 38",
                                             "mprotect -1 38", "byte 1"]),
                         ("trap", ["munmap 0 0", "byte 2",
                                   "getppid 0 0"]),
                         ("kill", []),
                         ("notify", ["mprotect b 0", "munmap b 0",
                                     "mprotect area 0", "munmap area 0",
                                     "byte 3"]),
                         ("notify-tsync", ["mprotect b 0", "munmap b 0",
                                           "mprotect area 0",
                                           "munmap area 0", "byte 3"])):
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
        if mode == "notify-tsync":
            # The other thread, filtered by TSYNC while it waited, maps
            # its page through the supervisor.
            pid = t.first_pid(r)
            lo, hi = t.reports(r.stdout).get("c", (0, 0))
            t.eq([e[:3] for e in t.history(r.events, lo, hi, pid)],
                 [("map", (lo, hi), "mmap")],
                 name + ": the other thread's mmap through the filter")
        if mode.startswith("notify"):
            # The main thread's events over B (another thread maps
            # the freed page afterwards, to make maptap verify).
            pid = t.first_pid(r)
            lo, hi = t.reports(r.stdout).get("b", (0, 0))
            t.eq([e for e in t.history(r.events, lo, hi, pid)
                  if e[3] == pid],
                 [("map", (lo, hi), "mmap", pid),
                  ("protect", (lo, lo + 4096), "mprotect", pid),
                  ("unmap", (hi - 4096, hi), "munmap", pid)],
                 name + ": the calls the supervisor let run, in their names")
        t.no_verify_diffs(r, name)
        if mode != "kill":
            t.check_replay(r, t.first_pid(r), maps,
                           name + ": log replays into the final maps")

# -x on a process whose listener filter was installed before the attach:
# whether a filter has a listener cannot be read, so the calls are
# trusted only as far as a read confirms them (the munmap of the area,
# answered without running, is no unmap).
maps = os.path.join(t.tmpdir(), "maps-notify-x")
r, pid, status = t.attach_run([prog, "notify-wait", maps])
t.eq((status, output(r.stdout)),
     (0, ["mprotect b 0", "munmap b 0", "mprotect area 0", "munmap area 0",
          "byte 3"]), "notify -x: exit status and output as untraced")
lo, hi = t.reports(r.stdout).get("area", (0, 0))
t.eq([e for e in t.touching(r.events, lo, hi, pid) if e["tid"] == pid], [],
     "notify -x: no event of the area (both its calls answered for)")
lo, hi = t.reports(r.stdout).get("b", (0, 0))
t.eq([(e["event"], t.span(e), e["syscall"])
      for e in t.touching(r.events, lo, hi, pid) if e["tid"] == pid],
     [("map", (lo, hi), "mmap"), ("protect", (lo, lo + 4096), "mprotect"),
      ("unmap", (hi - 4096, hi), "munmap")],
     "notify -x: the calls the supervisor let run, in their names")
t.no_verify_diffs(r, "notify -x")
t.check_replay(r, pid, maps, "notify -x: log replays into the final maps")

# PTRACE_TRACEME in a child of a process with a listener filter: maptap,
# which then stops at every entry, lets go of the child at the call's
# seccomp stop, not at its entry (after which the call would meet
# maptap's filter without a tracer: ENOSYS).
code, out = t.untraced([prog, "listener-traceme"])
t.eq(output(out), ["traceme 0 0"],
     "listener-traceme untraced: PTRACE_TRACEME works (check of the test)")
for opts in MODES:
    name = "listener-traceme %s" % " ".join(opts)
    r = t.maptap(opts + ["%s listener-traceme" % prog])
    t.eq((r.status, output(r.stdout)), (code, output(out)),
         name + ": exit status and output as untraced")
    t.eq([e["reason"] for e in r.find("detach")],
         ["ptrace(PTRACE_TRACEME) by the process"],
         name + ": the child let go, logged")

# Scripts see each call the target's filter fails once, entry and exit,
# with ENOSYS: also where maptap stops at the entry and then at the
# target's TRACE (after a listener filter).
SCRIPT = ("probe syscall.madvise, syscall.getppid { if (pid() == target()) "
          "println(name) } probe syscall.madvise.return, "
          "syscall.getppid.return { if (pid() == target()) "
          "println(name, \" \", retstr) }")
for mode in ("trace", "trace-listener"):
    for opts in MODES:
        name = "%s %s, script" % (mode, " ".join(opts))
        r = t.maptap(["-e", SCRIPT] + opts + ["%s %s" % (prog, mode)],
                     json_out=False)
        t.eq([l for l in r.stdout.splitlines()
              if l.startswith(("getppid", "madvise")) and "-1 38" not in l],
             ["getppid", "getppid -38 (ENOSYS)",
              "madvise", "madvise -38 (ENOSYS)"],
             name + ": each call's entry and exit, once, ENOSYS")

# A call the target's filter traps never ran, and its "result" is the
# SIGSYS handler's: scripts never see it return (the exit stop of
# --no-seccomp reads the rolled-back registers), mapping call or not.
# (Its entry is seen where maptap stops at every entry, before the
# filters run; with maptap's filter the TRAP outranks its TRACE.)
SCRIPT = ("global armed probe syscall.munmap { if (pid() == target() && "
          "length == 16384) { armed = 1; println(name) } } "
          "probe syscall.munmap.return { if (pid() == target() && armed) "
          "{ armed = 0; println(name, \" \", retstr) } } "
          "probe syscall.getppid { if (pid() == target()) println(name) } "
          "probe syscall.getppid.return { if (pid() == target()) "
          "println(name, \" \", retstr) }")
for opts in MODES:
    name = "trap %s, script" % " ".join(opts)
    r = t.maptap(["-e", SCRIPT] + opts + ["%s trap" % prog], json_out=False)
    t.eq([l for l in r.stdout.splitlines()
          if l.startswith(("getppid ", "munmap ")) and
          not l.endswith(" 0 0")], [],
         name + ": no trapped call returns")
    t.eq(sorted(l for l in output(r.stdout) if l.endswith(" 0 0")),
         ["getppid 0 0", "munmap 0 0"],
         name + ": the target's calls return the handler's 0")

t.done()
