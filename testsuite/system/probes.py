#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""probes.py -- probe points on traced processes (docs/probes.md): the
order of process.begin/end/thread.begin/thread.end for a fork+exec, a
plain exec and an exec from a thread of a private copy of a program;
process("PATH") and process(PID) filters; $argN/$$parms/$return of a
raw system call with 64-bit patterns, also of a number the table does
not know; -c's exit status; -x detaching when the script calls exit();
and the refusal of process probes without a target.
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t

prog = t.build("t_lifetime")
copy = os.path.join(t.tmpdir(), "t_copy")
shutil.copy(prog, copy)
texec = t.build("t_thread_exec")

LIFE = r'''
probe process.begin { printf("begin %d %s\n", pid(), execname()) }
probe process.end { printf("end %d\n", pid()) }
probe process.thread.begin { printf("thread.begin %d %d\n", pid(), tid()) }
probe process.thread.end { printf("thread.end %d %d\n", pid(), tid()) }
'''


def script_run(script, args, timeout=120):
    """maptap ARGS -e SCRIPT with the script's output in a file of its
    own (the target keeps stdout); returns (Run, the script's lines)."""
    out = os.path.join(t.tmpdir(), "script-%d.out" % len(os.listdir(
        t.tmpdir())))
    r = t.maptap(["-o", out] + list(args) + ["-e", script],
                 json_out=False, verify=False, timeout=timeout)
    lines = []
    if os.path.exists(out):
        with open(out) as f:
            lines = f.read().splitlines()
    if r.stderr:
        t.diag(r.stderr)
    return r, lines


def renumber(lines):
    """Replace pids/tids by P1, P2, ... in order of appearance."""
    names = {}

    def sub(m):
        n = m.group(0)
        if n not in names:
            names[n] = "P%d" % (len(names) + 1)
        return names[n]
    return [re.sub(r"\b\d{2,}\b", sub, l) for l in lines]


# A fork whose child execs: the parent begins, the forked child begins
# (same image), its old image ends at the exec before the new one
# begins, the new image ends, then the parent.
r, lines = script_run(LIFE, ["-c", prog + " forkexec"])
t.eq(renumber(lines), [
    "begin P1 t_lifetime",
    "begin P2 t_lifetime",
    "end P2",
    "begin P2 exe",
    "end P2",
    "end P1"], "fork+exec: begin/end order")
t.eq(r.status, 0, "fork+exec: exit status")

# A plain exec: end of the old image, begin of the new, same pid.
r, lines = script_run(LIFE, ["-c", prog + " exec"])
t.eq(renumber(lines), ["begin P1 t_lifetime", "end P1", "begin P1 exe",
                       "end P1"], "plain exec: begin/end order")
t.eq(r.status, 3, "plain exec: -c gives the command's exit status")

# A thread that exits: thread.begin and thread.end with its own tid.
r, lines = script_run(LIFE, ["-c", prog + " thread"])
t.eq(renumber(lines), ["begin P1 t_lifetime", "thread.begin P1 P2",
                       "thread.end P1 P2", "end P1"],
     "thread: begin/end order")

# An exec from a thread that is not the leader, of a private copy: the
# thread begins, the old image ends, the new image begins under the
# leader's pid (execve(2)), then ends.
maps = os.path.join(t.tmpdir(), "texec.maps")
r, lines = script_run(LIFE, ["-c", "%s %s" % (texec, maps)])
t.eq(renumber(lines), ["begin P1 t_thread_exec", "thread.begin P1 P2",
                       "end P1", "begin P1 exe", "end P1"],
     "exec from a thread: begin/end order")
t.eq(r.status, 5, "exec from a thread: exit status")

# process("PATH"): the copy's begin only for the image exec'd from it;
# the original's end for the parent and for the child's first image.
script = r'''
probe process("%s").begin { printf("copy.begin %%d %%s\n", pid(), pp()) }
probe process("%s").end { printf("orig.end %%d\n", pid()) }
''' % (copy, prog)
r, lines = script_run(script, ["-c", "%s forkexec %s" % (prog, copy)])
real = os.path.realpath(copy)
t.eq(renumber(lines), ["orig.end P1",
                       'copy.begin P1 process("%s").begin' % real,
                       "orig.end P2"], "process(PATH) filters by executable")

# A bare name is searched in PATH, and pp() names the resolved path.
env_path = os.path.dirname(copy) + ":" + os.environ.get("PATH", "")
r = t.maptap(["-p2", "-c", "true", "-e",
              'probe process("t_copy").begin { }'], json_out=False,
             verify=False, env=dict(os.environ, PATH=env_path))
t.ok('process("%s").begin' % real in r.stdout,
     "process(NAME) is searched in PATH, pp() shows the path")

# process(PID) with -x: the target's system calls, not its child's.
tp = subprocess.Popen([prog, "wait", "forkexec"], stdin=subprocess.PIPE,
                      stdout=subprocess.PIPE, text=True)
pid = int(tp.stdout.readline().split()[1])
script = r'''
global calls
probe process(%d).syscall { calls[pid()]++ }
probe process(%d).begin { println("begin ", pid() == target()) }
probe process.end { if (pid() == target()) exit() }
probe end { foreach (p in calls) println("calls ", p == target()) }
''' % (pid, pid)
out = os.path.join(t.tmpdir(), "pidfilter.out")
full, _ = t.maptap_argv(["-o", out, "-x", str(pid), "-e", script],
                        json_out=False, verify=False)
mp = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                      text=True)
t.wait_until(lambda: t.tracer_pid_tid(pid, pid) == mp.pid,
             what="target seized")
tp.stdin.write("go\n")
tp.stdin.close()
st = tp.wait(timeout=120)
r = t.finish(mp, full, None)
with open(out) as f:
    lines = f.read().splitlines()
t.eq(lines, ["begin 1", "calls 1"], "process(PID): only that process")
t.eq(st, 0, "process(PID): the target ran to its end")
t.eq(r.status, 0, "-x: exit status 0")

# $argN, $$parms and $return of a known call (getpid, its arguments
# ignored) and of a number no table knows, entry and return.
script = r'''
probe process.syscall, maptap.syscall(500) {
	if ($syscall == 39 || $syscall == 500)
		printf("%s %d %x %x %x %x %x %x %s\n", pp(), $syscall, $arg1,
		       $arg2, $arg3, $arg4, $arg5, $arg6, $$parms)
}
probe process.syscall.return, maptap.syscall(500).return {
	if ($syscall == 39 || $syscall == 500)
		printf("%s %d %d %d %d\n", pp(), $syscall, $return,
		       $return == pid(), is_return())
}
'''
r, lines = script_run(script, ["-c", prog + " rawcall 39"])
args = ("123456789abcdef fedcba9876543210 8000000000000000 "
        "ffffffffffffffff 7fffffffffffffff 5555aaaa5555aaaa")
parms = ("arg1=0x123456789abcdef arg2=0xfedcba9876543210 "
         "arg3=0x8000000000000000 arg4=0xffffffffffffffff "
         "arg5=0x7fffffffffffffff arg6=0x5555aaaa5555aaaa")
pid = int(re.search(r"ret 39 (\d+)", r.stdout).group(1)) \
    if "ret 39" in r.stdout else 0
t.eq(lines, [
    "process.syscall 39 %s %s" % (args, parms),
    "process.syscall.return 39 %d 1 1" % pid,
    "process.syscall 500 %s %s" % (args, parms),
    'maptap.syscall(500) 500 %s %s' % (args, parms),
    "process.syscall.return 500 -38 0 1",
    "maptap.syscall(500).return 500 -38 0 1"],
    "64-bit arguments and return values round-trip, known and unknown")

# exit() with -c: end probes run, the command is ended, status 0.
r, lines = script_run('probe process.begin { exit() } '
                      'probe end { println("end") }',
                      ["-c", prog + " wait exit 9"])
t.eq((lines, r.status), (["end"], 0), "-c: exit() ends the run and command")

# -x: exit() detaches; the target runs on untraced and ends normally.
tp = subprocess.Popen([prog, "wait", "forkexec"], stdin=subprocess.PIPE,
                      stdout=subprocess.PIPE, text=True)
pid = int(tp.stdout.readline().split()[1])
r, lines = script_run('probe process.begin { println("attached") exit() }',
                      ["-x", str(pid)])
t.eq((lines, r.status), (["attached"], 0), "-x: exit() ends the run")
t.eq(t.tracer_pid_tid(pid, pid), 0, "-x: detached after exit()")
tp.stdin.write("go\n")
tp.stdin.close()
t.eq(tp.wait(timeout=120), 0, "-x: the target ends normally after detach")

# No target: refused at pass 2 with one message.
r = t.maptap(["-e", "probe process.begin { }"], json_out=False,
             verify=False)
t.ok(r.status == 1 and "needs a target process: give -c CMD or -x PID"
     in r.stderr and "Pass 2: analysis failed" in r.stderr,
     "process probe without -c/-x: refused at pass 2")

# A $var the point does not have: stap's messages.
r = t.maptap(["-p2", "-c", "true", "-e",
              "probe process.syscall { println($return) }"],
             json_out=False, verify=False)
t.ok(r.status == 1 and 'only "process(PATH_OR_PID).syscall.return" '
     'support $return.' in r.stderr, "$return refused in an entry probe")
r = t.maptap(["-p2", "-c", "true", "-e",
              "probe maptap.vma.map { println($nosuch) }"],
             json_out=False, verify=False)
t.ok(r.status == 1 and "unable to find local 'nosuch'" in r.stderr,
     "unknown $var of an event probe refused")

t.done()
