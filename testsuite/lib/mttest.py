# SPDX-License-Identifier: GPL-2.0-or-later
"""mttest -- helpers for maptap's system tests (TAP output).

A system test builds its small target programs at test time with the
system compiler ($CC), runs the maptap program on them with --json and
--verify, and checks the events.  Every check is one TAP line, so the
testsuite's summary counts cases, not files.

Environment (set by `make check`): top_srcdir, top_builddir, CC, and
MAPTAP_TAPSET, the source tree's tapsets/ (the program knows only the
installed ones); each defaults from this file's place when run by hand.
MT_TEST_EVENTS (ptrace, perf or auto; ptrace when unset) is the event
source every -x and -c run asks for (--events): perfmode.py runs the
event-stream tests again with perf.
"""
import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time

SRCDIR = os.environ.get("top_srcdir",
                        os.path.join(os.path.dirname(__file__), "..", ".."))
BUILDDIR = os.environ.get("top_builddir", os.path.join(SRCDIR, "build"))
MAPTAP = os.path.join(BUILDDIR, "maptap")
os.environ.setdefault("MAPTAP_TAPSET", os.path.join(SRCDIR, "tapsets"))
CC = os.environ.get("CC", "cc").split()
TARGETS = os.path.join(SRCDIR, "testsuite", "targets")

# The programs a test starts get SIGINT's and SIGHUP's default actions,
# whatever the test was started with: a harness run in the background (a
# non-interactive shell's "make check &", some CI runners) starts every
# process with SIGINT ignored, one run under nohup(1) with SIGHUP ignored
# (signals.py's early death by SIGHUP then waited 60 s for a command
# that did not die), and maptap, as any program, passes that on to its
# command.  Tests that want one ignored set it themselves.
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGHUP, signal.SIG_DFL)

EVENTS = os.environ.get("MT_TEST_EVENTS", "ptrace")

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


def todo(cond, name, reason):
    """A case known to fail (TAP "# TODO": counted as an expected failure,
    or an unexpected pass once fixed); returns COND."""
    global _n
    _n += 1
    print("%sok %d - %s # TODO %s" % ("" if cond else "not ", _n, name,
                                      reason), flush=True)
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


def build(name, *extra, shared=False, out=None, must=True):
    """Compile testsuite/targets/NAME.c into the test's temporary
    directory and return the path of the result (None when it cannot be
    built and not MUST)."""
    src = os.path.join(TARGETS, name + ".c")
    out = out or os.path.join(_tmp, name + (".so" if shared else ""))
    cmd = CC + ["-O0", "-g", "-o", out, src]
    if shared:
        cmd += ["-shared", "-fPIC"]
    cmd += ["-pthread", "-ldl"] + list(extra)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode != 0:
        if not must:
            return None
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


def maptap_argv(args, json_out=True, verify=True):
    """The full command line of maptap ARGS and the JSON file it writes."""
    jsonfile = None
    full = [MAPTAP]
    if json_out:
        jsonfile = os.path.join(_tmp, "events-%d.jsonl" % time.monotonic_ns())
        full += ["--json", "-o", jsonfile]
    if verify:
        full += ["--verify"]
    if ("-x" in args or "-c" in args) and not any(
            str(a).startswith("--events") for a in args):
        full += ["--events=" + EVENTS]
    # maptap's own output (the text log, the report) goes to stderr
    # unless -o; the tests read it from stdout, as a script's output.
    script = "-e" in args or any(str(a).endswith(".stp") for a in args)
    if not json_out and "-o" not in args and not script:
        full += ["-o", "-"]
    return full + list(args), jsonfile


def maptap(args, timeout=120, json_out=True, verify=True, stdin=None,
           env=None, prefix=()):
    """Run maptap ARGS (a list) with --json to a file and --verify, under
    the command PREFIX if given (setarch, setpriv); return a Run."""
    full, jsonfile = maptap_argv(args, json_out, verify)
    full = list(prefix) + full
    p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=stdin if stdin is not None else subprocess.DEVNULL,
                         text=True, env=env, errors="replace")
    return finish(p, full, jsonfile, timeout)


def finish(p, full, jsonfile, timeout=120):
    """Wait (bounded) for the maptap process P started as FULL; a Run.
    Reads what is left of P's stdout and stderr through their Python
    file objects, so lines the test already read stay read and nothing
    buffered is lost."""
    got = {}

    def drain(name, f):
        got[name] = f.read() if f else ""

    if p.stdin:
        try:
            p.stdin.close()
        except OSError:
            pass
    threads = [threading.Thread(target=drain, args=(n, f))
               for n, f in (("out", p.stdout), ("err", p.stderr))]
    for th in threads:
        th.start()
    try:
        p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        diag("maptap timed out: %s" % " ".join(map(shlex.quote, full)))
        p.kill()
        p.wait()
    for th in threads:
        th.join(timeout=30)
    out, err = got.get("out", ""), got.get("err", "")
    return Run(full, p, out, err, jsonfile)


def attach_run(argv, timeout=120, extra=()):
    """Start ARGV (a target that prints "ready PID" and then waits for a
    line on stdin), attach maptap -x --json --verify (and the options
    EXTRA) to it, and once every thread is seized let it go on.  Returns
    (Run whose stdout is the target's, pid, the target's exit status)."""
    tp = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True)
    f = tp.stdout.readline().split()
    pid = int(f[1])
    full, jsonfile = maptap_argv(list(extra) + ["-x", str(pid), "-v"])
    mp = subprocess.Popen(full, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    # Not "every thread seized" (TracerPid): a thread seized and not yet
    # interrupted runs on untraced, and a call it makes then is in the
    # snapshot, not logged as a call.
    wait_attached(mp)
    tp.stdin.write("go\n")
    tp.stdin.close()
    out = tp.stdout.read()
    status = tp.wait(timeout=timeout)
    r = finish(mp, full, jsonfile, timeout)
    r.stdout = out
    return r, pid, status


def wait_attached(mp, seen=None):
    """Read maptap MP's stderr (it runs with -v) up to the line that
    says which event source its attach took: printed once the attach is
    complete (perf: the events open on every thread; ptrace: every
    thread seized and stopped) and the first model is read.  Returns the
    line, or "" when maptap ended first.  SEEN (a list) gets every line
    read, the error of a failed attach among them."""
    for line in mp.stderr:
        if seen is not None:
            seen.append(line)
        if line.startswith("maptap: events:"):
            return line.strip()
    return ""


def perf_or_skip_all():
    """A test of perf mode only: where perf mode cannot be had, skip
    the whole test with the reason and exit."""
    why = perf_unavailable()
    if why:
        skip("perf mode not available here: " + why)
        done()
        sys.exit(0)


@contextlib.contextmanager
def env_set(name, value):
    """NAME=VALUE in os.environ (which maptap and the targets inherit)
    for a with-block, then as it was; VALUE None leaves it alone."""
    old = os.environ.get(name)
    if value is not None:
        os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


def perf_unavailable():
    """Why maptap cannot use perf events here (--events=perf refused),
    or None when it can."""
    p = subprocess.run([MAPTAP, "--events=perf", "-c", "true"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, text=True, timeout=60)
    if p.returncode == 0:
        return None
    return (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]


def hexint(s):
    return int(s, 16)


def reports(text):
    """What a target printed as "KEY 0xSTART 0xEND" ({KEY: (start, end)})
    and as "KEY N" ({KEY: N}); the last line of each KEY."""
    res = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 3 and f[1].startswith("0x") and f[2].startswith("0x"):
            res[f[0]] = (hexint(f[1]), hexint(f[2]))
        elif len(f) == 2 and f[1].isdigit():
            res[f[0]] = int(f[1])
    return res


def span(e):
    return hexint(e["start"]), hexint(e["end"])


def old_span(e):
    return hexint(e["old"]["start"]), hexint(e["old"]["end"])


def touching(events, lo, hi, pid=None, snapshot=False):
    """Range events (not snapshots unless SNAPSHOT) whose new or old range
    meets [LO, HI)."""
    kinds = ("map", "unmap", "protect", "replace", "move", "rename",
             "grow", "shrink")
    res = []
    for e in events:
        if e["event"] not in kinds or (pid is not None and e["pid"] != pid):
            continue
        if e.get("snapshot") and not snapshot:
            continue
        a, b = span(e)
        hit = a < hi and lo < b
        if "old" in e and e["event"] in ("move", "grow", "shrink"):
            a, b = old_span(e)
            hit = hit or (a < hi and lo < b)
        if hit:
            res.append(e)
    return res


def history(events, lo, hi, pid):
    """[(event, (start, end), syscall, tid)] of the range events touching
    [LO, HI), from the last one that mapped exactly [LO, HI) on: the
    area may have been used before (the loader maps and unmaps
    ld.so.cache early)."""
    ev = touching(events, lo, hi, pid)
    mine = [i for i, e in enumerate(ev)
            if e["event"] == "map" and span(e) == (lo, hi)]
    ev = ev[mine[-1]:] if mine else ev
    return [(e["event"], span(e), e["syscall"], e["tid"]) for e in ev]


def first_pid(run, event="exec"):
    """The pid of the first EVENT of RUN (the launched command's pid for
    "exec"), or None."""
    for e in run.events:
        if e["event"] == event:
            return e["pid"]
    return None


def maps_pages(path):
    """/proc/PID/maps text (a copy in PATH) as the page map replay()
    returns: {page: (perms, label, offset at page)}."""
    pages = {}
    with open(path, "rb") as f:
        for raw in f:
            line = raw.rstrip(b"\n").decode("utf-8", "surrogateescape")
            f6 = line.split(None, 5)
            lo, hi = (int(x, 16) for x in f6[0].split("-"))
            perms, off, inode = f6[1], int(f6[2], 16), int(f6[4])
            label = f6[5] if len(f6) > 5 else ""
            for a in range(lo, hi, 4096):
                pages[a] = (perms, label,
                            off + (a - lo) if inode else 0)
    return pages


def replay_diffs(run, pid, maps_path):
    """The pages where the log of PID, replayed, differs from the maps
    the target saved just before exiting ([stack] aside: it grows
    without a call), in address order, each as "page 0xA: log L,
    kernel K"; [] when it replays exactly."""
    want = {a: v for a, v in maps_pages(maps_path).items()
            if v[1] != "[stack]"}
    got = {a: v for a, v in replay(run.events, pid).items()
           if v[1] != "[stack]"}
    bad = sorted(set(got) ^ set(want) |
                 {a for a in got if a in want and got[a] != want[a]})
    return ["page 0x%x: log %r, kernel %r" % (a, got.get(a), want.get(a))
            for a in bad]


def check_replay(run, pid, maps_path, name):
    """One case: the log of PID replays into the maps the target saved
    just before exiting (replay_diffs())."""
    bad = replay_diffs(run, pid, maps_path)
    if ok(not bad, name):
        return True
    for line in bad[:8]:
        diag(line)
    return False


def no_verify_diffs(run, name):
    d = run.verify_diffs()
    if not ok(not d, name + ": no verify differences"):
        for line in d[:10]:
            diag(line)
    return not d


def untraced(argv, timeout=60, stdin=None):
    """Run ARGV without maptap; return (status as maptap reports it,
    stdout)."""
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=stdin if stdin is not None else subprocess.DEVNULL,
                       timeout=timeout)
    code = p.returncode if p.returncode >= 0 else 128 - p.returncode
    return code, p.stdout


def wait_until(cond, timeout=20.0, what="condition"):
    """Poll COND until it is true, for at most TIMEOUT seconds: for states
    the kernel reports only through /proc (stopped, traced).  Returns
    the last value of COND."""
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v or time.monotonic() > deadline:
            if not v:
                diag("timed out waiting for " + what)
            return v
        time.sleep(0.01)


def proc_status(pid, field):
    """A field of /proc/PID/status as a string, or None."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None


def tracer_pid(pid):
    v = proc_status(pid, "TracerPid")
    return int(v) if v is not None else None


def tracer_pid_tid(pid, tid):
    """TracerPid of thread TID of process PID, or None."""
    try:
        with open("/proc/%d/task/%d/status" % (pid, tid)) as f:
            for line in f:
                if line.startswith("TracerPid:"):
                    return int(line.split(":", 1)[1])
    except OSError:
        return None
    return None


def task_states(pid):
    """{tid: state letter} of every thread of PID."""
    res = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return res
    for t in tids:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, t)) as f:
                res[int(t)] = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            pass
    return res


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
