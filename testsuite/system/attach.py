#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""attach.py -- maptap -x: threads created during attach, SIGINT while the
target is busy, ^Z/fg (SIGSTOP, SIGCONT) in both modes, and the inputs
maptap must refuse (one line on stderr, exit 1, the target unharmed).
"""
import os
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t


def start_target(prog, *args):
    """Start PROG untraced with pipes; returns (Popen, pid from "ready")."""
    p = subprocess.Popen([prog] + list(args), stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    f = p.stdout.readline().split()
    return p, int(f[1]) if len(f) == 2 and f[0] == "ready" else None


def start_maptap(args, verify=True):
    full, jsonfile = t.maptap_argv(args, verify=verify)
    p = subprocess.Popen(full, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    return p, full, jsonfile


def file_has(path, text):
    try:
        with open(path) as f:
            return text in f.read()
    except OSError:
        return False


def file_nonempty(path):
    try:
        return os.path.getsize(path) > 0
    except OSError:
        return False


busy = t.build("t_busy")
# Untraced with a line on stdin: the reference output, after "ready PID".
ref = subprocess.run([busy], input="go\n", stdout=subprocess.PIPE, text=True,
                     timeout=60)
REF = (ref.stdout.split("\n", 1)[1], ref.returncode)

# Threads created during attach: the creator never pauses, so the seize
# loop races with clone(); afterwards, every thread it makes is traced.
N = 20
spawner = t.build("t_spawner")
tp, pid = start_target(spawner, str(N))
mp, full, jsonfile = start_maptap(["-x", str(pid)])
# A clone event is flushed as it is logged: it proves the attach is over.
t.wait_until(lambda: file_has(jsonfile, '"clone"'), what="a clone event")
tp.stdin.write("go\n")
tp.stdin.flush()
out = tp.stdout.read()
t.eq(tp.wait(timeout=60), 0, "threads during attach: the target's status")
r = t.finish(mp, full, jsonfile, timeout=60)
t.eq(r.status, 0, "threads during attach: maptap -x exits 0 with the target")
t.no_verify_diffs(r, "threads during attach")
rep = t.reports(out)
threads = {int(k.split("-")[1]): v for k, v in rep.items()
           if k.startswith("thread-")}
t.eq(len(threads), N, "threads during attach: %d threads reported" % N)
clones = {e["child"] for e in r.find("clone", pid=pid)}
t.eq(sorted(set(threads) - clones), [],
     "threads during attach: each has a clone event")
bad = [(tid, t.history(r.events, lo, hi, pid))
       for tid, (lo, hi) in threads.items()
       if t.history(r.events, lo, hi, pid) != [("map", (lo, hi), "mmap", tid)]]
t.eq(bad, [], "threads during attach: each thread's mmap under its tid")
t.eq(len(r.find("attach", pid=pid)), 1, "threads during attach: one attach event")
t.eq(r.find("exit", pid=pid, tid=pid)[-1:] and
     r.find("exit", pid=pid, tid=pid)[-1]["exit_code"], 0,
     "threads during attach: the exit is logged")

# SIGINT to maptap -x while the target is busy: maptap detaches from every
# thread and the target finishes exactly as untraced, its read(2) not
# disturbed.
tp, pid = start_target(busy)
mp, full, jsonfile = start_maptap(["-x", str(pid)])
# The log reaches the file once a stdio buffer of events is full: proof
# that maptap is past the attach and tracing.
t.wait_until(lambda: file_nonempty(jsonfile), what="events in the log")
mp.send_signal(signal.SIGINT)
r = t.finish(mp, full, jsonfile, timeout=60)
t.eq(r.status, 0, "SIGINT: maptap -x exits 0")
t.eq(r.stderr.strip(), "", "SIGINT: nothing on stderr")
tracers = {tid: t.tracer_pid_tid(pid, tid) for tid in t.task_states(pid)}
t.eq(set(tracers.values()), {0}, "SIGINT: TracerPid 0 in every thread")
t.eq(sorted(e["tid"] for e in r.find("detach", pid=pid)), sorted(tracers),
     "SIGINT: a detach event for each thread")
t.ok(r.range_events(pid) and r.find("attach", pid=pid),
     "SIGINT: it was tracing (attach and range events)")
out, _ = tp.communicate("go\n", timeout=60)
t.eq((out, tp.returncode), REF,
     "SIGINT: the target ends with the output and status of an untraced run")
t.no_verify_diffs(r, "SIGINT")

# ^Z/fg under maptap -x: the parent (us) sees the stop and the continue
# as without maptap (waitpid WUNTRACED/WCONTINUED), every thread is
# stopped, and it runs on afterwards.  A ptraced thread in group-stop
# shows 't' in /proc (fs/proc/array.c: TASK_TRACED), untraced 'T'.
tp, pid = start_target(busy)
mp, full, jsonfile = start_maptap(["-x", str(pid)])
t.wait_until(lambda: file_nonempty(jsonfile), what="events in the log")
os.kill(pid, signal.SIGSTOP)
w = os.waitpid(pid, os.WUNTRACED)[1]
t.ok(os.WIFSTOPPED(w) and os.WSTOPSIG(w) == signal.SIGSTOP,
     "^Z -x: the parent sees the stop (WUNTRACED)")
st = t.wait_until(lambda: (lambda s: s if s and set(s.values()) <= {"t", "T"}
                           else None)(t.task_states(pid)),
                  what="every thread stopped")
t.ok(st, "^Z -x: every thread stopped (%s)" % st)
t.ok(mp.poll() is None, "^Z -x: maptap still runs")
os.kill(pid, signal.SIGCONT)
w = os.waitpid(pid, os.WCONTINUED)[1]
t.ok(os.WIFCONTINUED(w), "fg -x: the parent sees the continue (WCONTINUED)")
out, _ = tp.communicate("go\n", timeout=60)
t.eq((out, tp.returncode), REF,
     "fg -x: the target resumes and ends as untraced")
r = t.finish(mp, full, jsonfile, timeout=60)
t.eq(r.status, 0, "^Z/fg -x: maptap ends with the target, status 0")
t.no_verify_diffs(r, "^Z/fg -x")

# SIGINT while the target creates threads: the threads born during the
# detach are let go too (a thread that ended meanwhile reads as None).
tp, pid = start_target(spawner, str(N))
mp, full, jsonfile = start_maptap(["-x", str(pid)])
t.wait_until(lambda: file_has(jsonfile, '"clone"'), what="a clone event")
mp.send_signal(signal.SIGINT)
r = t.finish(mp, full, jsonfile, timeout=60)
t.eq(r.status, 0, "SIGINT while creating threads: maptap -x exits 0")
tracers = {t.tracer_pid_tid(pid, x) for x in t.task_states(pid)}
t.eq(tracers - {None}, {0}, "SIGINT while creating threads: TracerPid 0")
tp.stdin.write("go\n")
tp.stdin.close()
out = tp.stdout.read()
t.eq((tp.wait(timeout=60), len(t.reports(out))), (0, N),
     "SIGINT while creating threads: the target ends as untraced")

# SIGINT to maptap -x while the target is stopped: it stays stopped, now
# untraced ('T'), and a SIGCONT resumes it (ptrace(2): a tracee detached
# in group-stop stays stopped).
tp, pid = start_target(busy)
mp, full, jsonfile = start_maptap(["-x", str(pid)])
t.wait_until(lambda: file_nonempty(jsonfile), what="events in the log")
os.kill(pid, signal.SIGSTOP)
os.waitpid(pid, os.WUNTRACED)
mp.send_signal(signal.SIGINT)
r = t.finish(mp, full, jsonfile, timeout=60)
t.eq(r.status, 0, "SIGINT while stopped: maptap -x exits 0")
# A thread detached in a ptrace-stop is woken to re-enter the group-stop
# (kernel/ptrace.c, __ptrace_unlink): 'R' for a moment, then 'T'.
st = t.wait_until(lambda: (lambda s: s if s and set(s.values()) == {"T"}
                           else None)(t.task_states(pid)),
                  what="every thread back in group-stop") or t.task_states(pid)
t.eq((set(st.values()), {t.tracer_pid_tid(pid, x) for x in st}),
     ({"T"}, {0}), "SIGINT while stopped: every thread stopped, untraced")
os.kill(pid, signal.SIGCONT)
w = os.waitpid(pid, os.WCONTINUED)[1]
t.ok(os.WIFCONTINUED(w), "SIGINT while stopped: SIGCONT resumes it")
out, _ = tp.communicate("go\n", timeout=60)
t.eq((out, tp.returncode), REF,
     "SIGINT while stopped: the target ends as untraced")

# A thread that has ended but is still listed in /proc/PID/task (a zombie
# until released; here kept so by another process tracing it): seizing it
# fails with EPERM, as for a thread traced by someone else, not ESRCH.
# The attach goes on without it (before: "already traced", exit 1; a
# process that creates and ends threads met it 1 attach in 30).
zombie = t.build("t_zombiethread")
r, pid, status = t.attach_run([zombie])
rep = t.reports(r.stdout)
if r.status != 0:
    t.diag("maptap: " + r.stderr.strip()[-300:])
t.eq((status, r.status), (0, 0),
     "ended thread still listed: the target and maptap -x exit 0")
t.ok(rep.get("zombie") and rep.get("zombie") not in
     {e["tid"] for e in r.find("detach", pid=pid)},
     "ended thread still listed: it was not taken (thread %s)" %
     rep.get("zombie"))
lo, hi = rep.get("mapped", (0, 0))
t.eq(t.history(r.events, lo, hi, pid),
     [("map", (lo, hi), "mmap", pid), ("unmap", (lo, hi), "munmap", pid)],
     "ended thread still listed: the main thread's mmap and munmap logged")
t.no_verify_diffs(r, "ended thread still listed")

# A signal to maptap -c while the command waits in calls that a ptrace
# interrupt would fail with EINTR (epoll_wait, sigtimedwait), the signal
# blocked in the command: the command sees nothing of it.  (The blocking
# wait's first wake-up interrupted every tracee: "epoll Interrupted
# system call", 10 of 10.)
eintr = t.build("t_eintr")
full, jsonfile = t.maptap_argv(["-c", eintr])
mp = subprocess.Popen(full, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE, text=True)
first = mp.stdout.readline()
mp.send_signal(signal.SIGTERM)
r = t.finish(mp, full, jsonfile, timeout=60)
t.eq((first.split()[:1], r.stdout.splitlines(), r.status),
     (["ready"], ["epoll 0", "epoll 0", "sigtimedwait EAGAIN"], 0),
     "SIGTERM to maptap -c, blocked by the command: its waits untouched")

# A signal to maptap -c after the command was reaped while a child of it
# lives on, traced: passed on to that child (before: sent to the reaped
# pid, which another process may have by then, and maptap ran on as long
# as the child lived).
orphan = t.build("t_orphan")
full, jsonfile = t.maptap_argv(["-c", orphan])
mp = subprocess.Popen(full, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE, text=True)
rep = t.reports(mp.stdout.readline() + mp.stdout.readline())
parent, child = rep.get("parent"), rep.get("child")
# maptap, its parent, reaps the command: then its pid is gone
t.wait_until(lambda: parent and not os.path.exists("/proc/%d" % parent),
             what="the command reaped")
mp.send_signal(signal.SIGTERM)
r = t.finish(mp, full, jsonfile, timeout=30)
# dead: gone, or a zombie its new parent (init here) has not reaped
t.eq((r.status, (t.proc_status(child, "State") or "Z")[:1]), (0, "Z"),
     "SIGTERM to maptap -c after the command ended: its child gets it, "
     "maptap ends")

# Attach to a stopped process: it stays stopped until SIGCONT, then runs
# on traced.
tp, pid = start_target(busy)
os.kill(pid, signal.SIGSTOP)
os.waitpid(pid, os.WUNTRACED)
mp, full, jsonfile = start_maptap(["-v", "-x", str(pid)])
# -v's "maptap: events:" line: the attach is complete (every thread
# seized and stopped, the first model read), not merely seized
t.ok(t.wait_attached(mp), "attach while stopped: the attach completes")
os.kill(pid, signal.SIGCONT)
w = os.waitpid(pid, os.WCONTINUED)[1]
t.ok(os.WIFCONTINUED(w), "attach while stopped: SIGCONT resumes it")
out, _ = tp.communicate("go\n", timeout=60)
t.eq((out, tp.returncode), REF,
     "attach while stopped: the target ends as untraced")
r = t.finish(mp, full, jsonfile, timeout=60)
t.eq(r.status, 0, "attach while stopped: maptap ends with the target")
t.ok(r.find("attach", pid=pid) and r.find("exit", pid=pid, tid=pid),
     "attach while stopped: attach and exit logged")
t.no_verify_diffs(r, "attach while stopped")

# ^Z/fg under maptap -c: the target stops, maptap neither exits nor hangs,
# and the target resumes and passes its status through.
full, jsonfile = t.maptap_argv(["-c", busy])
mp = subprocess.Popen(full, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE, text=True)
f = mp.stdout.readline().split()
pid = int(f[1]) if len(f) == 2 else None
t.wait_until(lambda: file_nonempty(jsonfile), what="events in the log")
os.kill(pid, signal.SIGSTOP)
st = t.wait_until(lambda: (lambda s: s if s and set(s.values()) <= {"t", "T"}
                           else None)(t.task_states(pid)),
                  what="every thread stopped")
t.ok(st, "^Z -c: every thread stopped (%s)" % st)
t.ok(mp.poll() is None, "^Z -c: maptap still runs")
os.kill(pid, signal.SIGCONT)
mp.stdin.write("go\n")
mp.stdin.flush()
r = t.finish(mp, full, jsonfile, timeout=60)
t.eq((r.stdout, r.status), REF,
     "fg -c: the target resumes; output and status as untraced")
t.eq(r.find("detach"), [], "^Z/fg -c: no detach")
t.no_verify_diffs(r, "^Z/fg -c")


# SIGINT or SIGTERM sent to maptap -c alone is passed on to the command
# (the filter needs maptap): the status is the command's death by it.
for sig in (signal.SIGINT, signal.SIGTERM):
    full, jsonfile = t.maptap_argv(["-c", busy])
    mp = subprocess.Popen(full, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    f = mp.stdout.readline().split()
    mp.send_signal(sig)
    r = t.finish(mp, full, jsonfile, timeout=60)
    t.eq((f[:1], r.status), (["ready"], 128 + sig),
         "%s to maptap -c: the command dies of it (%d)"
         % (signal.Signals(sig).name, 128 + sig))

# Refused inputs: one line on stderr, status 1.
def refused(args, want, name, prefix=(), env=None):
    r = t.maptap(args, json_out=False, verify=False, timeout=30,
                 prefix=prefix, env=env)
    lines = r.stderr.splitlines()
    good = r.status == 1 and len(lines) == 1 and want in lines[0]
    if not t.ok(good, "refused: %s" % name):
        t.diag("status %s, stderr %r" % (r.status, r.stderr))
    # nothing of the log (not even its header) for a run that never
    # traced anything
    t.eq(r.stdout, "", "refused: %s: no output" % name)
    return r


with open("/proc/sys/kernel/pid_max") as f:
    pid_max = int(f.read())
refused(["-x", str(pid_max + 1)], "no such process", "no such PID")
refused(["-x", "2"], "kernel thread", "kthreadd (pid 2)")
refused(["-c", "/nonexistent/program"], "cannot execute", "missing command")
refused(["-c", "/etc/passwd"], "cannot execute", "a file that is not executable")
refused(["-c", "/"], "cannot execute", "a directory")

# A "#!" script whose interpreter does not exist passes the checks made
# before the fork; its execvp fails in maptap's child.  Status 1 all the
# same, as for every command that cannot be executed (was 127).
bad_interp = os.path.join(t.tmpdir(), "bad-interp.sh")
with open(bad_interp, "w") as f:
    f.write("#!/nonexistent/interpreter\necho hi\n")
os.chmod(bad_interp, 0o755)
r = t.maptap(["-c", bad_interp], json_out=False, verify=False, timeout=30)
t.eq((r.status, [l for l in r.stderr.splitlines() if "cannot execute" in l
                 and bad_interp in l] != []),
     (1, True), "refused: a script whose interpreter does not exist: "
     "status 1 and why")
refused(["-c", busy, "-x", "1"], "cannot be used together", "-c and -x")

# A zombie: our child that has exited and is not reaped yet.
z = subprocess.Popen(["true"])
t.wait_until(lambda: t.task_states(z.pid).get(z.pid) == "Z", what="a zombie")
refused(["-x", str(z.pid)], "zombie", "a zombie")
t.eq(z.wait(timeout=10), 0, "refused zombie: still reaped with its status")

# A thread id rather than a process id.
tp, pid = start_target(busy)
tids = sorted(x for x in t.task_states(pid) if x != pid)
refused(["-x", str(tids[0])], "give the process id", "a thread id")

# Permission denied: maptap as user nobody on our (root's) process.
setpriv = shutil.which("setpriv")
if os.geteuid() == 0 and setpriv:
    refused(["-x", str(pid)], "permission denied", "permission denied",
            prefix=[setpriv, "--reuid=65534", "--regid=65534",
                    "--clear-groups"])
else:
    t.skip("permission denied: needs root and setpriv")

# Maps that cannot be read (root, a sandbox's pid 1 of another user
# namespace), where perf_event_open succeeds: perf mode logged an attach,
# a "detach error" and the log's header before its error line (a fresh
# helper's finding).  A shim makes maptap's open of the maps fail.
nomaps = t.build("t_nomaps", shared=True)
env = dict(os.environ, LD_PRELOAD=nomaps, MT_NOMAPS_PID=str(pid))
env["ASAN_OPTIONS"] = ":".join(
    o for o in (os.environ.get("ASAN_OPTIONS"), "verify_asan_link_order=0")
    if o)
for events in ("ptrace", "perf"):
    if events == "perf" and t.perf_unavailable():
        t.skip("maps unreadable, perf: perf mode not available here")
        continue
    refused(["--events=" + events, "-x", str(pid)],
            "cannot read the maps of process %d" % pid,
            "maps unreadable (%s)" % events, env=env)
    t.eq(t.tracer_pid(pid), 0, "maps unreadable (%s): the target is not "
         "left traced" % events)

# Already traced: a second maptap names the first.
mp, full, jsonfile = start_maptap(["-x", str(pid)], verify=False)
t.wait_until(lambda: t.tracer_pid(pid) == mp.pid, what="the first maptap")
refused(["-x", str(pid)], "already traced by process %d" % mp.pid,
        "a process already traced")
mp.send_signal(signal.SIGINT)
r = t.finish(mp, full, jsonfile, timeout=60)
t.eq(r.status, 0, "refused already traced: the first maptap detaches")
out, _ = tp.communicate("go\n", timeout=60)
t.eq((out, tp.returncode), REF,
     "refused already traced: the target ends as untraced")
t.done()
