#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""examples.py -- each script of examples/ run on a target built at test
time, its output checked against what the target, readelf and the kernel
say.

* lib-timeline.stp on ex_libs (dlopen + dlclose of ex_lib.so): one load
  and one unload line for the library, in that order, with readelf's
  build-id, the bias the dynamic linker reports, and the dynamic linker's
  mmap/munmap as the caller.
* wx-audit.stp on ex_wx: exactly the five findings the target makes at
  fixed addresses; /bin/true is clean.
* anon-by-name.stp on ex_anon: a 1024 KiB mapping with 256 KiB given back
  shows as 768 KiB more at the end and 1024 KiB more at the peak than the
  same program without it; named with prctl(PR_SET_VMA) when the kernel
  has CONFIG_ANON_VMA_NAME.
* module-bytes.stp on ex_libs: the library's bytes rise to the span of
  its PT_LOAD segments and fall back to 0.
* both, on ex_fork (a fork child that exits, one that execs): each
  process's table is its own, as its /proc/PID/maps (anon-by-name) or its
  parent's (module-bytes) says, with the table of the image that ended by
  exec (docs/model.md, "Processes"); and --report's record of each
  holds the bytes of its own maps.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t  # noqa: E402

EXAMPLES = os.path.join(t.SRCDIR, "examples")
PG = 4096


def example(name, cmd):
    """Run examples/NAME.stp on CMD; (Run, the script's output)."""
    out = os.path.join(t.tmpdir(), name + ".out")
    r = t.maptap(["-o", out, "-c", cmd, os.path.join(EXAMPLES, name +
                                                     ".stp")],
                 json_out=False, verify=False)
    text = open(out).read() if os.path.exists(out) else ""
    if r.status != 0:
        t.diag(r.stderr)
    return r, text


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], stdout=subprocess.PIPE,
                         text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return m.group(1) if m else None


def load_span(path):
    """Bytes from the first PT_LOAD's page to the last one's end, page
    aligned: what the dynamic linker maps for the file."""
    out = subprocess.run(["readelf", "-lW", path], stdout=subprocess.PIPE,
                         text=True).stdout
    loads = [(int(f[2], 16), int(f[5], 16)) for f in
             (line.split() for line in out.splitlines())
             if f and f[0] == "LOAD"]
    lo = min(v for v, _ in loads) // PG * PG
    hi = max(v + m for v, m in loads)
    return (hi + PG - 1) // PG * PG - lo


def interp(path):
    out = subprocess.run(["readelf", "-lW", path], stdout=subprocess.PIPE,
                         text=True).stdout
    m = re.search(r"interpreter: ([^\]]+)\]", out)
    return os.path.realpath(m.group(1)) if m else None


lib = t.build("ex_lib", shared=True,
              out=os.path.join(t.tmpdir(), "ex_lib.so"))
libs = t.build("ex_libs")
rep = os.path.join(t.tmpdir(), "ex_libs.rep")

# 1. Library-load timeline.
r, out = example("lib-timeline", "%s %s %s" % (libs, lib, rep))
t.eq(r.status, 0, "lib-timeline: runs, exit status 0")
mine = [line.split() for line in out.splitlines() if " %s " % lib in line]
t.eq([f[3] for f in mine], ["load", "unload"],
     "lib-timeline: one load and one unload line for the library")
bias = t.reports(open(rep).read()).get("bias", (None,))[0] \
    if os.path.exists(rep) else None
ld = interp(libs)
for f in mine:
    what = f[3] if len(f) > 3 else "?"
    t.eq(f[5:7] if len(f) > 6 else None,
         ["build-id=%s" % build_id(lib), "bias=0x%x" % (bias or 0)],
         "lib-timeline: %s line has readelf's build-id and the "
         "linker's bias" % what)
    caller = " ".join(f[7:])
    m = re.match(r"by (\S+) \((\S+)\)$", caller)
    t.ok(m and os.path.realpath(m.group(2)) == ld and
         ("munmap" if what == "unload" else "mmap") in m.group(1),
         "lib-timeline: %s line names the dynamic linker's call (%s)"
         % (what, caller))
t.ok(all(re.match(r"\+\d+\.\d{3} \d+ ", line) for line in out.splitlines()),
     "lib-timeline: every line starts with +MS.US PID")

# 2. W^X audit.
wx = t.build("ex_wx")
r, out = example("wx-audit", "%s %s" % (wx, wx))
t.eq(r.status, 0, "wx-audit: runs, exit status 0")
pid = out.split()[0] if out else "?"
want = """\
{p} ex_wx W^X 0x300000000-0x300001000 r-xp [anon] (by mprotect)
{p} ex_wx ANON-X 0x300000000-0x300001000 r-xp [anon] (by mprotect)
{p} ex_wx RWX 0x300010000-0x300011000 rwxp [anon] (by mmap)
{p} ex_wx ANON-X 0x300010000-0x300011000 rwxp [anon] (by mmap)
{p} ex_wx W^X 0x300020000-0x300021000 r-xp {f} (by mprotect)
W^X audit: ANON-X=2 RWX=1 W^X=2
""".format(p=pid, f=wx)
t.eq(out, want, "wx-audit: the target's five findings, nothing else")
r, out = example("wx-audit", "/bin/true")
t.eq(out, "W^X audit: clean\n", "wx-audit: /bin/true is clean")

# 3. Anonymous memory by name and size.
anon = t.build("ex_anon")


def anon_rows(mode):
    r, out = example("anon-by-name", "%s %s" % (anon, mode))
    rows = {}
    for line in out.splitlines()[1:]:
        f = line.split()
        if len(f) == 5 and f[1] == "ex_anon":
            rows[f[2]] = (int(f[3]), int(f[4]))
    return r, rows


r0, none = anon_rows("none")
r1, mapped = anon_rows("map")
t.eq((r0.status, r1.status), (0, 0), "anon-by-name: runs, exit status 0")
named = subprocess.run([anon, "map"], stdout=subprocess.PIPE,
                       text=True).stdout.strip() == "named 1"
if named:
    t.eq(mapped.get("[anon:ex-cache]"), (768, 1024),
         "anon-by-name: [anon:ex-cache] ends at 768 KiB, peaks at 1024")
    t.eq(mapped.get("[anon]"), none.get("[anon]"),
         "anon-by-name: the unnamed rest as without the mapping")
else:
    t.skip("anon-by-name: naming needs CONFIG_ANON_VMA_NAME; this kernel "
           "refuses prctl(PR_SET_VMA)")
    a0, a1 = none.get("[anon]", (0, 0)), mapped.get("[anon]", (0, 0))
    t.eq((a1[0] - a0[0], a1[1] - a0[1]), (768, 1024),
         "anon-by-name: unnamed [anon] is 768 KiB more at the end and "
         "1024 more at the peak")
t.eq(mapped.get("[stack]"), none.get("[stack]"),
     "anon-by-name: [stack] the same with and without the mapping")
t.ok(none.get("[stack]", (0, 0))[0] > 0, "anon-by-name: [stack] counted")

# 3b. A fork child: its counts are its own snapshot's, not a copy of its
# parent's on top of it (once it was both: twice the parent's [heap] and
# [stack]); a MADV_DONTFORK mapping of the parent is not in it.  A fork
# child's image that ends by exec gets its table too.
fork = t.build("ex_fork")


def fork_run(name):
    """Run examples/NAME.stp on ex_fork; (Run, output, {role: pid},
    {pid: maps lines})."""
    d = os.path.join(t.tmpdir(), "fork-" + name)
    os.mkdir(d)
    r, out = example(name, "%s %s" % (fork, d))
    roles, maps = {}, {}
    if os.path.exists(os.path.join(d, "roles")):
        for line in open(os.path.join(d, "roles")):
            role, pid = line.split()
            roles[role] = int(pid)
            maps[int(pid)] = open(os.path.join(d, pid + ".maps")).read()
    return r, out, roles, maps


def anon_of_maps(text):
    """KiB per name of memory backed by no file, as anon-by-name.stp
    counts it, from the text of /proc/PID/maps."""
    kib = {}
    for line in text.splitlines():
        f = line.split(None, 5)
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        name = f[5].strip() if len(f) > 5 else ""
        if name.startswith("/") or name in ("[vdso]", "[vvar]",
                                            "[vvar_vclock]", "[vsyscall]"):
            continue
        name = name or "[anon]"
        kib[name] = kib.get(name, 0) + (hi - lo)
    return {k: v // 1024 for k, v in kib.items()}


r, out, roles, maps = fork_run("anon-by-name")
t.eq(r.status, 0, "anon-by-name, fork: runs, exit status 0")
tables = {}         # (pid, execname) -> {name: KB}, in order of appearance
for line in out.splitlines()[1:]:
    f = line.split()
    if len(f) == 5:
        tables.setdefault((int(f[0]), f[1]), {})[f[2]] = int(f[3])
for role in ("parent", "fork", "exec"):
    pid = roles.get(role)
    t.eq(tables.get((pid, "ex_fork")),
         anon_of_maps(maps[pid]) if pid else None,
         "anon-by-name, fork: the %s's table (image ex_fork) is its own "
         "maps at its end" % role)
t.ok((roles.get("exec"), "true") in tables,
     "anon-by-name, fork: the exec'd image's table follows")
kid = tables.get((roles.get("fork"), "ex_fork"), {})
mom = tables.get((roles.get("parent"), "ex_fork"), {})
t.eq(kid.get("[anon]", 0), mom.get("[anon]", 0) - 512,
     "anon-by-name, fork: the child lacks its parent's 512 KiB "
     "MADV_DONTFORK mapping")

r, out, roles, maps = fork_run("module-bytes")
t.eq(r.status, 0, "module-bytes, fork: runs, exit status 0")
ends = {}
for line in out.splitlines():
    f = line.split()
    if len(f) == 4 and f[0] == "end":
        ends.setdefault(int(f[1]), {})[f[2]] = int(f[3])
parent = ends.get(roles.get("parent"), {})
t.ok(fork in parent and any("libc" in m for m in parent),
     "module-bytes, fork: the parent's end table has ex_fork and libc")
t.eq(ends.get(roles.get("fork")), parent,
     "module-bytes, fork: the child that did not exec ends with its "
     "parent's modules, each once")
old = [line.split() for line in out.splitlines()
       if line.startswith("end %s " % roles.get("exec"))]
first = {}          # the first table: until a module comes again
for f in old:
    if f[2] in first:
        break
    first[f[2]] = int(f[3])
t.eq(first, parent,
     "module-bytes, fork: the image that ended by exec has its table, "
     "its parent's modules")
t.ok(len(old) > len(first) and fork not in [f[2] for f in old[len(first):]],
     "module-bytes, fork: the exec'd image's table comes after it")

# The same rule in --report: each record of ex_fork's processes holds the
# bytes of its own maps (the fork child's without the parent's
# MADV_DONTFORK mapping; it was a copy of the parent's).
d = os.path.join(t.tmpdir(), "fork-report")
os.mkdir(d)
jf = os.path.join(d, "report.json")
r = t.maptap(["--report", "--json", "-o", jf, "-c", "%s %s" % (fork, d)],
             json_out=False, verify=False)
recs = {}
for line in open(jf) if os.path.exists(jf) else []:
    e = json.loads(line)
    if e.get("event") == "report" and e["exe"] == fork:
        recs[e["pid"]] = e["live_bytes"]
roles = dict(line.split() for line in open(os.path.join(d, "roles")))
for role in ("parent", "fork", "exec"):
    pid = roles.get(role)
    total = sum(int(b, 16) - int(a, 16) for a, b in
                (line.split()[0].split("-")
                 for line in open(os.path.join(d, "%s.maps" % pid))))
    t.eq(recs.get(int(pid)), total,
         "--report, fork: the %s's record (image ex_fork) holds its own "
         "maps' bytes" % role)

# 4. Mapped bytes per module over time.
r, out = example("module-bytes", "%s %s %s" % (libs, lib, rep))
t.eq(r.status, 0, "module-bytes: runs, exit status 0")
totals = [int(line.split()[3]) for line in out.splitlines()
          if line.startswith("+") and line.split()[2] == lib]
t.ok(totals and max(totals) == load_span(lib),
     "module-bytes: the library peaks at its PT_LOAD span (%s, want %d)"
     % (max(totals) if totals else None, load_span(lib)))
t.eq(totals[-1:], [0], "module-bytes: the library ends at 0 bytes")
t.ok(not any(line.startswith("end ") and lib in line
             for line in out.splitlines()),
     "module-bytes: the unloaded library is not in the end table")
t.ok(any(line.startswith("end ") and line.split()[2] == libs
         for line in out.splitlines()),
     "module-bytes: the executable is in its end table")

t.done()
