#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""launch_calls.py -- system calls of a launched command as stap shows
them (docs/probes.md):

  1. with -c CMD, syscall.execve sees the command's own execve (and the
     tries of execvp's PATH search before it), and its return;
  2. syscall_any / syscall_any.return: name and syscall_nr of every call,
     in the order strace(1) sees them, retval as the call returned;
  3. maptap's own calls before the exec (the child's set-up) stay
     unseen.
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t  # noqa: E402


def run(script, cmd, env=None):
    r = subprocess.run([t.MAPTAP, "-c", cmd, "-e", script],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=300, env=env)
    if r.returncode:
        t.diag(r.stderr)
    return r


TRUE = os.path.realpath(shutil.which("true"))

# 1. the command's own execve
r = run('probe syscall.execve { if (pid() == target()) println(filename) }',
        TRUE)
t.eq((r.returncode, r.stdout), (0, '"%s"\n' % TRUE),
     "-c %s: syscall.execve prints the command's own execve" % TRUE)
r = run('probe syscall.execve.return { if (pid() == target()) '
        'println(retstr) }', TRUE)
t.eq(r.stdout, "0\n", "syscall.execve.return: 0 for the exec that worked")
env = dict(os.environ, PATH="/nonexistent-dir:" + os.path.dirname(TRUE))
r = run('probe syscall.execve { println(filename) }\n'
        'probe syscall.execve.return { println(retstr) }',
        os.path.basename(TRUE), env=env)
t.eq(r.stdout.splitlines(), ['"/nonexistent-dir/true"', "-2 (ENOENT)",
                             '"%s"' % (os.path.join(os.path.dirname(TRUE),
                                                    "true")), "0"],
     "a bare name: execvp's failed try of the PATH, then the exec")

# 2. syscall_any against strace
r = run('probe syscall_any { if (pid() == target()) '
        'printf("%s %d\\n", name, syscall_nr) }', TRUE)
mine = r.stdout.splitlines()
if not shutil.which("strace"):
    t.skip("no strace")
else:
    st = subprocess.run(["strace", "-qq", "-e", "trace=all",
                         "-e", "signal=none", "-o", "/dev/stdout", TRUE],
                        stdout=subprocess.PIPE, text=True).stdout
    names = [l.split("(")[0] for l in st.splitlines() if "(" in l]
    t.eq([l.split()[0] for l in mine], names,
         "syscall_any: the calls of %s in strace's order (%d)"
         % (TRUE, len(names)))
nrs = {l.split()[0]: int(l.split()[1]) for l in mine}
t.eq((nrs.get("execve"), nrs.get("exit_group"), nrs.get("close")),
     (59, 231, 3), "syscall_any: syscall_nr is the x86-64 number")
r = run('global n, ok\n'
        'probe syscall_any.return { if (pid() == target()) {\n'
        '  n++; ok += (name == "close" && retval == 0) } }\n'
        'probe end { printf("%d %d\\n", n, ok) }', TRUE)
n, ok = map(int, r.stdout.split())
t.eq((n, ok), (len(mine) - 1, mine.count("close 3")),
     "syscall_any.return: every call but exit_group returns; close "
     "returns 0")
t.done()
