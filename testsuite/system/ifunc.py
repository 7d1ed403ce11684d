#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""ifunc.py -- breakpoint probes on IFUNC symbols (STT_GNU_IFUNC: libc's
strlen and memcpy, libm's cos; maptap_uprobe_insert_ifunc()): the probe
goes on the implementation the resolver chose in the traced process, so
it fires once per call (it fired once per resolver call before), counted
against the calls the target makes itself:

  1. -c: strlen (directly through the PLT and through a pointer), memcpy
     and cos through pointers; entry and .return; probefunc() is the
     IFUNC's name, uaddr() the implementation the target's pointer holds;
  2. the same with LD_BIND_NOW=1 (every choice made before main);
  3. GLIBC_TUNABLES that make libc choose another strlen: the probe
     follows the target's choice, not maptap's own;
  4. -x: a process whose choices were made before the attach (its GOT
     already holds them).
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t  # noqa: E402

PROG = t.build("u_ifunc", "-fno-builtin", "-lm")


def libpath(name):
    """The library NAME the target loads, from ldd."""
    out = subprocess.run(["ldd", PROG], stdout=subprocess.PIPE,
                         text=True).stdout
    for line in out.split("\n"):
        w = line.split()
        if len(w) >= 3 and w[0] == name:
            return os.path.realpath(w[2])
    return None


def is_ifunc(lib, sym):
    out = subprocess.run(["readelf", "-W", "--dyn-syms", lib],
                         stdout=subprocess.PIPE, text=True).stdout
    return any(len(w) >= 8 and w[3] == "IFUNC" and w[7].startswith(sym + "@")
               for w in (x.split() for x in out.split("\n")))


LIBC, LIBM = libpath("libc.so.6"), libpath("libm.so.6")
if not LIBC or not LIBM or not all(
        is_ifunc(LIBC, s) for s in ("strlen", "memcpy")) or \
        not is_ifunc(LIBM, "cos"):
    t.skip("this libc/libm has no IFUNC strlen, memcpy and cos")
    t.done()
    sys.exit(0)

SCRIPT = """
global on, n, at
probe process.function("u_mark") { on[tid()] = int_arg(1) }
probe process("%(c)s").function("strlen"),
      process("%(c)s").function("memcpy"),
      process("%(m)s").function("cos") {
	if (on[tid()]) {
		n[probefunc()]++
		if (probefunc() == "strlen")
			at = uaddr()
	}
}
probe process("%(c)s").function("strlen").return {
	if (on[tid()]) n["strlen.return"]++
}
probe end {
	foreach (k in n) printf("%%s %%d\\n", k, n[k])
	printf("at %%x\\n", at)
}
""" % {"c": LIBC, "m": LIBM}


def fields(text):
    d = {}
    for line in text.split("\n"):
        w = line.split()
        for i in range(0, len(w) - 1, 2):
            try:
                d[w[i]] = int(w[i + 1], 16 if w[i] in ("at", "impl", "off")
                              else 10)
            except ValueError:
                pass
    return d


def run(n, env=None, what=""):
    out = os.path.join(t.tmpdir(), "out-%d" % run.k)
    run.k += 1
    e = dict(os.environ)
    e.update(env or {})
    r = t.maptap(["-o", out, "-e", SCRIPT, "-c", "%s run %d" % (PROG, n)],
                 json_out=False, verify=False, env=e)
    if r.status != 0:
        t.diag(r.stderr)
    got = fields(open(out).read() if os.path.exists(out) else "")
    mine = fields(r.stdout)
    plain = subprocess.run([PROG, "run", str(n)], stdout=subprocess.PIPE,
                           text=True, env=e).stdout
    t.eq(r.stdout.split("\n")[0], plain.split("\n")[0],
         what + "the target's output is the untraced one")
    t.eq({k: got.get(k) for k in ("strlen", "memcpy", "cos",
                                  "strlen.return")},
         {"strlen": mine.get("strlen"), "memcpy": mine.get("memcpy"),
          "cos": mine.get("cos"), "strlen.return": mine.get("strlen")},
         what + "one hit per call the target made of strlen, memcpy, cos, "
         "and one return per strlen call")
    t.eq(got.get("at"), mine.get("impl"), what + "uaddr() of strlen's "
         "hits is the implementation the target's pointer holds")
    return mine.get("off")


run.k = 0

# 1, 2.
N = 1000
best = run(N, what="-c: ")
run(N, {"LD_BIND_NOW": "1"}, what="LD_BIND_NOW: ")

# 3. Another choice by tunables (ld.so's cpu features of the target).
OFF = "glibc.cpu.hwcaps=-AVX2,-AVX512F,-AVX512VL,-AVX512BW,-EVEX,-BMI2"
sse2 = run(N, {"GLIBC_TUNABLES": OFF}, what="GLIBC_TUNABLES: ")
if best == sse2:
    t.skip("this CPU's best strlen is the baseline one: no other choice")
else:
    t.ok(best is not None and sse2 is not None,
         "GLIBC_TUNABLES: the target chose another strlen (offsets %s, %s) "
         "and the probe followed it" % (best, sse2))

# 4. -x after the choices were made.
tp = subprocess.Popen([PROG, "wait", str(N)], stdin=subprocess.PIPE,
                      stdout=subprocess.PIPE, text=True)
w = tp.stdout.readline().split()
pid, impl = int(w[1]), int(w[2], 16)
out = os.path.join(t.tmpdir(), "attach")
full, _ = t.maptap_argv(["-o", out, "-e", SCRIPT, "-x", str(pid)],
                        json_out=False, verify=False)
mp = subprocess.Popen(full, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE, text=True)


def placed():
    """The int3 at the implementation the target chose (read from its
    GOT at the attach): the probes are in."""
    try:
        with open("/proc/%d/mem" % pid, "rb") as m:
            m.seek(impl)
            return m.read(1) == b"\xcc"
    except OSError:
        return False


t.ok(t.wait_until(placed, what="the breakpoint at the chosen strlen"),
     "-x: the breakpoint is on the strlen the target chose")
tp.stdin.write("go\n")
tp.stdin.flush()
rest = tp.stdout.read()
tp.stdin.close()
tp.wait(timeout=60)
r = t.finish(mp, full, None)
got = fields(open(out).read() if os.path.exists(out) else "")
mine = fields(rest)
t.eq((got.get("strlen"), got.get("memcpy"), got.get("cos"),
      got.get("strlen.return")),
     (mine.get("strlen"), mine.get("memcpy"), mine.get("cos"),
      mine.get("strlen")),
     "-x: one hit per call made after the attach, choices made before it")
t.eq(got.get("at"), impl, "-x: uaddr() is the chosen strlen")
t.done()
