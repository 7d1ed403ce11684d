#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""programs.py -- real programs and the log formats: ls -l, python3 -c
'import json', shell pipelines, the demo; the text log (a header, one
line an event, the same events as JSON); JSON for file names that are
hard to print; --maps=text and --maps=query giving the same log.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t


def same_as_untraced(cmd, name, filt=lambda s: s, shell=False):
    argv = ["/bin/sh", "-c", cmd] if shell else shlex.split(cmd)
    code, out = t.untraced(argv)
    r = t.maptap(["-c", cmd])
    t.eq((r.status, filt(r.stdout)), (code, filt(out.decode())),
         "%s: same status (%d) and output as untraced" % (name, code))
    t.no_verify_diffs(r, name)
    t.ok(r.events and not r.bad_lines, name + ": a well-formed log")
    return r


# ls -l of a directory nothing changes while the tests run.  (Not "/":
# /proc's link count is the number of processes, and when it gains a
# digit between the traced and the untraced run every column of ls -l
# widens, so leaving its line out was not enough.)
same_as_untraced("ls -l /usr/bin", "ls -l /usr/bin")
py = shutil.which("python3", path="/usr/bin:/bin") or "python3"
same_as_untraced(py + " -c 'import json'", "python3 -c 'import json'")
r = same_as_untraced("ls / | sort -r | head -3", "pipeline ls|sort|head",
                     shell=True)
t.ok(len({e["pid"] for e in r.find("exec")}) >= 3,
     "pipeline: each command's exec is logged")
same_as_untraced("seq 1 2000 | sort -rn | tail -1; exit 4",
                 "pipeline seq|sort|tail; exit 4", shell=True)

# The demo: exec, fork, protect and move events.  Built here, next to its
# child, without the sanitizers a --enable-sanitizers tree adds to its own
# build (LeakSanitizer under ptrace: see procs.py, CLONE_UNTRACED).
demo = t.build("demo")
t.build("demo-child")
if os.path.exists(demo):
    r = t.maptap(["-c", demo])
    t.eq(r.status, 0, "demo: exit status 0")
    t.no_verify_diffs(r, "demo")
    execs = [os.path.basename(e["exe"]) for e in r.find("exec")]
    t.eq(execs, ["demo", "demo-child"], "demo: exec of demo, then demo-child")
    t.eq(len(r.find("fork")), 1, "demo: one fork")
    forks = r.find("fork")
    child = forks[0]["child"] if forks else None
    t.ok(r.find("map", pid=child, syscall="mmap"), "demo: the child's own mmap")
    t.ok(r.find("protect", syscall="mprotect", perms="r--p"),
         "demo: the mprotect of the 2nd page")
    t.eq(len(r.find("move", syscall="mremap")), 1, "demo: one move")
    osr = lambda p: p is not None and p.endswith("os-release")
    t.ok(r.find("map", path=osr, syscall="mmap") and
         r.find("unmap", path=osr, syscall="munmap"),
         "demo: os-release mapped and unmapped")
else:
    t.skip("demo is not built (make testsuite/targets/demo)")

# The text log: a header, then one line an event, the same events as the
# JSON log of the same deterministic run (ASLR off: setarch -R).
prog = t.build("t_maps")
maps = os.path.join(t.tmpdir(), "fmt.maps")
cmd = "%s mprotect %s" % (prog, maps)
setarch = shutil.which("setarch")
norand = [setarch, "-R"] if setarch else []
textfile = os.path.join(t.tmpdir(), "log.txt")
p = subprocess.run(norand + [t.MAPTAP, "-o", textfile, "-c", cmd],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
with open(textfile, "rb") as f:
    lines = f.read().decode("utf-8", "replace").split("\n")
t.eq(lines[-1], "", "text log: ends with a newline")
lines = lines[:-1]
t.ok(re.match(r"^\s+TIME\s+PID/TID\s+EVENT\s+RANGE\s+PERM\s+OFFSET\s+PATH/NAME",
              lines[0]), "text log: header line")
line_re = re.compile(r"^\s*\d+\.\d{6} (\d+)/(\d+)\s+([a-z_]+)\s+(.*)$")
parsed = [line_re.match(l) for l in lines[1:]]
t.ok(parsed and all(parsed), "text log: every line is TIME PID/TID EVENT ...")
rj = t.maptap(["-c", cmd], verify=False, prefix=norand)
text_events = [(m.group(3), m.group(4).split()[0]) for m in parsed if m]
json_events = [(e["event"], "%016x-%016x" % t.span(e))
               for e in rj.events if "start" in e]
t.eq([x for x in text_events if "-" in x[1] and len(x[1]) == 33],
     json_events, "text log: the same range events as JSON (ASLR off)"
     if norand else "text log: the same range events as JSON")
t.eq([x[0] for x in text_events], [e["event"] for e in rj.events],
     "text log: one line per event")

# JSON for file names: spaces, a newline (shown as /proc/PID/maps shows
# it, \012), bytes that are not UTF-8 (\u00XX), a real name ending in
# " (deleted)", and a deleted file.
prog = t.build("t_names")
d = os.path.join(t.tmpdir(), "names")
os.mkdir(d)
maps = os.path.join(t.tmpdir(), "names.maps")
want = [d + "/with space", d + "/new\\012line", d + "/bad\u00ff\u00feutf8",
        d + "/real (deleted)", d + "/gone (deleted)"]
logs = {}
for src in ("text", "query"):
    r = t.maptap(["--maps=" + src, "-c", "%s %s %s" % (prog, d, maps)])
    name = "odd names --maps=%s" % src
    t.eq(r.status, 0, name + ": exit status 0")
    t.no_verify_diffs(r, name)
    with open(r.args[r.args.index("-o") + 1], "rb") as f:
        raw = f.read()
    try:
        raw.decode("utf-8")
        good = all(json.loads(l) is not None for l in raw.splitlines())
    except ValueError:
        good = False
    t.ok(good and not r.bad_lines, name + ": every line is valid UTF-8 JSON")
    rep = t.reports(r.stdout)
    got = []
    for i in range(len(want)):
        lo, hi = rep.get("file-%d" % i, (0, 0))
        ev = r.find("map", start=hex(lo), end=hex(hi))
        got.append(ev[0]["path"] if ev else None)
    t.eq(got, want, name + ": paths byte for byte")
    logs[src] = r

# --maps=text and --maps=query: the same log, times and pids aside, for
# the same deterministic run (ASLR off).
def normal(r):
    pids = {}
    res = []
    for e in r.events:
        e = dict(e)
        for k in ("pid", "tid", "child", "former_tid"):
            if k in e:
                e[k] = pids.setdefault(e[k], len(pids))
        e.pop("time_ns", None)
        res.append(json.dumps(e, sort_keys=True))
    return res


if norand:
    prog = t.build("t_fork")
    runs = {}
    for src in ("text", "query"):
        maps = os.path.join(t.tmpdir(), "src-%s.maps" % src)
        runs[src] = t.maptap(["--maps=" + src, "-c",
                              "%s fork %s" % (prog, maps)], prefix=norand)
        t.no_verify_diffs(runs[src], "--maps=%s" % src)
    a, b = normal(runs["text"]), normal(runs["query"])
    if not t.ok(a == b and len(a) > 20, "--maps=text and --maps=query: "
                "the same log (%d events)" % len(a)):
        for x, y in zip(a, b):
            if x != y:
                t.diag("text:  " + x)
                t.diag("query: " + y)
                break
else:
    t.skip("setarch is not installed: runs are not deterministic")
t.done()
