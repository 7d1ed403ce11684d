#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""output.py -- maptap's output on a pipe it shares with its command
(maptap(1), OUTPUT).

Two faults users found, one kind (the command does things to the pipe
maptap writes its log to):
- `maptap --json -c 'node ...' | jq .` lost most of the log: node sets
  O_NONBLOCK on its stdout, the file description maptap writes to as
  well, and maptap took the EAGAIN of a full pipe for a failure ("cannot
  write the output: Resource temporarily unavailable") and dropped the
  rest.  A slow reader must lose nothing, whatever the command does;
- `maptap -c CMD | head -1`: the reader goes away.  maptap must not die
  of it, nor let the command die of it where it would not untraced: it
  says so once, traces on, and exits with the command's status; the
  command gets SIGPIPE exactly when it writes to the pipe after the
  reader has gone, as untraced.

Nothing here waits for time: the reader holds off until maptap can be
seen waiting for room (or has given up on the output), and a timeout
only bounds a failure.
"""
import fcntl
import json
import os
import signal
import subprocess
import sys
import termios
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t

prog = t.build("t_nonblock")
F_SETPIPE_SZ = 1031	# <linux/fcntl.h>
PIPE_BUF = 4096
ROUNDS = 2000		# 4000 events, about 1 MB of JSON: many pipes full
LINES = 3000
page = os.sysconf("SC_PAGESIZE")


def in_pipe(fd):
    return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4),
                          sys.byteorder)


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def start(args, pre=None):
    """maptap ARGS with stdout on a fresh pipe of 64 KiB: (Popen, read
    end, the pipe's capacity, the stderr lines as they come)."""
    rd, wr = os.pipe()
    cap = fcntl.fcntl(wr, F_SETPIPE_SZ, 65536)
    p = subprocess.Popen([t.MAPTAP] + args, stdout=wr, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, preexec_fn=pre)
    os.close(wr)
    err = []
    th = threading.Thread(target=lambda: err.extend(p.stderr))
    th.daemon = True
    th.start()
    return p, rd, cap, err, th


def finish(p, th, timeout=120):
    try:
        status = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        t.diag("maptap timed out")
        p.kill()
        status = p.wait()
    th.join(timeout=30)
    return status if status >= 0 else 128 - status


# 1. The command sets O_NONBLOCK on the stdout it shares with maptap, and
# the reader is slower than maptap: it lets the pipe fill and reads only
# once maptap is seen waiting (maptap asleep with the command held in a
# stop and output in the pipe, three looks in a row: maptap sleeps with
# a stop not taken only while it waits for room) or has said it gave up.
p, rd, cap, err, th = start(["--json", "-o", "-", "-c", "%s storm %d %d" %
                             (prog, ROUNDS, LINES)])


def maptap_waits():
    kids = children(p.pid)
    # Not a byte count: a pipe is full when its slots (pages) are, and
    # a write that does not fit the last page's room takes a new one.
    return (in_pipe(rd) > 0 and len(kids) == 1 and
            t.task_states(kids[0]).get(kids[0]) == "t" and
            t.task_states(p.pid).get(p.pid) == "S")


seen = 0
deadline = time.monotonic() + 60
while seen < 3 and not err and p.poll() is None and \
        time.monotonic() < deadline:
    seen = seen + 1 if maptap_waits() else 0
    time.sleep(0.01)
t.ok(seen == 3, "O_NONBLOCK: maptap waits for room in the full pipe")
out = b""
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    chunk = os.read(rd, PIPE_BUF)	# a slow reader: a page, a pause
    if not chunk:
        break
    out += chunk
    time.sleep(0.001)
os.close(rd)
status = finish(p, th)
events, mine, other = [], [], []
for line in out.decode(errors="replace").splitlines():
    if line.startswith("{"):
        try:
            events.append(json.loads(line))
            continue
        except ValueError:
            pass
    (mine if line.startswith("t_nonblock ") else other).append(line)
pid = events[0].get("pid") if events else None
size = lambda e: int(e["end"], 16) - int(e["start"], 16)
maps = [e for e in events if e["event"] == "map" and e["pid"] == pid and
        size(e) == 5 * page]
unmaps = [e for e in events if e["event"] == "unmap" and e["pid"] == pid and
          size(e) == 5 * page]
t.eq((status, b"".join(err).decode()), (0, ""),
     "O_NONBLOCK: exit 0, nothing on stderr")
t.eq((len(maps), len(unmaps)), (ROUNDS, ROUNDS),
     "O_NONBLOCK: every map and unmap of the storm is logged")
t.eq(mine, ["t_nonblock %d" % i for i in range(LINES)],
     "O_NONBLOCK: every line of the command, in order")
t.eq((other, events[-1]["event"] if events else None), ([], "exit"),
     "O_NONBLOCK: no torn line, the log ends with the exit")

# 2. The reader takes one line and goes; the command writes nothing.
# Untraced it exits 7; traced, maptap's own writes fail with EPIPE: it
# must say so once, trace on to the end (the command checks it is still
# traced) and exit with the command's status.
u = subprocess.run("%s quiet %d 7 | head -1; exit ${PIPESTATUS[0]}" %
                   (prog, ROUNDS), shell=True, executable="/bin/bash",
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
p, rd, cap, err, th = start(["--json", "-o", "-", "-c", "%s quiet %d 7" %
                             (prog, ROUNDS)])
with os.fdopen(rd, "rb") as f:
    first = f.readline()
status = finish(p, th)
lost = [l for l in err if b"cannot write the output" in l]
t.ok(first.startswith(b"{"), "reader gone: it read the log's first line")
t.eq((u.returncode, u.stderr), (7, b"tracer 0\n"), "untraced: exit 7")
t.eq((status, len(lost), err[-1:]), (7, 1, [b"tracer %d\n" % p.pid]),
     "reader gone: maptap says so once, traces on to the end, exits 7 "
     "as the command does untraced")
if len(err) != 2:
    t.diag(b"".join(err).decode())

# 3. The command writes after the reader has gone: SIGPIPE ends it, as
# untraced; started with SIGPIPE ignored, it gets EPIPE instead, as
# untraced.  maptap's exit status is the command's either way.
ign = lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN)
for name, pre in (("SIGPIPE default", None), ("SIGPIPE ignored", ign)):
    u = subprocess.Popen([prog, "speak"], stdout=subprocess.PIPE,
                         preexec_fn=pre)
    u.stdout.readline()
    u.stdout.close()
    ustatus = u.wait(timeout=60)
    ustatus = ustatus if ustatus >= 0 else 128 - ustatus
    p, rd, cap, err, th = start(["-o", "-", "-c", "%s speak" % prog], pre)
    with os.fdopen(rd, "rb") as f:
        while True:	# the log's lines, then the command's
            line = f.readline()
            if not line or line == b"first\n":
                break
    status = finish(p, th)
    t.eq((status, ustatus in (141, 128 + 32)), (ustatus, True),
         "%s: the command's write after the reader left ends as "
         "untraced (%d)" % (name, ustatus))

# 4. By default maptap's own output goes to stderr (maptap(1), OUTPUT):
# `maptap -c CMD | head -1` gives head the command's first line, and the
# command ends as untraced (before, head took the log's first line and
# left, and the command died of SIGPIPE: 141 where untraced gives 7).
cmd = "sh -c 'echo one; exit 7'"
pipe = "%s | head -1; exit ${PIPESTATUS[0]}"
u = subprocess.run(pipe % cmd, shell=True, executable="/bin/bash",
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
m = subprocess.run(pipe % ("%s -c \"%s\"" % (t.MAPTAP, cmd)), shell=True,
                   executable="/bin/bash", stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, timeout=120)
t.eq((m.returncode, m.stdout), (u.returncode, u.stdout),
     "default: CMD | head -1 gets the command's line and status (%d), "
     "as untraced" % u.returncode)
lines = m.stderr.decode(errors="replace").splitlines()
t.ok(len(lines) > 2 and "EVENT" in lines[0] and " exec " in lines[1] and
     "exit status 7" in lines[-1], "default: the log is on stderr")
t.done()
