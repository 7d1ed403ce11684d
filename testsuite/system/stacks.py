#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""stacks.py -- maptap --stacks: the log gives each mapping call the user
stack of the thread that made it.  The target (uw_mmap.c) maps 73728
bytes through main -> a -> b -> mmap; built at -O0 with frame pointers
and at -O2 without them, its call must show those frames in that order,
in the text log and in --json, and nothing else in the log changes.
With --events=perf (where perf mode can be had) the target is never
stopped: the stack is the copy the mmap's entry record took, and gives
the same frames.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t

SIZE = 73728
CHAIN = ["b", "a", "main"]
SRC = "uw_mmap.c"


def chain_at(symbols):
    """Index of CHAIN in SYMBOLS (consecutive, in order), or -1."""
    for i in range(len(symbols) - len(CHAIN) + 1):
        if symbols[i:i + len(CHAIN)] == CHAIN:
            return i
    return -1


def check_json(prog, tag, extra=()):
    r = t.maptap(["--stacks"] + list(extra) + ["-c", prog], verify=False)
    t.eq(r.status, 0, "%s: maptap --json --stacks exits 0" % tag)
    t.eq(r.bad_lines, [], "%s: every line is JSON" % tag)
    calls = r.find("map", syscall="mmap",
                   start=lambda s: s is not None,
                   end=lambda e: e is not None)
    mine = [e for e in calls if t.hexint(e["end"]) - t.hexint(e["start"])
            == SIZE]
    if not t.ok(len(mine) == 1, "%s: one map event of the target's "
                "73728-byte mmap" % tag):
        return None
    st = mine[0].get("stack")
    if not t.ok(isinstance(st, list) and st, "%s: it has a stack" % tag):
        return None
    syms = [f["symbol"] for f in st]
    k = chain_at(syms)
    t.ok(k >= 1, "%s: frames %s come in order after mmap's: %s" %
         (tag, " <- ".join(CHAIN), syms))
    t.ok(syms[0] is not None and "mmap" in syms[0],
         "%s: frame 0 is in mmap (%s)" % (tag, syms[0]))
    keys = ["address", "symbol", "offset", "module", "file", "line"]
    t.ok(all(sorted(f) == sorted(keys) for f in st),
         "%s: every frame has exactly %s" % (tag, keys))
    t.ok(all(re.fullmatch(r"0x[0-9a-f]+", f["address"]) for f in st),
         "%s: addresses are hex strings" % tag)
    if k >= 1:
        own = st[k:k + len(CHAIN)]
        t.ok(all(f["module"] == prog for f in own),
             "%s: b, a, main are in the target's module" % tag)
        t.ok(all(f["file"] and f["file"].endswith(SRC) and
                 isinstance(f["line"], int) and f["line"] > 0
                 for f in own),
             "%s: b, a, main have %s:LINE" % (tag, SRC))
        t.ok(all(re.fullmatch(r"0x[0-9a-f]+", f["offset"]) for f in own),
             "%s: their offsets are hex strings" % tag)
    nocall = [e for e in r.events if "stack" in e and
              (e.get("snapshot") or e.get("syscall") is None)]
    t.eq(len(nocall), 0, "%s: snapshots and resyncs have no stack" % tag)
    return syms


def check_text(prog, tag, want):
    r = t.maptap(["--stacks", "-c", prog], json_out=False, verify=False)
    t.eq(r.status, 0, "%s: maptap --stacks exits 0" % tag)
    lines = r.stdout.splitlines()
    at = -1
    for i, l in enumerate(lines):
        m = re.search(r" ([0-9a-f]{16})-([0-9a-f]{16}) ", l)
        if m and l.endswith("[mmap]") and \
           int(m.group(2), 16) - int(m.group(1), 16) == SIZE:
            at = i
    if not t.ok(at >= 0, "%s: the text log has the 73728-byte mmap" % tag):
        return
    frames = []
    for l in lines[at + 1:]:
        m = re.match(r"    #(\d+) 0x[0-9a-f]+(?: (\S+)\+0x[0-9a-f]+)?", l)
        if not m:
            break
        t.ok(int(m.group(1)) == len(frames),
             "%s: frame line %d is numbered #%d" % (tag, len(frames),
                                                    len(frames)))
        frames.append(m.group(2))
    t.eq(frames, want, "%s: the text log's frames are the JSON's" % tag)
    k = chain_at(frames)
    if t.ok(k >= 1, "%s: text frames b, a, main in order" % tag):
        l = lines[at + 1 + k]
        t.ok(re.search(r" \[%s\] \S*%s:\d+$" % (re.escape(prog),
                                               re.escape(SRC)), l),
             "%s: frame b shows [module] file:line: %s" % (tag, l))


def check_plain(prog):
    r = t.maptap(["-c", prog], json_out=False, verify=False)
    t.eq(r.status, 0, "without --stacks: exits 0")
    t.ok(not any(l.startswith("    #") for l in r.stdout.splitlines()),
         "without --stacks: no frame lines in the text log")
    t.ok("WARNING" not in r.stderr, "without --stacks: no warnings")
    r = t.maptap(["-c", prog], verify=False)
    t.ok(r.events and not any("stack" in e for e in r.events),
         "without --stacks: no stack field in --json")


for opt, flags in (("O0", ["-fno-omit-frame-pointer"]),
                   ("O2", ["-O2", "-fomit-frame-pointer"])):
    prog = t.build("uw_mmap", *flags,
                   out=os.path.join(t.tmpdir(), "uw_mmap_" + opt))
    syms = check_json(prog, opt)
    if syms:
        check_text(prog, opt, syms)
    if opt == "O0":
        check_plain(prog)

why = t.perf_unavailable()
if why:
    t.skip("--stacks in perf mode: perf mode not available here: " + why)
else:
    check_json(prog, "O2 perf", ["--events=perf"])

r = t.maptap(["--stacks", "-D", "MAXBACKTRACE=3", "-c", prog], verify=False)
mine = [e for e in r.find("map", syscall="mmap")
        if t.hexint(e["end"]) - t.hexint(e["start"]) == SIZE]
t.ok(len(mine) == 1 and [f["symbol"] for f in mine[0]["stack"]][1:] ==
     CHAIN[:2], "-D MAXBACKTRACE=3: three frames, mmap's, b, a")

r = t.maptap(["--stacks", "-e", "probe begin { exit() }"], json_out=False,
             verify=False)
t.ok(r.status != 0 and "--stacks" in r.stderr,
     "--stacks with a script is refused: %s" % r.stderr.strip())
t.done()
