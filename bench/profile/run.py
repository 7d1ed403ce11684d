#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench/profile/run.py -- what `maptap --profile` costs a CPU-bound
target, next to `perf record` on the same workload, and whether the two
agree on where the time went.

The target is testsuite/targets/p_spin.c with p_work.c (f60, f30, f10:
6:3:1 iterations of one loop), built with $CC -O2 -g, sized by its own
calibration to about SECONDS of CPU.  It measures its own work (wall
and CPU ns, P_SPIN_TIME), so maptap's and perf's start-up and reporting
are outside the figures.  Each round runs, in turn:

  untraced                    the target alone
  maptap --profile            top (no stack copies), 1000 Hz cpu-clock
  perf record -F 1000         same event and frequency, IP only
  maptap --profile=folded     8 KiB stack per sample, unwound by maptap
  perf record --call-graph dwarf,8192   the same stack copies

and prints the medians of the work's wall and CPU time (the target's
own, which includes the kernel's work of taking its samples) as ratios
to untraced,
and the shares of f60/f30/f10 in maptap's table and in `perf report`
(both as a percent of all samples).  Ratios, not timings: the figures
belong to the machine (and to its other load).

Usage: run.py [-r ROUNDS] [-s SECONDS] [-c CPU]  (-c pins every run,
tracer included, to one CPU with taskset).
Env: MAPTAP (default build/maptap), CC, PERF (default perf).
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
MAPTAP = os.environ.get("MAPTAP", os.path.join(SRC, "build", "maptap"))
PERF = os.environ.get("PERF", "perf")
CC = os.environ.get("CC", "cc").split()
FUNCS = ("f60", "f30", "f10")


def build(tmp):
    t = os.path.join(SRC, "testsuite", "targets")
    exe = os.path.join(tmp, "p_spin")
    subprocess.run(CC + ["-O2", "-g", "-DWORK_LINKED", "-o", exe,
                         os.path.join(t, "p_spin.c"),
                         os.path.join(t, "p_work.c"), "-ldl"], check=True)
    return exe


def work_time(stderr):
    m = re.search(r"p_spin wall_ns (\d+) cpu_ns (\d+)", stderr)
    if not m:
        raise SystemExit("no timing from the target:\n" + stderr)
    return int(m.group(1)) / 1e9, int(m.group(2)) / 1e9


def run(argv, prefix):
    env = dict(os.environ, P_SPIN_TIME="1")
    r = subprocess.run(list(prefix) + argv, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, env=env)
    if r.returncode:
        raise SystemExit("%s failed:\n%s" % (argv, r.stderr))
    return r


def maptap_shares(out):
    total = None
    got = {}
    for line in out.splitlines():
        m = re.match(r"maptap profile: (\d+) samples", line)
        if m:
            total = int(m.group(1))
        f = line.split()
        if len(f) >= 3 and f[0].endswith("%") and f[2] in FUNCS:
            got[f[2]] = float(f[0][:-1])
    return got, total


def perf_shares(data):
    r = subprocess.run([PERF, "report", "-i", data, "--stdio",
                        "--no-children", "--sort", "sym"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True)
    got = {}
    for line in r.stdout.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(\S+)", line)
        if m and m.group(2) in FUNCS:
            got[m.group(2)] = float(m.group(1))
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-r", type=int, default=5, help="rounds")
    ap.add_argument("-s", type=float, default=2.0, help="CPU seconds")
    ap.add_argument("-c", default=None, help="pin to this CPU")
    a = ap.parse_args()
    if not shutil.which(PERF):
        raise SystemExit("perf not found (PERF=...)")
    prefix = ("taskset", "-c", a.c) if a.c is not None else ()
    tmp = tempfile.mkdtemp(prefix="maptap-bench-profile-")
    exe = build(tmp)
    rate = int(subprocess.run([exe, "cal"], stdout=subprocess.PIPE,
                              text=True, check=True).stdout)
    rounds = 20
    n = max(1000, int(rate * a.s / (10 * rounds)))
    target = [exe, "run", str(n), str(rounds)]
    data = os.path.join(tmp, "perf.data")
    kinds = {
        "untraced": lambda: target,
        "maptap --profile": lambda: [MAPTAP, "--profile", "-c",
                                     " ".join(target)],
        "perf record -F 1000": lambda: [PERF, "record", "-q", "-F", "1000",
                                        "-e", "cpu-clock", "-o", data,
                                        "--"] + target,
        "maptap --profile=folded": lambda: [MAPTAP, "--profile=folded",
                                            "-c", " ".join(target)],
        "perf record --call-graph dwarf": lambda: [
            PERF, "record", "-q", "-F", "1000", "-e", "cpu-clock",
            "--call-graph", "dwarf,8192", "-o", data, "--"] + target,
    }
    wall = {k: [] for k in kinds}
    cpu = {k: [] for k in kinds}
    shares = {"maptap": [], "perf": []}
    for i in range(a.r):
        for k, argv in kinds.items():
            r = run(argv(), prefix)
            w, c = work_time(r.stderr)
            wall[k].append(w)
            cpu[k].append(c)
            if k == "maptap --profile":
                shares["maptap"].append(maptap_shares(r.stdout)[0])
            elif k == "perf record -F 1000":
                shares["perf"].append(perf_shares(data))
        print("round %d/%d done" % (i + 1, a.r), file=sys.stderr)
    base = statistics.median(wall["untraced"])
    print("work: %d x %d iterations, %.2f s untraced (median of %d)%s" %
          (rounds, 10 * n, base, a.r,
           ", pinned to CPU %s" % a.c if a.c is not None else ""))
    cbase = statistics.median(cpu["untraced"])
    print("%-32s %8s %8s %8s %8s" % ("run", "wall s", "ratio", "cpu s",
                                      "ratio"))
    for k in kinds:
        m = statistics.median(wall[k])
        c = statistics.median(cpu[k])
        print("%-32s %8.3f %7.3fx %8.3f %7.3fx" % (k, m, m / base, c,
                                                    c / cbase))
    print("shares (% of all samples, median over rounds):")
    print("%-6s %8s %8s %8s" % ("func", "maptap", "perf", "diff"))
    for f in FUNCS:
        mm = statistics.median(s.get(f, 0.0) for s in shares["maptap"])
        pp = statistics.median(s.get(f, 0.0) for s in shares["perf"])
        print("%-6s %7.2f%% %7.2f%% %+7.2f" % (f, mm, pp, mm - pp))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
