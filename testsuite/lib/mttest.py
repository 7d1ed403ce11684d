"""mttest -- helpers for maptap's system tests (TAP output).

A system test builds its small target programs at test time with the
system compiler ($CC), runs the maptap program on them with --json and
--verify, and checks the events.  Every check is one TAP line, so the
testsuite's summary counts cases, not files.

Environment (set by `make check`): top_srcdir, top_builddir, CC.
"""
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time

SRCDIR = os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__), "..", ".."))
BUILDDIR = os.environ.get("top_builddir", os.path.join(SRCDIR, "build"))
MAPTAP = os.path.join(BUILDDIR, "maptap")
CC = os.environ.get("CC", "cc").split()
TARGETS = os.path.join(SRCDIR, "testsuite", "targets")

_n = 0
_failed = 0
_tmp = tempfile.mkdtemp(prefix="maptap-test-")


def tmpdir():
    return _tmp


def ok(cond, name):
    """Report one case; returns COND."""
    global _n, _failed
    _n += 1
    if not cond:
        _failed += 1
    print("%sok %d - %s" % ("" if cond else "not ", _n, name), flush=True)
    return bool(cond)


def skip(reason):
    global _n
    _n += 1
    print("ok %d # SKIP %s" % (_n, reason), flush=True)


def diag(text):
    for line in str(text).splitlines() or [""]:
        print("# " + line, flush=True)


def eq(got, want, name):
    if not ok(got == want, name):
        diag("got:  %r" % (got,))
        diag("want: %r" % (want,))
        return False
    return True


def done():
    print("1..%d" % _n, flush=True)
    subprocess.run(["rm", "-rf", _tmp])
    sys.exit(1 if _failed else 0)


def build(name, *extra, shared=False, out=None):
    """Compile testsuite/targets/NAME.c into the test's temporary
    directory and return the path of the result."""
    src = os.path.join(TARGETS, name + ".c")
    out = out or os.path.join(_tmp, name + (".so" if shared else ""))
    cmd = CC + ["-O0", "-g", "-o", out, src]
    if shared:
        cmd += ["-shared", "-fPIC"]
    cmd += ["-pthread", "-ldl"] + list(extra)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode != 0:
        diag(" ".join(cmd))
        diag(r.stdout)
        raise SystemExit("cannot build target %s" % name)
    return out


class Run:
    """One finished maptap run: its events, output and exit status."""

    def __init__(self, args, proc, out, err, jsonfile):
        self.args = args
        self.status = proc.returncode
        self.stdout = out
        self.stderr = err
        self.events = []
        self.bad_lines = []
        if jsonfile and os.path.exists(jsonfile):
            with open(jsonfile, "rb") as f:
                for line in f:
                    try:
                        self.events.append(json.loads(line))
                    except ValueError:
                        self.bad_lines.append(line)

    def verify_diffs(self):
        return [l for l in self.stderr.splitlines() if "verify:" in l]

    def find(self, event=None, **fields):
        """Events whose kind is EVENT and whose fields equal FIELDS; a
        field given as a callable is a predicate on the value."""
        res = []
        for e in self.events:
            if event and e.get("event") != event:
                continue
            good = True
            for k, v in fields.items():
                if callable(v):
                    if not v(e.get(k)):
                        good = False
                        break
                elif e.get(k) != v:
                    good = False
                    break
            if good:
                res.append(e)
        return res

    def range_events(self, pid=None):
        kinds = ("map", "unmap", "protect", "replace", "move", "rename",
                 "grow", "shrink")
        return [e for e in self.events if e["event"] in kinds and
                (pid is None or e["pid"] == pid)]


def maptap(args, timeout=120, json_out=True, verify=True, stdin=None,
           env=None):
    """Run maptap ARGS (a list) with --json to a file and --verify; return
    a Run."""
    jsonfile = None
    full = [MAPTAP]
    if json_out:
        jsonfile = os.path.join(_tmp, "events-%d.jsonl" % time.monotonic_ns())
        full += ["--json", "-o", jsonfile]
    if verify:
        full += ["--verify"]
    full += list(args)
    p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=stdin if stdin is not None else subprocess.DEVNULL,
                         text=True, env=env, errors="replace")
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        diag("maptap timed out: %s" % " ".join(map(shlex.quote, full)))
    return Run(full, p, out, err, jsonfile)


def hexint(s):
    return int(s, 16)


def replay(events, pid):
    """Apply the range events of PID, in order, to a page map and return
    {page_start: (perms, path or name, offset at page)}: what a log says
    the address space is."""
    pages = {}
    for e in events:
        if e.get("pid") != pid:
            continue
        kind = e["event"]
        if kind == "exec":
            pages = {}
            continue
        if kind not in ("map", "unmap", "protect", "replace", "move",
                        "rename", "grow", "shrink"):
            continue
        start, end = hexint(e["start"]), hexint(e["end"])
        if kind in ("move", "grow", "shrink"):
            old = e["old"]
            for a in range(hexint(old["start"]), hexint(old["end"]), 4096):
                pages.pop(a, None)
        if kind == "unmap":
            for a in range(start, end, 4096):
                pages.pop(a, None)
            continue
        off = hexint(e["offset"])
        label = e["path"] if e["path"] is not None else (e["name"] or "")
        for a in range(start, end, 4096):
            pages[a] = (e["perms"], label,
                        off + (a - start) if e["path"] is not None else 0)
    return pages
