#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""run.py -- maptap's symbol lookups against eu-addr2line and binutils
addr2line on the same addresses in one run.

    bench/symbols/run.py [-n COUNT] [-e EU_COUNT] [LIBRARY...]

For each LIBRARY (default: libLLVM-14 if installed, and libc), a small
target (hold.c, built now) dlopens it and waits; COUNT random addresses
(seed 1) in the library's text mapping are resolved to function names by
  - maptap:       testsuite/unit/symquery -n -v PID   (libmaptap)
  - eu-addr2line: eu-addr2line --pid=PID -S
  - addr2line:    addr2line -f -e LIBRARY  (module-relative addresses)
each reading the addresses on stdin.  Wall time includes each tool's
start-up and symbol loading; maptap's own -v line splits the first
lookup (which builds the index) from the rest, and times the lookups
again with nothing printed.  eu-addr2line gets only the first EU_COUNT
(default 5000) of the same addresses: it spends ~13 ms per address in
libLLVM, so 100,000 would take over 20 minutes; its rate is per address
actually resolved.  Run from a build directory (or set top_builddir).
"""
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("top_builddir", os.getcwd())
SYMQUERY = os.path.join(BUILD, "testsuite", "unit", "symquery")
# Run the real program, not libtool's wrapper script (which costs half a
# second per start on its own).
if os.path.exists(os.path.join(BUILD, "testsuite", "unit", ".libs",
                               "symquery")):
    SYMQUERY = os.path.join(BUILD, "testsuite", "unit", ".libs", "symquery")
    os.environ["LD_LIBRARY_PATH"] = os.path.join(BUILD, ".libs")


def text_range(pid, lib):
    real = os.path.realpath(lib)
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            w = line.split()
            if len(w) >= 6 and w[1] == "r-xp" and \
                    os.path.realpath(w[5]) == real:
                a, b = (int(x, 16) for x in w[0].split("-"))
                return a, b, int(w[2], 16)
    raise SystemExit("%s: no text mapping in %d" % (lib, pid))


def timed(cmd, data):
    t0 = time.monotonic()
    r = subprocess.run(cmd, input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    return time.monotonic() - t0, r.stdout.splitlines(), r.stderr


def module_base(lib):
    """vaddr - file offset of the text segment: maps offset -> vaddr."""
    out = subprocess.run(["readelf", "-lW", lib], stdout=subprocess.PIPE,
                         text=True).stdout
    for line in out.splitlines():
        w = line.split()
        if w and w[0] == "LOAD" and "E" in w[6:-1]:
            return int(w[2], 16) - int(w[1], 16)
    return 0


def bench(lib, count, eu_count, hold):
    p = subprocess.Popen([hold, lib], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    p.stdout.readline()
    try:
        lo, hi, off = text_range(p.pid, lib)
        rnd = random.Random(1)
        addrs = [rnd.randrange(lo, hi) for _ in range(count)]
        # Module-relative for addr2line: vaddr = addr - start + offset +
        # (vaddr - offset of the text segment).
        delta = module_base(lib)
        rel = [a - lo + off + delta for a in addrs]
        data = "".join("%x\n" % a for a in addrs)
        reldata = "".join("%x\n" % a for a in rel)
        res = {}
        t, out, err = timed([SYMQUERY, "-n", "-v", str(p.pid)], data)
        res["maptap"] = (t, out, err.strip())
        eu_data = "".join("%x\n" % a for a in addrs[:eu_count])
        t, out, err = timed(["eu-addr2line", "--pid=%d" % p.pid, "-S"],
                            eu_data)
        res["eu-addr2line"] = (t, [re.sub(r"\+0x[0-9a-f]+$", "", l)
                                   for l in out[0::2]],
                               "first %d addresses only" % eu_count)
        t, out, err = timed(["addr2line", "-f", "-e", lib], reldata)
        res["addr2line"] = (t, out[0::2], "")
    finally:
        p.communicate("x\n")
    return res


def main():
    count, eu_count = 100000, 5000
    args = sys.argv[1:]
    while args[:1] in (["-n"], ["-e"]):
        if args[0] == "-n":
            count = int(args[1])
        else:
            eu_count = int(args[1])
        args = args[2:]
    eu_count = min(eu_count, count)
    libs = args or [l for l in ("/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
                                "/usr/lib/x86_64-linux-gnu/libc.so.6")
                    if os.path.exists(l)]
    tmp = tempfile.mkdtemp(prefix="maptap-bench-")
    hold = os.path.join(tmp, "hold")
    subprocess.run(["cc", "-O2", "-o", hold, os.path.join(HERE, "hold.c"),
                    "-ldl"], check=True)
    for lib in libs:
        res = bench(lib, count, eu_count, hold)
        base = count / res["maptap"][0]
        print("%s, %d addresses:" % (lib, count))
        for name, (t, names, note) in res.items():
            known = sum(1 for n in names if n and not n.startswith("??"))
            rate = len(names) / t
            vs = "-" if name == "maptap" else "%.1fx" % (base / rate)
            print("  %-13s %8.3f s for %6d  %10.0f addr/s  maptap faster "
                  "by %s  %d named" % (name, t, len(names), rate, vs, known))
            if note:
                print("      " + note)
        m, e = res["maptap"][1], res["eu-addr2line"][1]
        named = [(a, b) for a, b in zip(m, e) if a != "??"]
        same = sum(1 for a, b in named if a == b)
        print("  of the first %d, where maptap names an address (%d), "
              "eu-addr2line gives the same name for %d" %
              (len(e), len(named), same), flush=True)
    subprocess.run(["rm", "-rf", tmp])


main()
