#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""procs.py -- processes: fork, vfork+exec, posix_spawn, exit status
passthrough, signals delivered unchanged, and traced processes that
trace others (PTRACE_TRACEME, strace -f).
"""
import os
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t

prog = t.build("t_fork")


def check_maps(r, pid, path, name):
    if os.path.exists(path):
        t.check_replay(r, pid, path, name + ": log replays into the final maps")
    else:
        t.ok(False, name + ": the target saved its maps")


def parent_untouched(r, parent, child, name):
    """The parent's model is not rebuilt nor changed by the child."""
    t.eq([e for e in r.range_events(parent) if e["tid"] != parent], [],
         name + ": no event of the parent's is the child's")
    creation = [i for i, e in enumerate(r.events)
                if e["event"] in ("fork", "clone") and e.get("child") == child]
    t.eq([e for e in r.events[creation[0] if creation else 0:]
          if e["pid"] == parent and e.get("snapshot")], [],
         name + ": no snapshot of the parent after the child appears")


def run_fork(mode, how):
    """t_fork MODE under maptap -c (HOW "-c") or -x; (Run, parent, maps)."""
    maps = os.path.join(t.tmpdir(), "%s%s.maps" % (mode, how))
    if how == "-x":
        r, parent, status = t.attach_run([prog, mode, maps, "wait"])
        t.eq((status, r.status), (0, 0), "%s (-x): exit status 0" % mode)
    else:
        r = t.maptap(["-c", "%s %s %s" % (prog, mode, maps)])
        parent = t.first_pid(r)
        t.eq(r.status, 0, "%s (-c): exit status 0" % mode)
    return r, parent, maps


for how in ("-c", "-x"):
    # fork: the child starts from a snapshot of its own, its events are
    # its own, the parent's stay the parent's.
    name = "fork (%s)" % how
    r, parent, maps = run_fork("fork", how)
    t.no_verify_diffs(r, name)
    rep = t.reports(r.stdout)
    child = rep.get("child")
    t.eq([(e["pid"], e["tid"]) for e in r.find("fork", child=child)],
         [(parent, parent)], name + ": one fork event by the parent")
    snap = r.find("map", pid=child, snapshot=True)
    t.ok(len(snap) > 5, name + ": the child's snapshot (%d maps)" % len(snap))
    lo, hi = rep.get("child-area", (0, 0))
    t.eq(t.history(r.events, lo, hi, child), [("map", (lo, hi), "mmap", child)],
         name + ": the child's mmap under its own pid")
    lo, hi = rep.get("parent-area", (0, 0))
    t.eq(t.history(r.events, lo, hi, parent),
         [("map", (lo, hi), "mmap", parent)],
         name + ": the parent's mmap under its pid")
    parent_untouched(r, parent, child, name)
    check_maps(r, child, maps + ".child", name + " child")
    check_maps(r, parent, maps, name + " parent")

    # vfork+exec and posix_spawn: the child shares the parent's mm until
    # its exec; the exec is the child's, the parent's model stays.
    for mode in ("vfork", "spawn"):
        name = "%s (%s)" % (mode, how)
        r, parent, maps = run_fork(mode, how)
        t.no_verify_diffs(r, name)
        rep = t.reports(r.stdout)
        child = rep.get("child")
        t.eq([(e["event"], e["pid"]) for e in r.events
              if e["event"] in ("fork", "clone") and e["child"] == child],
             [("clone", parent)], name + ": the child appears, sharing the mm")
        t.eq([(e["pid"], e["tid"], e["former_tid"]) for e in r.find("exec")
              if e["pid"] != parent],
             [(child, child, child)], name + ": the exec event is the child's")
        lo, hi = rep.get("leaf-area", (0, 0))
        t.eq(t.history(r.events, lo, hi, child),
             [("map", (lo, hi), "mmap", child)],
             name + ": the new image's mmap under the child's pid")
        parent_untouched(r, parent, child, name)
        check_maps(r, child, maps + ".child", name + " child")
        check_maps(r, parent, maps, name + " parent")

# Exit status passthrough: the code, or 128 + the signal.
prog = t.build("t_exit")
for args, want in (("code 0", 0), ("code 3", 3), ("code 255", 255),
                   ("raise %d" % signal.SIGABRT, 128 + signal.SIGABRT),
                   ("raise %d" % signal.SIGKILL, 128 + signal.SIGKILL),
                   ("raise %d" % signal.SIGTERM, 128 + signal.SIGTERM),
                   ("segv", 128 + signal.SIGSEGV)):
    code, _ = t.untraced([prog] + args.split())
    r = t.maptap(["-c", "%s %s" % (prog, args)])
    t.eq((r.status, code), (want, want),
         "exit status '%s': %d traced and untraced" % (args, want))

# Signals: each SIGUSR1 reaches the handler once, as SI_USER from us.
prog = t.build("t_signals")
N = 5
full, jsonfile = t.maptap_argv(["-c", "%s %d %d" % (prog, N, os.getpid())])
p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     stdin=subprocess.DEVNULL, text=True)
lines = []
first = p.stdout.readline().split()
target = int(first[1]) if len(first) == 2 and first[0] == "ready" else None
if target:
    for i in range(N):
        os.kill(target, signal.SIGUSR1)
        lines.append(p.stdout.readline().strip())
r = t.finish(p, full, jsonfile, timeout=60)
t.eq(lines, ["got %d 0 %d" % (i + 1, os.getpid()) for i in range(N)],
     "signals: %d SIGUSR1s, each delivered once, si_code SI_USER, si_pid us" % N)
t.eq(r.stdout.strip(), "usr2 1", "signals: a raised SIGUSR2 is handled")
t.eq(r.status, N + 10, "signals: exit status")
t.no_verify_diffs(r, "signals")

# PTRACE_TRACEME in a traced child: maptap lets go first, so it succeeds;
# logged as a detach event.  With maptap's seccomp filter left in the
# child, its mmap fails with ENOSYS under a tracer that does not ask for
# seccomp stops (seccomp(2), SECCOMP_RET_TRACE): docs/tracer.md.
prog = t.build("t_traceme")
for opts, want in ((["--no-seccomp"], 0), ([], 15)):
    name = "traceme%s" % (" " + opts[0] if opts else "")
    r = t.maptap(opts + ["-c", prog])
    t.eq(r.status, want, "%s: exit status %d" % (name, want))
    child = t.reports(r.stdout).get("child")
    t.eq([e["reason"] for e in r.find("detach", pid=child)],
         ["ptrace(PTRACE_TRACEME) by the process"],
         name + ": logged as a detach of the child")
    t.no_verify_diffs(r, name)

# A CLONE_VM|CLONE_UNTRACED child (LeakSanitizer's StopTheWorld makes
# one) is not auto-attached.  maptap clears the flag at the clone's entry
# (the seccomp filter traps clone with CLONE_UNTRACED, and clone3), so the
# child is followed and its mappings in the shared mm are logged; before
# that, under the filter, the untraced child's mmap failed with ENOSYS
# (seccomp(2): SECCOMP_RET_TRACE without a tracer).
prog = t.build("t_untraced")
code, out = t.untraced([prog])
for mode in (["-c"], ["--no-seccomp", "-c"]):
    name = "CLONE_UNTRACED child %s" % " ".join(mode)
    r = t.maptap(mode + [prog])
    t.eq(r.status, code, name + ": exit status as untraced")
    t.no_verify_diffs(r, name)
    lo, hi = t.reports(r.stdout).get("child-area", (0, 0))
    clones = [e["child"] for e in r.find("clone", pid=t.first_pid(r))]
    t.eq([t.history(r.events, lo, hi, c) for c in clones],
         [[("map", (lo, hi), "mmap", c)] for c in clones[:1]],
         name + ": followed, its mmap logged")

# The real case: an AddressSanitizer program, whose LeakSanitizer at exit
# clones such a tracer thread that ptrace-attaches to its siblings.
asan = t.build("t_exit", "-fsanitize=address", out=os.path.join(
    t.tmpdir(), "t_exit_asan"), must=False)
if asan:
    code, _ = t.untraced([asan, "code", "6"])
    r = t.maptap(["--no-seccomp", "-c", "%s code 6" % asan], verify=False)
    t.eq((r.status, code), (6, 6),
         "ASan program --no-seccomp: LeakSanitizer works, status as untraced")
    # Under the filter the helper thread is now traced, but it attaches
    # to its siblings, and a thread maptap lets go of keeps the filter
    # with no tracer to answer it (maptap(1), LIMITATIONS).
    r = t.maptap(["-c", "%s code 6" % asan], verify=False)
    t.todo((r.status, code) == (6, 6),
           "ASan program -c: LeakSanitizer works, status as untraced (%s)"
           % r.status, "a thread let go under the seccomp filter gets ENOSYS")
else:
    t.skip("$CC cannot build with -fsanitize=address")

# The launched command itself taken over by its child: maptap lets go of
# it, and still passes its exit status on (it is also its parent).
prog = t.build("t_adopted")
code, _ = t.untraced([prog])
r = t.maptap(["--no-seccomp", "-c", prog])
pid = t.first_pid(r)
t.eq((r.status, code), (9, 9),
     "launched command let go: its exit status still passed on")
t.eq([e["reason"] for e in r.find("detach", pid=pid)],
     ["ptrace(PTRACE_ATTACH) by a traced process"],
     "launched command let go: logged as a detach")

# strace -f under maptap: strace attaches to (or is asked to trace by)
# processes maptap traces; each is let go first and logged.
if shutil.which("strace"):
    out = os.path.join(t.tmpdir(), "strace.out")
    cmd = "strace -f -o %s sh -c 'echo hi; /bin/true; exit 7'" % out
    code, stdout = t.untraced(["sh", "-c", cmd])
    r = t.maptap(["--no-seccomp", "-c", cmd])
    t.eq((r.status, r.stdout), (code, stdout.decode()),
         "strace -f: same status and output as untraced")
    t.ok(code == 7, "strace -f: the traced program's exit status")
    det = r.find("detach")
    t.ok(det and all("ptrace" in e["reason"] for e in det),
         "strace -f: its tracees are let go and logged (%d)" % len(det))
    with open(out) as f:
        text = f.read()
    t.ok("execve(\"/bin/true\"" in text and "+++ exited with 7 +++" in text,
         "strace -f: strace saw the exec and the exit")
    t.no_verify_diffs(r, "strace -f")
else:
    t.skip("strace is not installed")
t.done()
