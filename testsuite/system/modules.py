#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""modules.py -- system tests of maptap's module, segment and symbol layer.

Each case builds testsuite/targets/m_main.c (and m_lib.c) at test time in
one link-time variant, runs it, and resolves addresses of the live
process with testsuite/unit/symquery (libmaptap's maptap_sym_lookup).
Expected results come from elsewhere: the addresses the target prints for
its own symbols, the load biases its dynamic linker reports
(dl_iterate_phdr), and nm/readelf on the built files.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t  # noqa: E402

SYMQUERY = os.path.join(t.BUILDDIR, "testsuite", "unit", "symquery")
PAGE = 4096


class Target:
    """A running m_main: its symbols, biases and vdso address."""

    def __init__(self, exe, args=()):
        self.proc = subprocess.Popen([exe] + list(args), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.pid = self.proc.pid
        self.syms = {}
        self.bias = {}
        self.vdso = None
        for line in self.proc.stdout:
            w = line.split(None, 2)
            if w[0] == "ready":
                break
            if w[0] == "sym":
                n, a = w[2].split()
                self.syms.setdefault(w[1], {})[n] = int(a, 16)
            elif w[0] == "bias":
                self.bias[w[2].rstrip("\n")] = int(w[1], 16)
            elif w[0] == "vdso":
                self.vdso = int(w[1], 16)

    def stop(self):
        try:
            self.proc.communicate("x\n", timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()


def query(pid, addrs, *opts):
    r = subprocess.run([SYMQUERY] + list(opts) + [str(pid)] +
                       ["%x" % a for a in addrs], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        t.diag("symquery failed: " + r.stderr)
        return [None] * len(addrs)
    return [json.loads(l) for l in r.stdout.splitlines()]


def nm(path, *opts):
    """{name: (value, size)} of the sized symbols nm lists."""
    out = subprocess.run(["nm", "-S", "--defined-only"] + list(opts) + [path],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True).stdout
    res = {}
    for line in out.splitlines():
        w = line.split()
        if len(w) == 4:
            res[w[3]] = (int(w[0], 16), int(w[1], 16))
    return res


def loads(path):
    """Program headers of PATH as readelf prints them: a list of
    (index, type, offset, vaddr, filesz, memsz, flags)."""
    out = subprocess.run(["readelf", "-lW", path], stdout=subprocess.PIPE,
                         text=True).stdout
    res = []
    for line in out.splitlines():
        w = line.split()
        if not w or not re.match(r"^[A-Z_]+$", w[0]) or len(w) < 7 or \
                not w[1].startswith("0x"):
            continue
        flags = "".join(x for x in w[6:-1] if x in ("R", "W", "E", "RW",
                                                   "RE", "RWE"))
        res.append((len(res), w[0], int(w[1], 16), int(w[2], 16),
                    int(w[4], 16), int(w[5], 16), flags))
    return res


def expect_kind(phdrs, vaddr):
    """(index, kind) of the PT_LOAD holding VADDR, by the DESIGN.md rules,
    for an address in a process that has finished relocation."""
    relro = [p for p in phdrs if p[1] == "GNU_RELRO"]
    for p in phdrs:
        if p[1] != "LOAD" or not p[3] <= vaddr < p[3] + p[5]:
            continue
        if "E" in p[6]:
            return p[0], "text"
        if "W" not in p[6]:
            return p[0], "rodata"
        for r in relro:
            lo, hi = r[3] & ~(PAGE - 1), (r[3] + r[5]) & ~(PAGE - 1)
            if lo <= vaddr < hi:
                return p[0], "relro"
        if vaddr >= (p[3] + p[4] + PAGE - 1) & ~(PAGE - 1):
            return p[0], "bss"
        return p[0], "data"
    return None, None


def check_sym(res, kind, name, addr, off, size, what):
    s = res and res.get(kind)
    got = s and (s["name"], int(s["addr"], 16), int(s["offset"], 16),
                 int(s["size"], 16))
    t.eq(got, (name, addr, off, size), what)


def check_main(label, exe, pie):
    tg = Target(exe)
    try:
        sizes = nm(exe)
        phdrs = loads(exe)
        bias = tg.bias.get("-")
        mine = tg.syms["main"]
        cases = [("func", "m_func", 0), ("func", "m_func", 1),
                 ("data", "m_data", 2), ("data", "m_rodata", 3),
                 ("data", "m_bss_a", 63), ("data", "m_bss_b", 0),
                 ("data", "m_bss_big", 2 * PAGE + 5)]
        res = query(tg.pid, [mine[n] + o for _, n, o in cases])
        r0 = res[0] or {}
        mod = r0.get("module") or {}
        t.eq(mod.get("type"), "dyn" if pie else "exec", label + ": type")
        t.eq(int(mod.get("bias", "0x1"), 16), bias,
             label + ": bias is the dynamic linker's")
        t.eq(mod.get("path"), exe, label + ": path")
        for (kind, name, off), r in zip(cases, res):
            check_sym(r, kind, name, mine[name], off, sizes[name][1],
                      "%s: %s+%d" % (label, name, off))
            want = expect_kind(phdrs, mine[name] + off - bias)
            seg = r and r.get("segment") or {}
            t.eq((seg.get("index"), seg.get("kind")), want,
                 "%s: segment of %s+%d" % (label, name, off))
        # The first text byte outside every sized symbol (.init, the PLT,
        # padding): in the module, in no function.
        text = [p for p in phdrs if p[1] == "LOAD" and "E" in p[6]][0]
        spans = sorted(sizes.values())
        gap = text[3]
        for v, sz in spans:
            if v <= gap < v + sz:
                gap = v + sz
        r = query(tg.pid, [gap + bias])[0]
        t.ok(r and r["module"] and r["func"] is None,
             "%s: text byte %#x outside every symbol is unresolved" %
             (label, gap))
    finally:
        tg.stop()


def check_libs(label, lib, tg, tags):
    """Library symbols of TAGS in target TG resolve, at the biases its
    dynamic linker reports, to the names, starts and sizes nm gives."""
    sizes = nm(lib)
    for tag, path in tags:
        s = tg.syms[tag]
        res = query(tg.pid, [s["m_lib_func"] + 4, s["m_lib_data"] + 1,
                             s["m_lib_bss"] + 200])
        check_sym(res[0], "func", "m_lib_func", s["m_lib_func"], 4,
                  sizes["m_lib_func"][1], "%s %s: m_lib_func+4" % (label, tag))
        check_sym(res[1], "data", "m_lib_data", s["m_lib_data"], 1,
                  sizes["m_lib_data"][1], "%s %s: m_lib_data+1" % (label, tag))
        check_sym(res[2], "data", "m_lib_bss", s["m_lib_bss"], 200,
                  sizes["m_lib_bss"][1], "%s %s: m_lib_bss+200" % (label, tag))
        mod = (res[0] or {}).get("module") or {}
        if path is not None:
            t.eq(mod.get("path"), path, "%s %s: module path" % (label, tag))
            want = tg.bias.get(path)
            t.eq(int(mod.get("bias", "0x1"), 16), want,
                 "%s %s: bias is the dynamic linker's" % (label, tag))


def test_executables():
    variants = [
        ("pie", ["-fPIE", "-pie"], True),
        ("non-pie", ["-fno-PIE", "-no-pie"], False),
        ("pie separate-code", ["-fPIE", "-pie", "-Wl,-z,separate-code"], True),
        ("pie noseparate-code", ["-fPIE", "-pie", "-Wl,-z,noseparate-code"],
         True),
        ("non-pie noseparate-code", ["-fno-PIE", "-no-pie",
                                     "-Wl,-z,noseparate-code"], False),
        ("pie 2MiB pages", ["-fPIE", "-pie", "-Wl,-z,max-page-size=0x200000",
                            "-Wl,-z,common-page-size=0x200000"], True),
    ]
    for i, (label, flags, pie) in enumerate(variants):
        exe = t.build("m_main", *flags, out=os.path.join(t.tmpdir(),
                                                         "m_main%d" % i))
        check_main(label, exe, pie)


def test_libraries():
    d = t.tmpdir()
    lib = t.build("m_lib", shared=True, out=os.path.join(d, "m_lib.so"))
    exe = t.build("m_main", out=os.path.join(d, "m_main_libs"))
    ttext = t.build("m_lib", "-Wl,-Ttext-segment=0x10000000", shared=True,
                    out=os.path.join(d, "m_lib_ttext.so"))
    spaced = os.path.join(d, "dir with space")
    os.mkdir(spaced)
    copy1 = os.path.join(spaced, "copy one.so")
    copy2 = os.path.join(d, "copy2.so")
    shutil.copy(lib, copy1)
    shutil.copy(lib, copy2)
    gone = os.path.join(d, "deleted.so")
    shutil.copy(lib, gone)
    replaced = os.path.join(d, "replaced.so")
    shutil.copy(lib, replaced)
    other = t.build("m_lib", "-O2", shared=True,
                    out=os.path.join(d, "other.so"))
    tg = Target(exe, ["dlopen:" + ttext, "dlopen:" + copy1,
                      "dlopen:" + copy2, "deleted:" + gone,
                      "memfd:" + lib, "dlopen:" + replaced])
    try:
        t.ok(not os.path.exists(gone), "the deleted library is gone")
        # Replace the file on disk by another build (a new inode at the
        # same path): lookups must still read the mapped one.
        os.replace(other, replaced)
        want_id = re.search(r"Build ID: ([0-9a-f]+)", subprocess.run(
            ["readelf", "-n", lib], stdout=subprocess.PIPE,
            text=True).stdout).group(1)
        now_id = re.search(r"Build ID: ([0-9a-f]+)", subprocess.run(
            ["readelf", "-n", replaced], stdout=subprocess.PIPE,
            text=True).stdout).group(1)
        t.ok(want_id != now_id, "the replacement is another build")
        check_libs("replaced", lib, tg, [("lib6", replaced)])
        r = query(tg.pid, [tg.syms["lib6"]["m_lib_func"]])[0] or {}
        t.eq((r.get("module") or {}).get("build_id"), want_id,
             "replaced: the build-id of the mapped file, not the new one")
        check_libs("Ttext-segment", lib, tg, [("lib1", ttext)])
        check_libs("two copies", lib, tg, [("lib2", copy1),
                                           ("lib3", copy2)])
        check_libs("deleted", lib, tg, [("lib4", gone)])
        check_libs("memfd", lib, tg, [("lib5", None)])
        res = query(tg.pid, [tg.syms["lib1"]["m_lib_func"],
                             tg.syms["lib2"]["m_lib_func"],
                             tg.syms["lib5"]["m_lib_func"]])
        seg = (res[0] or {}).get("segment") or {}
        want = [p for p in loads(ttext) if p[1] == "LOAD" and "E" in p[6]]
        t.eq(int(seg.get("p_vaddr", "0x1"), 16), want[0][3] if want else None,
             "Ttext-segment: text p_vaddr from the file's headers")
        b = [(r or {}).get("module", {}).get("build_id") for r in res]
        t.ok(b[1] and b[1] == b[2] and b[0] != b[1],
             "copies share a build-id, another build differs")
        t.ok(res[2] and res[2]["module"]["path"].startswith("/memfd:m_lib"),
             "memfd library named as maps names it: %s" %
             (res[2] and res[2]["module"]["path"]))
    finally:
        tg.stop()


def vdso_symbols(pid, start, end):
    """{value: [names]} of the vdso's dynamic symbols, from the image
    read out of the process and readelf."""
    path = os.path.join(t.tmpdir(), "vdso.so")
    with open("/proc/%d/mem" % pid, "rb") as f:
        f.seek(start)
        img = f.read(end - start)
    with open(path, "wb") as f:
        f.write(img)
    out = subprocess.run(["readelf", "--dyn-syms", "-W", path],
                         stdout=subprocess.PIPE, text=True).stdout
    res = {}
    for line in out.splitlines():
        w = line.split()
        if len(w) >= 8 and w[3] == "FUNC" and w[0].endswith(":"):
            res.setdefault(int(w[1], 16), []).append(w[7].split("@")[0])
    return res, loads(path)


def check_vdso(label, pid, rng, *opts):
    """clock_gettime+1 in the vdso at RNG of PID resolves to a vdso
    symbol of that value (readelf on the image read from the process)."""
    syms, phdrs = vdso_symbols(pid, *rng)
    base = min(p[3] for p in phdrs if p[1] == "LOAD")
    cg = [v for v, n in syms.items() if "clock_gettime" in n]
    if not t.ok(cg, "%s: readelf finds clock_gettime in the vdso" % label):
        return
    r = query(pid, [rng[0] + cg[0] - base + 1], *opts)[0] or {}
    t.eq((r.get("module") or {}).get("type"), "vdso",
         "%s: vdso module type" % label)
    t.eq((r.get("module") or {}).get("path"), "[vdso]",
         "%s: vdso module name" % label)
    f = r.get("func") or {}
    t.ok(f.get("name") in syms[cg[0]] and f.get("offset") == "0x1",
         "%s: clock_gettime+1 resolves to %s+1 (one of %s)" %
         (label, f.get("name"), syms[cg[0]]))


def vdso_in_maps(pid):
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            if line.rstrip().endswith("[vdso]"):
                a, b = line.split()[0].split("-")
                return int(a, 16), int(b, 16)
    return None


def test_vdso():
    """The vdso by its [vdso] name, and by AT_SYSINFO_EHDR alone when
    the name is hidden (symquery -A)."""
    exe = t.build("m_main", out=os.path.join(t.tmpdir(), "m_main_vdso"))
    tg = Target(exe)
    try:
        rng = vdso_in_maps(tg.pid)
        if not t.ok(rng and rng[0] == tg.vdso, "vdso at AT_SYSINFO_EHDR"):
            return
        check_vdso("vdso", tg.pid, rng)
        check_vdso("nameless vdso", tg.pid, rng, "-A")
    finally:
        tg.stop()


def test_vdso_moved():
    """A vdso moved with mremap (as CRIU restores it): found at its new
    place by its name; AT_SYSINFO_EHDR still says the old place, where
    the target then maps nameless code that is not ELF: not the vdso,
    even when the vdso is looked for through AT_SYSINFO_EHDR (-A)."""
    exe = t.build("m_vdso_move", out=os.path.join(t.tmpdir(), "m_vdso_move"))
    p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    try:
        w = p.stdout.readline().split()
        if not t.ok(w and w[0] == "vdso" and p.stdout.readline() ==
                    "ready\n", "the target moved its vdso"):
            return
        old, new, size, aux = (int(x, 16) for x in w[1:5])
        t.ok(vdso_in_maps(p.pid) == (new, new + size) and aux == old,
             "maps shows [vdso] at the new place, auxv the old one")
        check_vdso("moved vdso", p.pid, (new, new + size))
        for opts in ((), ("-A",)):
            r = query(p.pid, [old + 16], *opts)[0] or {}
            t.eq(r.get("module"), None,
                 "moved vdso%s: the code at the old place is no module" %
                 (" -A" if opts else ""))
    finally:
        p.communicate("x\n")


def test_debuginfo():
    d = t.tmpdir()
    exe = t.build("m_main", out=os.path.join(d, "m_dbg"))
    sizes = nm(exe)
    dbg = exe + ".debug"
    subprocess.run(["objcopy", "--only-keep-debug", exe, dbg], check=True)
    linked = os.path.join(d, "m_dbg_link")
    subprocess.run(["objcopy", "--strip-all", "--add-gnu-debuglink=" + dbg,
                    exe, linked], check=True)
    byid = os.path.join(d, "m_dbg_id")
    subprocess.run(["objcopy", "--strip-all", exe, byid], check=True)
    bid = subprocess.run(["readelf", "-n", exe], stdout=subprocess.PIPE,
                         text=True).stdout
    bid = re.search(r"Build ID: ([0-9a-f]+)", bid).group(1)
    root = os.path.join(d, "debugroot")
    os.makedirs(os.path.join(root, ".build-id", bid[:2]))
    shutil.copy(dbg, os.path.join(root, ".build-id", bid[:2],
                                  bid[2:] + ".debug"))
    t.ok("m_func" not in nm(linked) and "m_func" not in nm(byid),
         "stripped binaries have no m_func symbol")
    for label, path, opts in (("debuglink", linked, []),
                              ("build-id", byid, ["-D", root])):
        tg = Target(path)
        try:
            f = tg.syms["main"]["m_func"]
            r = query(tg.pid, [f + 2, tg.syms["main"]["m_bss_b"] + 1],
                      "-l", *opts)
            check_sym(r[0], "func", "m_func", f, 2, sizes["m_func"][1],
                      label + ": m_func+2 from separate debuginfo")
            check_sym(r[1], "data", "m_bss_b", tg.syms["main"]["m_bss_b"], 1,
                      64, label + ": m_bss_b+1 from separate debuginfo")
            t.ok(r[0] and (r[0]["file"] or "").endswith("m_main.c") and
                 r[0]["line"] > 0, label + ": file:line from debuginfo")
        finally:
            tg.stop()


def eu_names(pid, addrs):
    """eu-addr2line -S's symbol names (None where it says ??)."""
    r = subprocess.run(["eu-addr2line", "--pid=%d" % pid, "-S"] +
                       ["0x%x" % a for a in addrs], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    lines = r.stdout.splitlines()
    res = []
    for i in range(0, len(lines) - 1, 2):
        s = lines[i]
        res.append(None if s.startswith("??") else re.sub(r"\+0x[0-9a-f]+$",
                                                           "", s))
    return res


def sized_names(paths):
    """Names nm lists with a non-zero size in any of PATHS (dynamic
    symbols included)."""
    names = set()
    for p in paths:
        for opts in ((), ("-D",)):
            names.update(n for n, (v, sz) in nm(p, *opts).items() if sz)
    return names


def debug_file(build_id):
    p = "/usr/lib/debug/.build-id/%s/%s.debug" % (build_id[:2], build_id[2:])
    return p if os.path.exists(p) else None


def test_against_eu():
    """Text addresses of libc and the target: where eu-addr2line names a
    symbol that has a size, maptap names the same one.  (eu-addr2line
    also answers with sizeless labels such as _init and the nearest
    symbol below; maptap by design does not.)"""
    if not shutil.which("eu-addr2line"):
        t.skip("eu-addr2line not installed")
        return
    exe = t.build("m_main", out=os.path.join(t.tmpdir(), "m_main_eu"))
    tg = Target(exe)
    try:
        addrs, files = [], set()
        with open("/proc/%d/maps" % tg.pid) as f:
            for line in f:
                w = line.split()
                if len(w) >= 6 and w[1] == "r-xp" and \
                        ("libc.so" in w[5] or w[5] == exe):
                    a, b = (int(x, 16) for x in w[0].split("-"))
                    step = max((b - a) // 150, 1)
                    addrs += list(range(a + 17, b, step))
                    files.add(w[5])
        eu = eu_names(tg.pid, addrs)
        res = query(tg.pid, addrs)
        for r in res:
            bid = r and r["module"] and r["module"]["build_id"]
            if bid and debug_file(bid):
                files.add(debug_file(bid))
        sized = sized_names(files)
        mine = [(r or {}).get("func") for r in res]
        mine = [m and m["name"] for m in mine]
        both = [(a, e, m) for a, e, m in zip(addrs, eu, mine)
                if e and e in sized]
        bad = [(hex(a), e, m) for a, e, m in both if e != m]
        t.ok(len(both) > 100, "eu-addr2line names %d of %d addresses "
             "with sized symbols" % (len(both), len(addrs)))
        if not t.ok(not bad, "maptap agrees on all of them"):
            t.diag("\n".join(map(str, bad[:20])))
        other = [(hex(a), e, m) for a, e, m in zip(addrs, eu, mine)
                 if e and e not in sized]
        t.diag("eu-addr2line's other answers (labels, nearest below): %d,"
               " e.g. %s" % (len(other), other[:3]))
        extra = sum(1 for e, m in zip(eu, mine) if m and not e)
        t.diag("maptap names %d addresses eu-addr2line does not" % extra)
    finally:
        tg.stop()


def test_traced():
    """Under a session (symquery -t): module_load/module_unload from real
    events, segment kinds on range events, and an address of a library
    that was dlclosed resolving as it was when recorded, while the same
    address now belongs to another library."""
    d = t.tmpdir()
    lib = t.build("m_lib", shared=True, out=os.path.join(d, "traced.so"))
    lib2 = os.path.join(d, "traced2.so")
    shutil.copy(lib, lib2)
    exe = t.build("m_main", out=os.path.join(d, "m_main_traced"))
    out = os.path.join(d, "traced.out")
    p = subprocess.Popen([SYMQUERY, "-t", "-o", out, exe, "close:" + lib,
                          "dlopen:" + lib2], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    events = []
    for line in p.stdout:
        ev = json.loads(line)
        if ev["event"] == "end":
            break
        events.append(ev)
    syms = {}
    with open(out) as f:
        for line in f:
            w = line.split()
            if w[0] == "sym":
                syms.setdefault(w[1], {})[w[2]] = int(w[3], 16)
    pid = events[0]["pid"] if events else 0
    load = [e for e in events if e["event"] == "module_load" and
            e["path"] == lib]
    unload = [e for e in events if e["event"] == "module_unload" and
              e["path"] == lib]
    t.ok(len(load) == 1 and len(unload) == 1 and
         load[0]["bias"] == unload[0]["bias"],
         "one module_load and one module_unload of the dlclosed library")
    kinds = set(e["segment"]["kind"] for e in events
                if e.get("module") and e["module"]["path"] == lib and
                e.get("segment"))
    t.ok({"text", "rodata", "relro"} <= kinds,
         "its range events carry segment kinds %s" % sorted(kinds))
    mains = [e for e in events if e["event"] == "module_load" and
             e["path"] == exe]
    t.ok(len(mains) == 1 and mains[0]["type"] == "dyn",
         "the executable is loaded once, as dyn")
    if not (load and unload and "lib1" in syms):
        p.kill()
        p.communicate()
        t.ok(False, "traced run incomplete")
        return
    f = syms["lib1"]["m_lib_func"] + 4
    bss = syms["lib1"]["m_lib_bss"] + 5
    when = unload[0]["time_ns"] - 1
    q = "%d %d %x\n%d %d %x\n%d 0 %x\n" % (pid, when, f, pid, when, bss,
                                            pid, f)
    ans, _ = p.communicate(q, timeout=60)
    ans = [json.loads(l) for l in ans.splitlines()]
    if not t.eq(len(ans), 3, "three answers after the run"):
        return
    check_sym(ans[0], "func", "m_lib_func", f - 4, 4, nm(lib)["m_lib_func"][1],
              "dlclosed: m_lib_func+4 as it was when recorded")
    t.eq((ans[0].get("module") or {}).get("path"), lib,
         "dlclosed: module as it was")
    check_sym(ans[1], "data", "m_lib_bss", bss - 5, 5,
              nm(lib)["m_lib_bss"][1], "dlclosed: m_lib_bss+5 as it was")
    now = (ans[2].get("module") or {}).get("path")
    t.ok(now != lib, "now the address is not the closed library's (%s)" %
         now)


def traced(args, out):
    """symquery -t ARGS with the child's stdout in OUT: (process, events
    up to "end", {tag: {name: addr}} and other lines of OUT)."""
    p = subprocess.Popen([SYMQUERY, "-t", "-o", out] + args,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    events = []
    for line in p.stdout:
        ev = json.loads(line)
        if ev["event"] == "end":
            break
        events.append(ev)
    syms, other = {}, []
    with open(out) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "sym":
                syms.setdefault(w[1], {})[w[2]] = int(w[3], 16)
            elif w:
                other.append(w)
    return p, events, syms, other


def test_textcopy():
    """A program that maps anonymous memory over its own text with
    MAP_FIXED, copies the bytes back and makes it r-x (text moved onto
    huge pages): the copy keeps the executable's module, segment and
    symbols."""
    d = t.tmpdir()
    t.build("m_copier", shared=True, out=os.path.join(d, "libm_copier.so"))
    exe = t.build("m_textcopy", "-L" + d, "-lm_copier", "-Wl,-rpath," + d,
                  out=os.path.join(d, "m_textcopy"))
    p, events, syms, other = traced([exe], os.path.join(d, "textcopy.out"))
    text = [w for w in other if w[0] == "text"]
    if not t.ok(text and "main" in syms, "the target copied its text"):
        p.kill()
        p.communicate()
        return
    lo, hi = int(text[0][1], 16), int(text[0][2], 16)
    pid = events[0]["pid"]
    s = syms["main"]
    t.ok(lo <= s["m_tc_func"] < hi and lo <= s["main"] < hi,
         "its functions lie in the copied range")
    rep = [e for e in events if e["event"] == "replace" and
           int(e["start"], 16) == lo and int(e["end"], 16) == hi]
    seg = rep and rep[0].get("segment") or {}
    t.ok(rep and (rep[0].get("module") or {}).get("path") == exe and
         seg.get("kind") == "text" and seg.get("anon") is True,
         "the MAP_FIXED replace event keeps the module and text segment, "
         "marked anon: %s" % (rep and rep[0]))
    prot = [e for e in events if e["event"] == "protect" and
            int(e["start"], 16) == lo]
    t.ok(prot and (prot[0].get("segment") or {}).get("anon") is True,
         "so does the mprotect to r-x")
    sizes = nm(exe)
    cases = [("func", "m_tc_func", 1), ("func", "m_tc_other", 5),
             ("func", "main", 0), ("data", "m_tc_data", 2)]
    q = "".join("%d 0 %x\n" % (pid, s[n] + o) for _, n, o in cases)
    ans, _ = p.communicate(q, timeout=60)
    ans = [json.loads(l) for l in ans.splitlines()]
    if not t.eq(len(ans), len(cases), "answers after the run"):
        return
    for (kind, name, off), r in zip(cases, ans):
        check_sym(r, kind, name, s[name], off, sizes[name][1],
                  "text copy: %s+%d" % (name, off))
    t.eq((ans[0].get("module") or {}).get("path"), exe,
         "text copy: module is the executable")
    seg = ans[0].get("segment") or {}
    t.eq((seg.get("kind"), seg.get("anon")), ("text", True),
         "text copy: text segment, anon")


def test_jit():
    """JIT code described in /tmp/perf-PID.map, including a line the
    target appends later."""
    exe = t.build("m_jit", out=os.path.join(t.tmpdir(), "m_jit"))
    p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    jit = {}

    def read_until_ready():
        for line in p.stdout:
            w = line.split(None, 1)
            if w[0] == "ready":
                return
            name_addr_size = w[1].rsplit(None, 2)
            jit[name_addr_size[0]] = (int(name_addr_size[1], 16),
                                      int(name_addr_size[2]))
    try:
        read_until_ready()
        a1, s1 = jit["jit_first"]
        a2, s2 = jit["jit::second(int)"]
        r = query(p.pid, [a1 + 3, a2, a1 + s1 + 4])
        check_sym(r[0], "func", "jit_first", a1, 3, s1, "jit: jit_first+3")
        t.eq(((r[0] or {}).get("module") or {}).get("type"), "jit",
             "jit: module type")
        t.eq(((r[0] or {}).get("module") or {}).get("path"),
             "/tmp/perf-%d.map" % p.pid, "jit: module path is the perf map")
        check_sym(r[1], "func", "jit::second(int)", a2, 0, s2,
                  "jit: a name with spaces and punctuation, raw")
        t.ok(r[2] is not None and r[2]["func"] is None,
             "jit: between two entries is unresolved")
        p.stdin.write("more\n")
        p.stdin.flush()
        read_until_ready()
        a3, s3 = jit["jit_third"]
        r = query(p.pid, [a3 + 1])
        check_sym(r[0], "func", "jit_third", a3, 1, s3,
                  "jit: a line appended later")
    finally:
        p.communicate("x\n")


def agree_with_eu(label, pid, want_both):
    """Text, read-only and data addresses across every ELF file PID maps:
    wherever eu-addr2line names a symbol and maptap names one (function
    or data), they are the same; data addresses included."""
    addrs, data = [], set()
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            w = line.split()
            if len(w) >= 6 and w[1] in ("r-xp", "r--p", "rw-p") and \
                    w[5].startswith("/") and "locale" not in w[5]:
                a, b = (int(x, 16) for x in w[0].split("-"))
                some = list(range(a + 13, b, max((b - a) // 60, 1)))
                addrs += some
                if w[1] != "r-xp":
                    data.update(some)
    eu = eu_names(pid, addrs)
    res = query(pid, addrs)
    both, both_data, bad = 0, 0, []
    for a, e, r in zip(addrs, eu, res):
        n = r and (r["func"] or r["data"] or {}).get("name")
        if not e or e.startswith("()") or not n:
            continue
        both += 1
        both_data += a in data and bool(r["data"])
        if e != n:
            bad.append((hex(a), e, n))
    t.ok(both > want_both, "%s: %d of %d addresses named by both" %
         (label, both, len(addrs)))
    t.ok(both_data > 0, "%s: %d of them data symbols in r--/rw- mappings" %
         (label, both_data))
    if not t.ok(not bad, "%s: maptap and eu-addr2line agree" % label):
        t.diag("\n".join(map(str, bad[:20])))


def test_python_against_eu():
    """A real program: python3 (this interpreter) waiting on stdin."""
    if not shutil.which("eu-addr2line"):
        t.skip("eu-addr2line not installed")
        return
    p = subprocess.Popen([sys.executable, "-c",
                          "import sys; print('ready', flush=True); "
                          "sys.stdin.readline()"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    p.stdout.readline()
    try:
        agree_with_eu("python3", p.pid, 200)
    finally:
        p.communicate("x\n")


def test_cxx_against_eu():
    """A C++ program (m_cxx, with libstdc++ mapped) waiting on stdin."""
    cxx = shutil.which("g++") or shutil.which("c++")
    if not cxx or not shutil.which("eu-addr2line"):
        t.skip("no C++ compiler or eu-addr2line")
        return
    exe = os.path.join(t.tmpdir(), "m_cxx_eu")
    r = subprocess.run([cxx, "-O2", "-g", "-o", exe,
                        os.path.join(t.TARGETS, "m_cxx.cc")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if not t.ok(r.returncode == 0, "build the C++ target"):
        t.diag(r.stdout)
        return
    tg = Target(exe)
    try:
        with open("/proc/%d/maps" % tg.pid) as f:
            t.ok("libstdc++" in f.read(), "C++: libstdc++ is mapped")
        agree_with_eu("C++", tg.pid, 200)
    finally:
        tg.stop()


def test_ls_against_eu():
    """ls, blocked writing a long listing into a pipe nobody reads: it
    sits in write(2) (/proc/PID/syscall says 1) with every library
    mapped."""
    ls = shutil.which("ls")
    if not ls or not shutil.which("eu-addr2line"):
        t.skip("no ls or eu-addr2line")
        return
    p = subprocess.Popen([ls, "-lR", "/usr"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    try:
        state = ""
        for _ in range(6000):
            with open("/proc/%d/syscall" % p.pid) as f:
                state = f.read().split()
            if state and state[0] == "1":
                break
            time.sleep(0.01)
        if not t.ok(state and state[0] == "1", "ls blocks in write(2)"):
            return
        agree_with_eu("ls", p.pid, 100)
    finally:
        p.kill()
        p.communicate()


def eu_lines(pid, addrs, inline):
    """{addr: [(file, line), ...]} from eu-addr2line -a (-i: the inline
    chain, innermost first)."""
    r = subprocess.run(["eu-addr2line", "--pid=%d" % pid, "-a"] +
                       (["-i"] if inline else []) +
                       ["0x%x" % a for a in addrs], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    res, cur = {}, None
    for line in r.stdout.splitlines():
        if line.startswith("0x"):
            cur = res.setdefault(int(line, 16), [])
        elif cur is not None:
            m = re.match(r"^(.*?):(\d+)(?::\d+)?$", line)
            cur.append((m.group(1), int(m.group(2))) if m else (None, 0))
    return res


def test_inline_lines():
    """Source lines in a function with inlined calls (m_inline.c, -O2 -g):
    for every byte of the caller, maptap's file:line is eu-addr2line's
    (without -i: the line-table row, i.e. the innermost inlined line).
    The inline chain (eu-addr2line -i) is not reported, see
    docs/modules.md."""
    if not shutil.which("eu-addr2line"):
        t.skip("eu-addr2line not installed")
        return
    exe = t.build("m_inline", "-O2", out=os.path.join(t.tmpdir(), "m_inline"))
    tg = Target(exe)
    try:
        f = tg.syms["main"]["m_in_caller"]
        addrs = list(range(f, f + nm(exe)["m_in_caller"][1]))
        chains = eu_lines(tg.pid, addrs, True)
        plain = eu_lines(tg.pid, addrs, False)
        res = query(tg.pid, addrs, "-l")
        inlined = [a for a in addrs if len(chains.get(a, [])) > 1]
        t.ok(inlined, "eu-addr2line -i sees inlined code at %d of %d "
             "addresses" % (len(inlined), len(addrs)))
        bad = [(hex(a), plain.get(a), r and (r["file"], r["line"]))
               for a, r in zip(addrs, res)
               if [(r and r["file"], r and r["line"])] != plain.get(a)]
        if not t.ok(not bad, "file:line equal to eu-addr2line's for all %d "
                    "bytes of m_in_caller" % len(addrs)):
            t.diag("\n".join(map(str, bad[:10])))
        t.ok(all(chains[a][0] == plain[a][0] for a in inlined),
             "which is the innermost entry of the inline chain")
    finally:
        tg.stop()


def test_cxx():
    """A C++ program: names raw by default (as nm prints them), demangled
    with -d exactly as c++filt demangles them."""
    cxx = shutil.which("g++") or shutil.which("c++")
    if not cxx or not shutil.which("c++filt"):
        t.skip("no C++ compiler or c++filt")
        return
    exe = os.path.join(t.tmpdir(), "m_cxx")
    r = subprocess.run([cxx, "-O0", "-g", "-o", exe,
                        os.path.join(t.TARGETS, "m_cxx.cc")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if not t.ok(r.returncode == 0, "build the C++ target"):
        t.diag(r.stdout)
        return
    sizes = nm(exe)
    first = [p for p in loads(exe) if p[1] == "LOAD" and p[2] == 0]
    tg = Target(exe)
    try:
        s = tg.syms["cxx"]
        # The bias from maps and the program headers: where offset 0 is
        # mapped minus the vaddr of the PT_LOAD at offset 0.
        with open("/proc/%d/maps" % tg.pid) as f:
            start = [int(l.split("-")[0], 16) for l in f
                     if l.split()[-1] == exe and l.split()[2] == "00000000"]
        bias = start[0] - (first[0][3] & ~(PAGE - 1))
        raw = {}
        for key in ("compute", "twice", "counter"):
            cands = [n for n, (v, sz) in sizes.items() if v + bias == s[key]]
            raw[key] = cands[0] if len(cands) == 1 else None
        plain = query(tg.pid, [s["compute"] + 1, s["twice"], s["counter"]])
        dem = query(tg.pid, [s["compute"] + 1, s["twice"], s["counter"]],
                    "-d")
        for i, (key, kind) in enumerate((("compute", "func"),
                                         ("twice", "func"),
                                         ("counter", "data"))):
            want = subprocess.run(["c++filt", raw[key] or ""],
                                  stdout=subprocess.PIPE,
                                  text=True).stdout.strip()
            got_raw = ((plain[i] or {}).get(kind) or {}).get("name")
            got_dem = ((dem[i] or {}).get(kind) or {}).get("name")
            t.eq(got_raw, raw[key], "C++ %s: raw name as nm has it" % key)
            t.eq(got_dem, want, "C++ %s: demangled as c++filt does" % key)
    finally:
        tg.stop()


TESTS = [test_executables, test_libraries, test_vdso, test_vdso_moved,
         test_debuginfo,
         test_against_eu, test_python_against_eu, test_cxx_against_eu,
         test_ls_against_eu, test_inline_lines, test_cxx, test_traced,
         test_textcopy, test_jit]


def main():
    """Run every test, or those named on the command line."""
    if not os.access(SYMQUERY, os.X_OK):
        t.skip("symquery not built (make check builds it)")
        t.done()
    for fn in TESTS:
        if len(sys.argv) < 2 or fn.__name__ in sys.argv[1:]:
            fn()
    t.done()


main()
