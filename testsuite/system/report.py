#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""report.py -- maptap --report: who holds the address space, checked
against what the targets themselves see in /proc/self/maps.

The targets (testsuite/targets/r_*.c, r_vector.cc) are built at test
time; each prints the bytes it sees mapped as "KEY N" lines, read with
open/read into a static buffer so that looking maps nothing.  The JSON
report (docs/json-schema.md, "report") must give exactly those numbers
to the call sites that made the ranges: the frames below libc's mmap and
malloc, below libstdc++'s operator new, below dlopen and dlclose.

The peak is compared exactly.  The report's peak is the largest total
after any one event, and the model is refreshed at the stop of every
mapping call, so between r_chain's 64 MiB mmap and its reading of
/proc/self/maps the two agree, with one exception: memory the kernel
maps without a system call (stack growth) reaches the model only at the
next resync.  r_chain keeps its buffers static and its stack inside the
128 KiB or more that execve gives it, so nothing grows unseen and the
peak is exact; a program whose stack grew would see the report's peak
low by at most that growth.

`report.py CASE [ARGS]` runs only check_CASE (e.g. `report.py exec`,
`report.py vfork exit`), for working on one case.
"""
import os
import re
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t

MIB = 1 << 20


def reports_of(run, name):
    """The report objects of RUN (every line must be JSON)."""
    t.eq(run.bad_lines, [], "%s: every output line is JSON" % name)
    return [e for e in run.events if e.get("event") == "report"]


def syms(site):
    return [f.get("symbol") for f in site.get("frames", [])]


def call_site(rep, sym):
    """The call sites of REP whose first frame is function SYM."""
    return [s for s in rep["sites"] if s["what"] == "call" and
            syms(s)[:1] == [sym]]


def one_site(rep, sym, name):
    got = call_site(rep, sym)
    if not t.ok(len(got) == 1, "%s: one call site in %s()" % (name, sym)):
        t.diag("sites: %r" % [(s["what"], syms(s), s["bytes"])
                              for s in rep["sites"]])
        return None
    return got[0]


def data_file(size):
    path = os.path.join(t.tmpdir(), "data-%d" % size)
    with open(path, "wb") as f:
        f.write(bytes(range(256)) * (size // 256))
    return path


def internal(sym):
    """Symbols that must never name a call site: the allocators."""
    return sym is not None and (sym.startswith("_Znw") or
                                sym.startswith("_Zna") or
                                "operator new" in sym or
                                sym in ("malloc", "mmap", "mmap64", "__mmap",
                                        "sysmalloc", "_int_malloc"))


# ---- known chains ----

def check_chain_json(prog, data, name="chain", extra=()):
    r = t.maptap(["--report"] + list(extra) +
                 ["-c", "%s %s" % (prog, data)])
    t.eq(r.status, 0, "%s: maptap --report exits with the target's 0" %
         name)
    want = t.reports(r.stdout)
    reps = reports_of(r, name)
    if not t.eq(len(reps), 1, "%s: one report line" % name):
        return
    rep = reps[0]
    t.eq((rep["state"], rep["status"]), ("exited", 0),
         "%s: the process exited with status 0" % name)
    if "--events=perf" in extra:
        # perf reads the exec's record after the fact: a target gone by
        # then has no /proc/PID/exe to name (docs/tracer.md, "Limits of
        # perf mode")
        t.ok(rep["exe"] in (prog, ""), "%s: exe is the target or "
             "unknown: %r" % (name, rep["exe"]))
    else:
        t.eq(rep["exe"], prog, "%s: exe is the target" % name)
    t.eq(rep["incomplete"], False, "%s: the report is complete" % name)
    t.ok(not [e for e in r.events if e.get("event") != "report"],
         "%s: no event log without --log" % name)

    b = one_site(rep, "b", name)
    if b:
        t.eq(syms(b)[:3], ["b", "a", "main"],
             "%s: b's site is b <- a <- main" % name)
        t.eq(b["bytes"], want["b"], "%s: b holds the 3 MiB it mapped" %
             name)
        t.eq(b["maps"], 1, "%s: b mapped once" % name)
        t.ok(all(f["module"] == prog for f in b["frames"][:3]),
             "%s: b, a, main are in the target's module" % name)
        t.ok(all(f["file"] and f["file"].endswith("r_chain.c") and
                 f["line"] > 0 for f in b["frames"][:3]),
             "%s: b, a, main have r_chain.c:LINE" % name)
    c = one_site(rep, "c", name)
    if c:
        t.eq(syms(c)[:2], ["c", "main"],
             "%s: malloc's mapping is charged to c <- main" % name)
        t.ok(not any(internal(s) for s in syms(c)),
             "%s: no malloc or mmap frame in c's site: %s" %
             (name, syms(c)))
        t.eq(c["bytes"], want["c"], "%s: c holds the chunk malloc mapped "
             "(%d bytes)" % (name, want["c"]))
    d = one_site(rep, "d", name)
    if d:
        t.eq(d["bytes"], 6 * MIB, "%s: d holds 8 MiB less the 2 MiB it "
             "unmapped" % name)
        t.eq(d["bytes"], want["d"], "%s: d's bytes are what d sees" % name)
        t.eq(d["peak_bytes"], 8 * MIB, "%s: d's own peak is 8 MiB" % name)
    t.eq(call_site(rep, "e"), [],
         "%s: e unmapped all it mapped: no live site" % name)
    f = one_site(rep, "f", name)
    if f:
        t.eq(f["bytes"], want["f"], "%s: f holds the 2 file pages" % name)
    t.eq(want.get("e"), 64 * MIB, "%s: e's 64 MiB were mapped" % name)
    t.eq(rep["peak_bytes"], want["peak"],
         "%s: peak_bytes is the total the target saw at its peak "
         "(%d)" % (name, want["peak"]))
    t.eq(rep["peak_bytes"] - rep["live_bytes"], want["e"] - want["f"],
         "%s: the peak was e's moment: it had e's 64 MiB and not yet f's "
         "2 pages" % name)
    t.eq(rep["live_bytes"], want["final"],
         "%s: live_bytes is the total the target saw at its end" % name)
    t.eq(sum(s["bytes"] for s in rep["sites"]), rep["live_bytes"],
         "%s: the sites add up to live_bytes" % name)
    t.eq(sum(m["bytes"] for m in rep["modules"]) +
         sum(a["bytes"] for a in rep["anon"]), rep["live_bytes"],
         "%s: modules and anon add up to live_bytes" % name)
    mods = [m for m in rep["modules"] if m["path"] == data]
    t.eq([m["bytes"] for m in mods], [8192],
         "%s: the module table has the data file's 2 pages" % name)
    sizes = [s["bytes"] for s in rep["sites"]]
    t.eq(sizes, sorted(sizes, reverse=True),
         "%s: sites come largest first" % name)
    sizes = [m["bytes"] for m in rep["modules"]]
    t.eq(sizes, sorted(sizes, reverse=True),
         "%s: modules come largest first" % name)
    sizes = [a["bytes"] for a in rep["anon"]]
    t.eq(sizes, sorted(sizes, reverse=True),
         "%s: anonymous names come largest first" % name)
    t.eq(rep["dl"], [], "%s: no dlopen" % name)
    return want


def check_depth(prog, data, want):
    """-D MAXBACKTRACE bounds the walk: two frames are libc's mmap and
    b, so b's site is b alone, with the same bytes."""
    name = "-D MAXBACKTRACE=2"
    r = t.maptap(["--report", "-D", "MAXBACKTRACE=2", "-c",
                  "%s %s" % (prog, data)], verify=False)
    t.eq(r.status, 0, "%s: exits 0" % name)
    reps = reports_of(r, name)
    if not t.eq(len(reps), 1, "%s: one report line" % name):
        return
    b = one_site(reps[0], "b", name)
    if b:
        t.eq((syms(b), b["bytes"]), (["b"], want["b"]),
             "%s: b's site is b alone, with its 3 MiB" % name)


def check_deep(prog, data, want):
    """A walk that MAXBACKTRACE cut inside libc finds its site deeper:
    with -D MAXBACKTRACE=3 the three frames of c's malloc(10 MiB) are
    all glibc's (mmap, sysmalloc, _int_malloc or malloc), yet the bytes
    are still charged to c, not to the outermost libc frames."""
    name = "-D MAXBACKTRACE=3"
    r = t.maptap(["--report", "-D", "MAXBACKTRACE=3", "-c",
                  "%s %s" % (prog, data)], verify=False)
    t.eq(r.status, 0, "%s: exits 0" % name)
    reps = reports_of(r, name)
    if not t.eq(len(reps), 1, "%s: one report line" % name):
        return
    c = one_site(reps[0], "c", name)
    if c:
        t.eq((syms(c)[0], c["bytes"]), ("c", want["c"]),
             "%s: c's malloc is charged to c, walked past libc" % name)


def check_chain_text(prog, data, want):
    """The text report names the same sites with the same exact bytes,
    largest first."""
    name = "chain text"
    r = t.maptap(["--report", "-c", "%s %s" % (prog, data)],
                 json_out=False, verify=False)
    t.eq(r.status, 0, "%s: exits 0" % name)
    lines = r.stdout.splitlines()
    at = {}
    for key in ("c", "d", "b", "f"):
        pat = re.compile(r"(^|[\s<])%s\+0x[0-9a-f]+\b" % key)
        hits = [i for i, l in enumerate(lines) if pat.search(l) and
                re.search(r"\b%d\b" % want[key], l)]
        if t.ok(hits, "%s: a line names %s() with its %d bytes" %
                (name, key, want[key])):
            at[key] = hits[0]
    if len(at) == 4:
        t.ok(at["c"] < at["d"] < at["b"] < at["f"],
             "%s: sites largest first: c, d, b, f" % name)
    else:
        t.diag(r.stdout)
    t.ok(re.search(r"\b%d\b" % want["peak"], r.stdout),
         "%s: the peak's exact bytes are printed" % name)
    t.ok(not re.search(r"\bmap\s+[0-9a-f]{16}-", r.stdout),
         "%s: no event log without --log" % name)


def check_script_and_log(prog, data):
    """--report after a script's end probe, and after the log."""
    name = "script"
    out = os.path.join(t.tmpdir(), "script.out")
    r = t.maptap(["--report", "-o", out, "-e",
                  'probe end { println("END-OF-SCRIPT") }',
                  "-c", "%s %s" % (prog, data)], json_out=False)
    t.eq(r.status, 0, "%s: exits 0" % name)
    with open(out) as f:
        lines = f.read().splitlines()
    t.ok(lines and lines[0] == "END-OF-SCRIPT",
         "%s: the end probe's output comes first" % name)
    t.ok(len(lines) > 1 and "c+0x" in "\n".join(lines[1:]),
         "%s: the report follows it" % name)

    name = "--report --log --json"
    r = t.maptap(["--report", "--log", "-c", "%s %s" % (prog, data)])
    t.eq(r.status, 0, "%s: exits 0" % name)
    t.eq(r.bad_lines, [], "%s: every line is JSON" % name)
    kinds = [e.get("event") for e in r.events]
    t.ok("map" in kinds and "exit" in kinds, "%s: the log is there" %
         name)
    t.ok(kinds and kinds[-1] == "report" and
         kinds.count("report") == 1 and
         "report" not in kinds[:-1],
         "%s: the report is the last line" % name)

    name = "--report --log"
    r = t.maptap(["--report", "--log", "-c", "%s %s" % (prog, data)],
                 json_out=False, verify=False)
    t.eq(r.status, 0, "%s: exits 0" % name)
    lines = r.stdout.splitlines()
    log = [i for i, l in enumerate(lines) if re.search(
        r"\bmap\s+[0-9a-f]{16}-[0-9a-f]{16} ", l)]
    rep = [i for i, l in enumerate(lines) if re.search(r"(^|\s)c\+0x", l)]
    t.ok(log and rep and max(log) < min(rep),
         "%s: the log first, the report after" % name)


# ---- dlopen from a library ----

def check_dlopen():
    name = "dlopen"
    tmp = t.tmpdir()
    t.build("r_plugin", shared=True, out=os.path.join(tmp, "libplugin.so"))
    t.build("r_loader", shared=True, out=os.path.join(tmp, "libloader.so"))
    prog = t.build("r_dlmain", "-L" + tmp, "-lloader",
                   "-Wl,-rpath," + tmp)
    plugin = os.path.join(tmp, "libplugin.so")
    r = t.maptap(["--report", "-c", "%s %s" % (prog, plugin)])
    t.eq(r.status, 0, "%s: exits 0" % name)
    reps = reports_of(r, name)
    if not t.eq(len(reps), 1, "%s: one report line" % name):
        return
    dl = reps[0]["dl"]
    opens = [x for x in dl if x["op"] == "dlopen" and x["path"] == plugin]
    closes = [x for x in dl if x["op"] == "dlclose" and x["path"] == plugin]
    if t.eq(len(opens), 1, "%s: one dlopen of libplugin.so" % name):
        fr = opens[0]["frames"]
        t.eq(syms({"frames": fr})[:2], ["load_plugin", "main"],
             "%s: loaded by load_plugin <- main" % name)
        t.ok(fr and fr[0]["module"] and
             fr[0]["module"].endswith("/libloader.so"),
             "%s: load_plugin is libloader.so's" % name)
        t.ok(len(fr) > 1 and fr[1]["module"] == prog,
             "%s: main is the program's" % name)
    if t.eq(len(closes), 1, "%s: one dlclose of libplugin.so" % name):
        t.eq(syms(closes[0])[:2], ["unload_plugin", "main"],
             "%s: unloaded by unload_plugin <- main" % name)
    if opens and closes:
        t.ok(opens[0]["time_ns"] < closes[0]["time_ns"],
             "%s: the dlopen comes before the dlclose" % name)
    t.eq([x for x in dl if x["path"].endswith("/libloader.so")], [],
         "%s: libloader.so, loaded at start, is no dlopen" % name)
    t.ok(reps[0]["loads_at_start"] >= 3,
         "%s: the program, libloader.so and libc were loaded at start "
         "(%d)" % (name, reps[0]["loads_at_start"]))
    t.eq([m for m in reps[0]["modules"] if m["path"] == plugin], [],
         "%s: nothing of libplugin.so is live after dlclose" % name)
    check_one_walk_per_stop(prog, plugin)


def check_one_walk_per_stop(prog, plugin):
    """A stop with a module load and its map event is walked once: the
    backtraces -v counts are the stops with an event that takes a stack
    (a mapping call's map, replace or grow; a module event of a call)."""
    name = "one walk per stop"
    r = t.maptap(["-v", "--report", "--log", "-c",
                  "%s %s" % (prog, plugin)], verify=False)
    t.eq(r.status, 0, "%s: exits 0" % name)
    wanting = [(e["tid"], e["time_ns"]) for e in r.events
               if (e["event"] in ("map", "replace", "grow") and
                   e["syscall"] and not e["snapshot"]) or
               (e["event"] in ("module_load", "module_unload") and
                e["syscall"])]
    m = re.search(r"maptap: (\d+) backtraces", r.stderr)
    t.ok(len(set(wanting)) < len(wanting),
         "%s: some stops have several events that take a stack" % name)
    t.eq(int(m.group(1)) if m else None, len(set(wanting)),
         "%s: one backtrace per such stop" % name)

    # With --stacks too, the log's stacks and the report's share the
    # walk: one backtrace per stop that either needs.
    r = t.maptap(["-v", "--report", "--log", "--stacks", "-c",
                  "%s %s" % (prog, plugin)], verify=False)
    t.eq(r.status, 0, "%s with --stacks: exits 0" % name)
    stacked = [(e["tid"], e["time_ns"]) for e in r.events if "stack" in e]
    wanting = [(e["tid"], e["time_ns"]) for e in r.events
               if (e["event"] in ("map", "replace", "grow") and
                   e["syscall"] and not e["snapshot"]) or
               (e["event"] in ("module_load", "module_unload") and
                e["syscall"])]
    m = re.search(r"maptap: (\d+) backtraces", r.stderr)
    t.ok(stacked and set(wanting) <= set(stacked),
         "%s with --stacks: the log shows a stack at every stop the "
         "report walks" % name)
    t.eq(int(m.group(1)) if m else None, len(set(stacked) | set(wanting)),
         "%s with --stacks: one backtrace per stop for log and report"
         % name)


# ---- fork ----

def check_fork():
    name = "fork"
    prog = t.build("r_fork")
    r = t.maptap(["--report", "-c", prog])
    t.eq(r.status, 0, "%s: exits 0" % name)
    want = t.reports(r.stdout)
    reps = reports_of(r, name)
    if not t.eq(len(reps), 2, "%s: two report lines" % name):
        return
    parent, child = reps
    t.eq(child["pid"], want.get("child_pid"),
         "%s: the second report is the child's" % name)
    t.eq((child["state"], child["status"]), ("exited", 0),
         "%s: the child exited 0" % name)
    s = one_site(parent, "parent_map", name + " parent")
    if s:
        t.eq(s["bytes"], want["parent"], "%s: parent_map holds its 4 MiB"
             % name)
    s = one_site(child, "child_map", name + " child")
    if s:
        t.eq(s["bytes"], want["child"], "%s: the child's child_map holds "
             "its 5 MiB" % name)
    inh = [x for x in child["sites"] if x["what"] == "inherited"]
    t.ok(len(inh) == 1 and inh[0]["bytes"] >= want["parent"],
         "%s: the child's inherited site holds at least parent_map's "
         "bytes" % name)
    t.eq(call_site(child, "parent_map"), [],
         "%s: the child did not call parent_map" % name)
    t.eq(call_site(parent, "child_map"), [],
         "%s: the parent did not call child_map" % name)


# ---- vfork, exec, failed dlopen, static ----

def check_vfork(mode):
    """A vfork child's maps are charged to its parent, exactly."""
    name = "vfork " + mode
    prog = t.build("r_vfork")
    true = os.path.realpath(shutil.which("true"))
    r = t.maptap(["--report", "-c", "%s %s %s" % (prog, mode, true)])
    t.eq(r.status, 0, "%s: exits 0" % name)
    want = t.reports(r.stdout)
    reps = reports_of(r, name)
    parent = [x for x in reps if x["exe"] == prog]
    if not t.eq(len(parent), 1, "%s: one report of the parent" % name):
        return
    parent = parent[0]
    t.eq(want.get("child"), 4 * MIB, "%s: the child's 4 MiB are in the "
         "parent's address space" % name)
    t.eq(parent["live_bytes"], want.get("total"),
         "%s: the parent's live_bytes is what it sees at its end" % name)
    t.eq(parent["peak_bytes"], want.get("total"),
         "%s: and so is its peak" % name)
    s = one_site(parent, "vfork_map", name)
    if s:
        t.eq(s["bytes"], 4 * MIB, "%s: the child's site, from the "
             "child's stack, holds its 4 MiB" % name)
    child = [x for x in reps if x["pid"] == want.get("child_pid")]
    if mode == "exit":
        t.eq(child, [], "%s: a child that never exec'd has no record" %
             name)
    else:
        t.ok(len(child) == 1 and child[0]["exe"] == true and
             child[0]["peak_bytes"] < 4 * MIB,
             "%s: the exec'd child has its own record, of true alone" %
             name)


def check_exec():
    name = "exec"
    prog = t.build("r_exec")
    true = os.path.realpath(shutil.which("true"))
    r = t.maptap(["--report", "-c", "%s %s" % (prog, true)])
    t.eq(r.status, 0, "%s: exits 0" % name)
    want = t.reports(r.stdout)
    reps = reports_of(r, name)
    if not t.eq(len(reps), 2, "%s: two records, one per image" % name):
        return
    old, new = reps
    t.eq(old["pid"], new["pid"], "%s: of one pid" % name)
    t.eq((old["exe"], old["state"], old.get("exec_path"), old["status"]),
         (prog, "exec", true, None),
         "%s: the first image ends replaced by exec of true" % name)
    t.eq(old["peak_bytes"], want.get("peak"),
         "%s: the first image's peak is what it saw (%s)" %
         (name, want.get("peak")))
    s = one_site(old, "big_map", name)
    if s:
        t.eq(s["bytes"], 16 * MIB, "%s: big_map holds its 16 MiB" % name)
    t.eq((new["exe"], new["state"], new["status"]), (true, "exited", 0),
         "%s: the second record is true's, exited 0" % name)
    t.ok(new["peak_bytes"] < 16 * MIB and new["live_bytes"] > 0,
         "%s: true's peak is its own (%d)" % (name, new["peak_bytes"]))
    t.eq(call_site(new, "big_map"), [],
         "%s: nothing of the first image in the second" % name)
    rt = t.maptap(["--report", "-c", "%s %s" % (prog, true)], json_out=False)
    t.ok("): replaced by exec of %s\n" % true in rt.stdout,
         "%s: text says replaced by exec of PATH" % name)


def check_dlopen_failed():
    name = "dlopen failed"
    tmp = t.tmpdir()
    bad = t.build("r_dlbad", shared=True,
                  out=os.path.join(tmp, "libdlbad.so"))
    prog = t.build("r_dlfail")
    r = t.maptap(["--report", "-c", "%s %s" % (prog, bad)])
    t.eq(r.status, 0, "%s: exits 0" % name)
    t.eq(t.reports(r.stdout).get("failed"), 1,
         "%s: the dlopen failed" % name)
    reps = reports_of(r, name)
    if not t.eq(len(reps), 1, "%s: one report line" % name):
        return
    ops = [x["op"] for x in reps[0]["dl"] if x["path"] == bad]
    t.eq(ops, ["dlopen", "dlopen_failed"],
         "%s: listed as dlopen, then dlopen_failed; no dlclose" % name)
    failed = [x for x in reps[0]["dl"] if x["op"] == "dlopen_failed"]
    t.ok(failed and syms(failed[0])[:1] == ["main"],
         "%s: with the stack of dlopen's caller" % name)
    rt = t.maptap(["--report", "-c", "%s %s" % (prog, bad)], json_out=False)
    t.ok(re.search(r"tid \d+ dlopen failed %s\n" % re.escape(bad),
                   rt.stdout), "%s: text says dlopen failed" % name)


def check_static(data=None):
    """glibc's malloc linked into the program is skipped too."""
    name = "static chain"
    data = data or data_file(8192)
    prog = t.build("r_chain", "-static",
                   out=os.path.join(t.tmpdir(), "r_chain_static"),
                   must=False)
    if not prog:
        t.skip("%s: gcc -static does not link here (no libc.a)" % name)
        return
    check_chain_json(prog, data, name)


# ---- -x: detach from a process that runs on ----

def start_attached(prog, extra):
    """Start PROG (prints "ready PID", waits for a line), attach maptap
    --report --json -v EXTRA -x to it and wait until it says it is
    attached.  Returns (target Popen, pid, maptap Popen, argv, json)."""
    tp = subprocess.Popen([prog], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
    pid = int(tp.stdout.readline().split()[1])
    full, jsonfile = t.maptap_argv(["--report", "-v"] + extra +
                                   ["-x", str(pid)], verify=False)
    mp = subprocess.Popen(full, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    # Attached, not only seized: a seized thread not yet interrupted
    # maps untraced, and late_map()'s mmap was charged to "before
    # attach" (1 run in the ASan suite).
    t.ok(t.wait_attached(mp), "%s: attached" % " ".join(extra or ["-x"]))
    return tp, pid, mp, full, jsonfile


def end_target(tp, pid, name):
    t.ok(t.tracer_pid(pid) == 0, "%s: the target is no longer traced" %
         name)
    tp.stdin.write("end\n")
    tp.stdin.close()
    t.eq(tp.wait(timeout=60), 0,
         "%s: the target runs on and exits 0 by itself" % name)


def check_detach_sigint():
    name = "-x SIGINT"
    prog = t.build("r_attach")
    tp, pid, mp, full, jsonfile = start_attached(prog, [])
    tp.stdin.write("go\n")
    tp.stdin.flush()
    want = t.reports(tp.stdout.readline())
    mp.send_signal(signal.SIGINT)
    r = t.finish(mp, full, jsonfile)
    t.eq(r.status, 0, "%s: maptap exits 0 after detaching" % name)
    reps = reports_of(r, name)
    if t.eq(len(reps), 1, "%s: one report line" % name):
        rep = reps[0]
        t.eq(rep["pid"], pid, "%s: it is the target's" % name)
        t.eq((rep["state"], rep["status"]), ("detached", None),
             "%s: state detached, no status" % name)
        s = one_site(rep, "late_map", name)
        if s:
            t.eq(s["bytes"], want.get("late"),
                 "%s: late_map holds the 7 MiB it mapped" % name)
        t.ok([x for x in rep["sites"] if x["what"] == "before attach"],
             "%s: what was mapped before attach has its site" % name)
    end_target(tp, pid, name)


def check_detach_timeout():
    name = "-x -T"
    prog = t.build("r_attach")
    tp, pid, mp, full, jsonfile = start_attached(prog, ["-T", "1"])
    r = t.finish(mp, full, jsonfile)
    t.eq(r.status, 0, "%s: maptap exits 0 at -T" % name)
    reps = reports_of(r, name)
    if t.eq(len(reps), 1, "%s: one report line" % name):
        rep = reps[0]
        t.eq(rep["state"], "detached", "%s: state detached" % name)
        before = [x for x in rep["sites"] if x["what"] == "before attach"]
        t.ok(before and before[0]["bytes"] == rep["live_bytes"],
             "%s: every live byte was mapped before attach" % name)
    tp.stdin.write("go\n")
    tp.stdin.flush()
    t.ok("late" in t.reports(tp.stdout.readline()),
         "%s: the target maps on after the detach" % name)
    end_target(tp, pid, name)


# ---- real programs ----

def check_python():
    name = "python3 import _ctypes"
    py = "/usr/bin/python3"
    if not os.access(py, os.X_OK):
        t.skip("%s: no %s" % (name, py))
        return
    script = os.path.join(t.tmpdir(), "imp.py")
    with open(script, "w") as f:
        f.write("import _ctypes\nprint(_ctypes.__file__)\n")
    r = t.maptap(["--report", "-c", "%s -I %s" % (py, script)],
                 verify=False)
    t.eq(r.status, 0, "%s: exits 0" % name)
    so = r.stdout.strip()
    if not so.endswith(".so"):
        t.skip("%s: _ctypes is built in here (%s)" % (name, so))
        return
    reps = reports_of(r, name)
    if not t.eq(len(reps), 1, "%s: one report line" % name):
        return
    opens = [x for x in reps[0]["dl"] if x["op"] == "dlopen" and
             os.path.realpath(x["path"]) == os.path.realpath(so)]
    if not t.eq(len(opens), 1, "%s: one dlopen of %s" % (name, so)):
        t.diag("dl: %r" % [(x["op"], x["path"]) for x in reps[0]["dl"]])
        return
    mods = [os.path.basename(f["module"] or "")
            for f in opens[0]["frames"]]
    t.ok(any(m.startswith("python3") or m.startswith("libpython")
             for m in mods),
         "%s: the dlopen's stack has a python frame: %s" % (name, mods))
    t.ok(mods and not mods[0].startswith("libc.so") and
         not mods[0].startswith("ld-linux"),
         "%s: the stack starts at dlopen's caller (%s)" % (name, mods[:1]))


def check_cxx():
    name = "C++ vector"
    cxx = shutil.which("g++") or shutil.which("c++")
    if not cxx:
        t.skip("%s: no C++ compiler" % name)
        return
    prog = os.path.join(t.tmpdir(), "r_vector")
    b = subprocess.run([cxx, "-O2", "-g", "-o", prog,
                        os.path.join(t.TARGETS, "r_vector.cc")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if not t.eq(b.returncode, 0, "%s: builds" % name):
        t.diag(b.stdout)
        return
    r = t.maptap(["--report", "-c", prog])
    t.eq(r.status, 0, "%s: exits 0" % name)
    want = t.reports(r.stdout)
    reps = reports_of(r, name)
    if not t.eq(len(reps), 1, "%s: one report line" % name):
        return
    big = [s for s in reps[0]["sites"] if s["bytes"] == want.get("buffer")]
    if not t.eq(len(big), 1, "%s: one site holds the %s-byte buffer" %
                 (name, want.get("buffer"))):
        t.diag("sites: %r" % [(s["what"], syms(s), s["bytes"])
                              for s in reps[0]["sites"]])
        return
    names = syms(big[0])
    t.ok(big[0]["what"] == "call" and
         any(s and "grow_buffer" in s for s in names),
         "%s: the site names grow_buffer: %s" % (name, names))
    t.ok(names and not internal(names[0]),
         "%s: its first frame is not operator new or malloc (%s)" %
         (name, names[:1]))


# ---- perf mode: no stop ----

def check_perf():
    """--report with perf events: the target never stops; each call site
    comes from the registers and user stack the call's entry record
    copied (docs/tracer.md, "Event sources"), and is the ptrace run's.
    With -x and no --events, auto takes perf for --report."""
    why = t.perf_unavailable()
    if why:
        t.skip("--report in perf mode: perf mode not available here: " +
               why)
        return
    prog = t.build("r_chain")
    data = data_file(8192)
    check_chain_json(prog, data, "chain (perf)", ["--events=perf"])
    got = {}
    for ev in ("ptrace", "perf"):
        r = t.maptap(["--report", "--events=" + ev, "-c",
                      "%s %s" % (prog, data)], verify=False)
        reps = reports_of(r, "chain (%s)" % ev)
        got[ev] = sorted((x["what"], syms(x)[:3], x["bytes"])
                         for x in reps[0]["sites"]) if reps else None
    t.eq(got["perf"], got["ptrace"],
         "chain (perf): the sites are the ptrace run's")

    name = "-x auto (perf)"
    prog = t.build("r_attach")
    tp = subprocess.Popen([prog], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
    pid = int(tp.stdout.readline().split()[1])
    full, jsonfile = t.maptap_argv(["--report", "--events=auto", "-v",
                                    "-x", str(pid)], verify=False)
    mp = subprocess.Popen(full, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    line = t.wait_attached(mp)
    t.ok(line.startswith("maptap: events: perf events"),
         "%s: auto takes perf events for --report: %r" % (name, line))
    tp.stdin.write("go\n")
    tp.stdin.flush()
    want = t.reports(tp.stdout.readline())
    mp.send_signal(signal.SIGINT)
    r = t.finish(mp, full, jsonfile)
    t.eq(r.status, 0, "%s: maptap exits 0 after detaching" % name)
    reps = reports_of(r, name)
    if t.eq(len(reps), 1, "%s: one report line" % name):
        s = one_site(reps[0], "late_map", name)
        if s:
            t.eq(syms(s)[:2], ["late_map", "main"],
                 "%s: late_map's site is late_map <- main" % name)
            t.eq(s["bytes"], want.get("late"),
                 "%s: late_map holds the 7 MiB it mapped" % name)
    t.eq(t.tracer_pid(pid), 0, "%s: the target was never traced" % name)
    tp.stdin.write("end\n")
    tp.stdin.close()
    t.eq(tp.wait(timeout=60), 0, "%s: the target exits 0" % name)


# ---- refusals ----

def check_refused(args, what, ran_file=None):
    r = t.maptap(args, json_out=False, verify=False)
    err = r.stderr.splitlines()
    t.ok(r.status == 1 and len(err) == 1 and err[0].startswith("maptap: ")
         and r.stdout == "",
         "refused: %s: status 1, one line on stderr (%r)" %
         (what, err[:2]))
    if ran_file:
        t.ok(not os.path.exists(ran_file),
             "refused: %s: nothing was run" % what)


def check_refusals():
    flag = os.path.join(t.tmpdir(), "ran")
    cmd = "/usr/bin/touch " + flag
    check_refused(["--report"], "--report without -c or -x")
    check_refused(["--report", "-e", "probe begin { exit() }"],
                  "--report with a script but no target")
    check_refused(["--report", "-p", "2", "-c", cmd],
                  "--report -p 2", flag)
    check_refused(["--log", "-e", "probe begin { exit() }", "-c", cmd],
                  "--log with a script", flag)
    check_refused(["--report", "--stacks", "-c", cmd],
                  "--stacks with --report but no --log", flag)


def check_unwritable():
    """A report that cannot be written is said once on stderr; the run
    keeps the command's status; with --log, whose output failed first,
    nothing more is said."""
    if not os.path.exists("/dev/full"):
        t.skip("unwritable report: no /dev/full")
        return
    for extra, want in ((["--report"], "cannot write the report"),
                        (["--report", "--log"], "cannot write the output")):
        name = "%s -o /dev/full" % " ".join(extra)
        r = t.maptap(extra + ["-o", "/dev/full", "-c", "/bin/true"],
                     json_out=False, verify=False)
        err = r.stderr.splitlines()
        t.ok(r.status == 0 and len(err) == 1 and want in err[0],
             "%s: status 0, one line on stderr (%r)" % (name, err[:3]))


def main():
    prog = t.build("r_chain")
    data = data_file(8192)
    want = check_chain_json(prog, data)
    if want:
        check_chain_text(prog, data, want)
        check_depth(prog, data, want)
        check_deep(prog, data, want)
    check_script_and_log(prog, data)
    check_dlopen()
    check_fork()
    check_vfork("exit")
    check_vfork("exec")
    check_exec()
    check_dlopen_failed()
    check_static(data)
    check_detach_sigint()
    check_detach_timeout()
    check_python()
    check_cxx()
    check_perf()
    check_refusals()
    check_unwritable()
    t.done()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        globals()["check_" + sys.argv[1]](*sys.argv[2:])
        t.done()
    else:
        main()
