#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""signals.py -- signals at maptap's start, and the command's signal state
(maptap(1), SIGNALS).

Five faults, one kind (the signal state across maptap's start):
- the command inherited maptap's own state: SIGPIPE ignored (so `yes |
  head -1` complained of a broken pipe) and, started as a shell's
  background job, SIGINT no longer ignored -- unlike the same command
  untraced;
- a signal sent to maptap before its pass 5 was dropped when the shell
  had started maptap with it ignored (a background job's SIGINT);
- a SIGTERM passed on to the command before its exec ran maptap's
  handler, copied into the child by fork, and was lost;
- a signal that interrupted maptap's write to a slow reader (a pipe)
  made stdio drop the output, and all later output with it;
- started with SIGCHLD ignored, maptap kept it ignored for itself: the
  kernel then tells it of no tracee's stop, and it traced a mapping
  storm 12 to 26 times slower, looking for stops every millisecond.
A sixth: a signal to the whole process group (a terminal's ^C,
timeout(1)) that killed a -c command while it still waited for maptap's
go made maptap fail ("cannot open perf events on the command: No such
process", exit 1) instead of ending as the command did (a fresh helper's
finding: 2 runs in 40 with --events=perf; the same window is there
before PTRACE_SEIZE).  A shim (t_earlydeath.c) makes that race certain.
Every case waits for a state /proc shows (a blocked signal, a stopped
child), never for time; a timeout only bounds a failure.
"""
import fcntl
import json
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t

prog = t.build("t_sigstate")
F_SETPIPE_SZ = 1031	# <linux/fcntl.h>


def background_job():
    """What a non-interactive shell does for `CMD &` (POSIX 2.11)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGQUIT, signal.SIG_IGN)


def sigmask(pid, field):
    v = t.proc_status(pid, field)
    return int(v, 16) if v else 0


def bit(sig):
    return 1 << (sig - 1)


def chld_ignored():
    """A parent that ignores SIGCHLD, as some daemons and job runners
    start their children."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)


def sigstate(text):
    return {l.split()[0]: int(l.split()[1], 16)
            for l in text.splitlines() if l.startswith("Sig")}


# 1. The command starts with the signal state it would have untraced.
for name, pre in (("foreground", None), ("background job", background_job)):
    u = subprocess.run([prog, "report"], stdout=subprocess.PIPE, text=True,
                       preexec_fn=pre)
    r = t.maptap(["-c", "%s report" % prog], json_out=False, verify=False,
                 prefix=()) if pre is None else None
    if pre is not None:
        full, _ = t.maptap_argv(["-c", "%s report" % prog], False, False)
        p = subprocess.Popen(full, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             stdin=subprocess.DEVNULL, preexec_fn=pre)
        r = t.finish(p, full, None)
    want, got = sigstate(u.stdout), sigstate(r.stdout)
    t.eq((r.status, {k: got.get(k) for k in ("SigIgn", "SigBlk")}),
         (0, {k: want.get(k) for k in ("SigIgn", "SigBlk")}),
         name + ": the command's ignored and blocked signals are as untraced")

r = t.maptap(["-c", "sh -c 'yes | head -1'"], json_out=False, verify=False)
t.eq((r.status, r.stderr), (0, ""),
     "yes | head -1: SIGPIPE ends yes quietly, as untraced")

# 1b. Started with SIGCHLD ignored: the command keeps it ignored, as
# untraced, but maptap itself takes it back (SIGCHLD at its tracees'
# stops wakes its wait); the command's parent is maptap.
u = subprocess.run([prog, "report"], stdout=subprocess.PIPE, text=True,
                   preexec_fn=chld_ignored)
got = {}
for mode in ("report", "parent"):
    full, _ = t.maptap_argv(["-c", "%s %s" % (prog, mode)], False, False)
    p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, text=True,
                         preexec_fn=chld_ignored)
    r = t.finish(p, full, None)
    got[mode] = (r.status, sigstate(r.stdout).get("SigIgn", -1))
want = sigstate(u.stdout).get("SigIgn")
t.eq((got["report"], bool(want & bit(signal.SIGCHLD))), ((0, want), True),
     "SIGCHLD ignored at start: the command's ignored signals are as "
     "untraced, SIGCHLD among them")
t.eq((got["parent"][0], got["parent"][1] & bit(signal.SIGCHLD)), (0, 0),
     "SIGCHLD ignored at start: maptap itself does not ignore it")

# 2. Started as a background job (SIGINT ignored), maptap -x holds a
# SIGINT sent at once, and detaches for it in pass 5, like strace -p.
tp = subprocess.Popen([prog, "wait"], stdin=subprocess.PIPE,
                      stdout=subprocess.PIPE, text=True)
pid = int(tp.stdout.readline().split()[1])
full, jsonfile = t.maptap_argv(["-x", str(pid)], True, False)
mp = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                      stdin=subprocess.DEVNULL, text=True,
                      preexec_fn=background_job)
# From its start maptap either holds SIGINT blocked (until pass 5) or
# catches it (pass 5 under way); which one the poll sees depends on how
# fast it runs.  Either way a SIGINT sent from now on is acted on: Linux
# keeps a blocked signal pending even while its action is SIG_IGN.
held = t.wait_until(lambda: (sigmask(mp.pid, "SigBlk") |
                             sigmask(mp.pid, "SigCgt")) & bit(signal.SIGINT),
                    what="maptap to hold or catch SIGINT")
t.ok(held, "background -x: maptap holds the ignored SIGINT from its start")
mp.send_signal(signal.SIGINT)
try:
    mp.wait(timeout=60)
except subprocess.TimeoutExpired:
    pass
detached = mp.returncode is not None
tp.stdin.write("go\n")
tp.stdin.close()
tstatus = tp.wait(timeout=60)
r = t.finish(mp, full, jsonfile)
t.ok(detached, "background -x: a SIGINT sent at start detaches maptap")
t.eq((r.status, tstatus), (0, 0), "background -x: both exit 0")
t.eq([e["reason"] for e in r.find("detach", pid=pid)], ["signal"],
     "background -x: the detach is for the signal")

# 3. A background -c: SIGINT is passed on and the command ignores it, as
# it would untraced; SIGTERM is never lost.
full, _ = t.maptap_argv(["-o", "/dev/null", "-c", "%s sleep 60" % prog],
                        False, False)
mp = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                      stdin=subprocess.DEVNULL, text=True,
                      preexec_fn=background_job)
line = mp.stdout.readline()
t.ok(line.startswith("started"), "background -c: the command runs")
mp.send_signal(signal.SIGINT)
mp.send_signal(signal.SIGTERM)
r = t.finish(mp, full, None)
t.eq(r.status, 128 + signal.SIGTERM,
     "background -c: SIGINT ignored as untraced, SIGTERM ends the command")

# 4. A SIGTERM that maptap passes on while the command has not exec'd
# yet.  The begin probes' output fills a pipe nobody reads yet, so maptap
# stops there after the launch; the command is then stopped at the entry
# of its first execve, one that fails (PATH starts with a missing
# directory), so the signal reaches it between two execve calls.  It
# used to run the copy of maptap's handler and vanish: the command ran to
# its end (exit 0).  The first probe's output fills the pipe exactly, so
# the second's write is blocked without a byte written when the signal
# comes: EINTR, which stdio turned into lost output.
rd, wr = os.pipe()
cap = fcntl.fcntl(wr, F_SETPIPE_SZ, 65536)
lines = cap // 256
script = ('probe begin { for (i = 0; i < %d; i++) printf("%%0255d\\n", i) }'
          ' probe begin { print("tail\\n") }' % lines)
env = dict(os.environ, PATH="/nonexistent-maptap-dir:" +
           os.path.dirname(prog) + ":" + os.environ.get("PATH", ""))
full, _ = t.maptap_argv(["-e", script, "-c", "t_sigstate sleep 30"],
                        False, False)
mp = subprocess.Popen(full, stdout=wr, stderr=subprocess.PIPE,
                      stdin=subprocess.DEVNULL, env=env, text=True)
os.close(wr)


def child_stopped():
    try:
        with open("/proc/%d/task/%d/children" % (mp.pid, mp.pid)) as f:
            kids = [int(x) for x in f.read().split()]
    except OSError:
        return False
    return (sigmask(mp.pid, "SigCgt") & bit(signal.SIGTERM) and
            any(t.task_states(k).get(k) == "t" for k in kids))


def in_write():
    """maptap blocked in write(2) on the full pipe (/proc/PID/syscall)."""
    try:
        with open("/proc/%d/syscall" % mp.pid) as f:
            return f.read().split()[0] == "1"
    except (OSError, IndexError):
        return False


ready = t.wait_until(lambda: child_stopped() and in_write(),
                     what="the command stopped before exec")
t.ok(ready, "pre-exec: maptap has its handler, the command is held, "
     "maptap waits to write")
mp.send_signal(signal.SIGTERM)
out = b""
while True:
    chunk = os.read(rd, 65536)
    if not chunk:
        break
    out += chunk
os.close(rd)
try:
    status = mp.wait(timeout=60)
except subprocess.TimeoutExpired:
    mp.kill()
    status = mp.wait()
err = mp.stderr.read()
t.eq(status, 128 + signal.SIGTERM,
     "pre-exec: the SIGTERM passed on ends the command")
t.ok(b"started" not in out, "pre-exec: the command never ran")
# The signal came while maptap was blocked writing to the pipe: that
# write must go on.  stdio dropped its buffer on EINTR, and then all
# later output ("cannot write the output: Interrupted system call").
t.eq((out.count(b"\n"), out.endswith(b"tail\n"), err), (lines + 1, True, ""),
     "pre-exec: every line of the output, no error")

# 6. The command killed before maptap could trace it: maptap ends as the
# command did, silently, with both event sources.
shim = t.build("t_earlydeath", shared=True)
env = dict(os.environ, LD_PRELOAD=shim)
# a sanitizer build's runtime must come first; the shim is preloaded
env["ASAN_OPTIONS"] = ":".join(
    o for o in (os.environ.get("ASAN_OPTIONS"), "verify_asan_link_order=0")
    if o)
why_not_perf = t.perf_unavailable()
for events in ("ptrace", "perf"):
    if events == "perf" and why_not_perf:
        t.skip("early death, perf: " + why_not_perf)
        continue
    for sig in (signal.SIGTERM, signal.SIGHUP):
        env["MT_EARLY_SIG"] = str(int(sig))
        env.pop("MT_EARLY_AT", None)
        r = subprocess.run([t.MAPTAP, "--events=" + events, "-c",
                            "%s report" % prog], env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        t.eq((r.returncode, r.stderr, r.stdout), (128 + sig, "", ""),
             "early death, %s, %s: maptap exits as the command died, "
             "saying nothing" % (events, sig.name))
    # Killed later, before its exec but after maptap took it: its exit
    # is logged, nothing else.  The go's write found no reader (EPIPE:
    # "cannot start the command", exit 1), and in perf mode, where its
    # events wait for the exec, it was "gone without an exit record
    # (records lost ...)".
    env["MT_EARLY_SIG"] = str(int(signal.SIGTERM))
    env["MT_EARLY_AT"] = "go"
    r = subprocess.run([t.MAPTAP, "--events=" + events, "--json", "-o", "-",
                        "-c", "%s report" % prog], env=env,
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    kinds = [json.loads(x)["event"] for x in r.stdout.splitlines()]
    t.eq((r.returncode, r.stderr, kinds), (128 + signal.SIGTERM, "", ["exit"]),
         "death before exec, %s: maptap exits as the command died, its "
         "exit the one event, no error" % events)
t.done()
