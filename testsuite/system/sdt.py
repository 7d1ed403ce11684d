#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""sdt.py -- SDT markers: process("PATH").mark("NAME"),
.provider("P").mark("NAME"), $argN / $$name / $$provider / $$parms,
semaphores (maptap/sdt.h, docs/probes.md), each checked against what the
target itself says it passed:

  1. sdt_marks.c (<sys/sdt.h>) at -O0 and -O2, with and without
     semaphores: every marker's $argN (registers of 8 to 64 bits, %bpl,
     memory at -16(%rbp) and (%rax,%r13,8), the constant $5, signed and
     unsigned) equal to the values the program printed, in order; the
     guarded marker runs only while traced with a semaphore;
  2. $$name, $$provider, $$parms, @defined($arg3), mark("*") and
     provider("sdt*") globs, the points' names (-p2), errors;
  3. semaphores in a fork's child and after exec; -x then exit(): the
     semaphore back to 0 in the target, which goes on untraced;
  4. python3.11 (Debian's, built with markers guarded by semaphores):
     function__return in the order Python's own profiler sees the
     returns of a small script; function__entry with readable strings;
  5. libstdc++'s throw marker in a C++ target: one hit per throw, $arg2
     the type_info of the thrown type.
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t  # noqa: E402


def build(name, *flags):
    out = os.path.join(t.tmpdir(), name)
    cmd = t.CC + list(flags) + ["-g", "-o", out,
                                os.path.join(t.TARGETS, "sdt_marks.c")]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode:
        t.diag(r.stdout)
        raise SystemExit("cannot build " + name)
    return out


def run(script, cmd, args=(), timeout=300):
    out = os.path.join(t.tmpdir(), "out-%d" % run.n)
    run.n += 1
    r = t.maptap(["-o", out] + list(args) + ["-e", script, "-c", cmd],
                 json_out=False, verify=False, timeout=timeout)
    text = open(out).read() if os.path.exists(out) else ""
    if r.status != 0:
        t.diag(r.stderr)
    return r, text


run.n = 0

ARGS = """
probe process("%(x)s").mark("triple") {
	printf("triple %%d %%d %%s\\n", $arg1, $arg2, user_string($arg3))
}
probe process("%(x)s").provider("sdtt").mark("small") {
	printf("small %%d %%d\\n", $arg1, $arg2)
}
probe process("%(x)s").mark("mem") { printf("mem %%d %%d\\n", $arg1, $arg2) }
probe process("%(x)s").mark("constant") { printf("constant %%d\\n", $arg1) }
probe process("%(x)s").mark("guarded") { printf("guarded %%d\\n", $arg1) }
"""

# 1. argument values, four builds.
N = 20
for opt in ("-O0", "-O2"):
    for sema in (False, True):
        name = "sdt%s%s" % (opt, "-sema" if sema else "")
        exe = build(name, opt, *(["-DWITH_SEMA"] if sema else []))
        r, out = run(ARGS % {"x": exe}, "%s %d" % (exe, N))
        lines = r.stdout.splitlines()
        want = [l for l in lines if not l.startswith("sema ")]
        t.eq(r.status, 0, "%s: exit status 0" % name)
        t.eq(out.splitlines(), want, "%s: every marker's $argN equal to "
             "what the program passed, in order (%d lines)"
             % (name, len(want)))
        guarded = sum(1 for l in want if l.startswith("guarded "))
        t.eq(guarded, N, "%s: the guarded marker fired %d times" % (name, N))
        if sema:
            t.eq(lines[-1], "sema 1", "%s: the semaphore is 1 while traced"
                 % name)
            code, plain = t.untraced([exe, str(N)])
            plain = plain.decode().splitlines()
            t.eq((plain[-1], sum(1 for l in plain
                                 if l.startswith("guarded "))),
                 ("sema 0", 0), "%s: untraced, the semaphore is 0 and the "
                 "guarded marker does not run" % name)
SEMA = exe  # -O2 with semaphores

# 2. $$name, $$provider, $$parms, @defined, globs, names.
r, out = run("""
global n, parms, def3, def2
probe process("%(x)s").mark("*") { n[$$provider, $$name]++ }
probe process("%(x)s").provider("sdt*").mark("small") {
	parms = $$parms
	def2 = @defined($arg2) + @defined($arg3)
}
probe process("%(x)s").mark("triple") { def3 = @defined($arg3) }
probe end {
	foreach ([p, m+] in n) printf("%%s:%%s %%d\\n", p, m, n[p, m])
	printf("parms %%s def %%d %%d\\n", parms, def2, def3)
}
""" % {"x": SEMA}, "%s 3" % SEMA)
t.eq(out.splitlines(), ["sdtt:constant 3", "sdtt:guarded 3", "sdtt:mem 3",
                        "sdtt:small 3", "sdtt:triple 3",
                        "parms arg1=0xfffffffffffffffe arg2=0xea62 def 1 1"],
     "$$provider, $$name, $$parms of -1@%bpl 2@%r12w (i = 2), "
     "@defined($arg2) and not $arg3 of a two-argument marker")
r, out = run('probe process("%s").provider("sdtt").mark("g*") { }' % SEMA,
             SEMA, args=["-p2"])
t.ok('process("%s").provider("sdtt").mark("guarded")' % SEMA in r.stdout + out,
     "-p2 names the marker's point with its provider")
for script, msg, what in (
        ('probe process("%s").mark("triple") { println($arg4) }',
         "invalid argument number", "$arg4 of a three-argument marker"),
        ('probe process("%s").mark("triple") { println($foo) }',
         "target variables of a marker are", "$foo of a marker"),
        ('probe process("%s").mark("nosuch") { }',
         "no match for probe point", "a marker the file does not have")):
    r, out = run(script % SEMA, SEMA)
    t.ok(r.status != 0 and msg in r.stderr,
         "refused at pass 2: %s (%s)" % (what, r.stderr.strip()[:80]))

# 3. fork, exec; -x and exit(): the semaphore put back.
GUARD = ('global g; probe process("%s").mark("guarded") { g[pid()]++ }\n'
         'probe end { foreach (p in g) printf("%%d\\n", g[p]) }' % SEMA)
r, out = run(GUARD, "%s fork 5" % SEMA)
t.eq((r.stdout.splitlines()[-1], out.split()), ("sema 1", ["5"]),
     "fork: the child inherits the set semaphore, 5 guarded hits")
r, out = run(GUARD, "%s exec 3" % SEMA)
t.eq((r.stdout.count("sema 1"), out.split()), (2, ["6"]),
     "exec: the semaphore set again in the new image, 3 + 3 guarded hits")
tp = subprocess.Popen([SEMA, "wait"], stdin=subprocess.PIPE,
                      stdout=subprocess.PIPE, text=True)
pid = int(tp.stdout.readline().split()[1])
full, _ = t.maptap_argv(["-x", str(pid), "-e", """
probe process.begin { println("attached") }
probe process("%s").mark("guarded") { printf("hit %%d\\n", $arg1); exit() }
""" % SEMA], json_out=False, verify=False)
mp = subprocess.Popen(full, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE, text=True)
first = mp.stdout.readline().strip()
tp.stdin.write("go\n")
tp.stdin.flush()
traced = [tp.stdout.readline().strip() for _ in range(6)]
mr = t.finish(mp, full, None)
tp.stdin.write("again\n")
tp.stdin.close()
after = tp.stdout.read().splitlines()
status = tp.wait(timeout=60)
t.eq(first, "attached", "-x: attached")
t.eq((traced[0], traced[-1], mr.stdout.strip()),
     ("sema 1", "guarded 0", "hit 0"),
     "-x: the semaphore set at attach, the guarded marker hit")
t.eq((after[0], status, any(l.startswith("guarded") for l in after)),
     ("sema 0", 0, False), "-x: after exit() the semaphore is 0 again, "
     "the marker does not run, the target ends well")

# a library with markers dlopen'ed after start: its semaphore set when ld.so
# maps its data segment
lib = os.path.join(t.tmpdir(), "libsdt_marks.so")
r = subprocess.run(t.CC + ["-O2", "-g", "-shared", "-fPIC", "-DSDT_LIB",
                           "-DWITH_SEMA", "-o", lib,
                           os.path.join(t.TARGETS, "sdt_marks.c")],
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                   text=True)
t.diag(r.stdout) if r.returncode else None
r, out = run('global g\n'
             'probe process("%s").mark("guarded") { g++ }\n'
             'probe process("%s").library("%s").mark("triple") { g += 100 }\n'
             'probe end { printf("%%d\\n", g) }' % (lib, SEMA, lib),
             "%s dlopen %s 4" % (SEMA, lib))
t.eq((r.stdout.splitlines()[-1:], out.split()), (["sema 1"], ["404"]),
     "dlopen: the library's semaphore set when it is mapped, its markers "
     "hit (also through .library(..))")
code, plain = t.untraced([SEMA, "dlopen", lib, "2"])
t.eq(plain.decode().splitlines()[-1:], ["sema 0"],
     "dlopen untraced: the semaphore is 0")

# 4. python3.11
PY = "/usr/bin/python3.11"
probe_list = subprocess.run(["readelf", "-n", PY], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True).stdout \
    if os.path.exists(PY) else ""
if "function__return" not in probe_list:
    t.skip("no %s with SDT markers" % PY)
else:
    script = os.path.join(t.tmpdir(), "calls.py")
    with open(script, "w") as f:
        f.write("def leaf(x):\n    return x\n"
                "def mid(x):\n    return leaf(x) + leaf(x + 1)\n"
                "def top():\n    return [mid(i) for i in range(2)]\n"
                "top()\n")
    # what Python's own profiler sees returning from this file
    prof = subprocess.run([PY, "-c", """
import sys
names = []
def p(frame, event, arg):
    if event == "return" and frame.f_code.co_filename == sys.argv[1]:
        names.append(frame.f_code.co_name)
sys.setprofile(p)
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), {})
sys.setprofile(None)
print(" ".join(names[:-1]))
""", script], stdout=subprocess.PIPE, text=True).stdout.split()
    r, out = run("""
global e
probe process("%(py)s").mark("function__return") {
	if (user_string($arg1) == "%(s)s")
		printf("%%s %%d\\n", user_string($arg2), $arg3)
}
probe process("%(py)s").mark("function__entry") {
	if (user_string($arg1) != "" && user_string($arg2) != "" && $arg3 >= 0)
		e++
}
probe end { printf("entries %%d\\n", e > 0) }
""" % {"py": PY, "s": script}, "%s %s" % (PY, script))
    got = [l.split()[0] for l in out.splitlines()]
    t.eq(got[:-2], prof, "python3.11: function__return names the returns "
         "in the order sys.setprofile sees them (%s)" % " ".join(prof))
    t.eq(got[-2:], ["<module>", "entries"], "python3.11: <module> returns "
         "last")
    t.eq(out.splitlines()[-1], "entries 1", "python3.11: function__entry "
         "fires with readable strings (CPython 3.11 fires it only for "
         "some frames, python/cpython#98894)")

    # a call trace in the shape of stap's python examples: thread_indent()
    r, out = run('''
probe process("%(py)s").mark("function__return") {
	if (user_string($arg1) == "%(s)s")
		printf("%%s <= %%s in %%s:%%d\\n", thread_indent(-1),
		       user_string($arg2), user_string($arg1), $arg3)
}
''' % {"py": PY, "s": script}, "%s %s" % (PY, script))
    pat = re.compile(r"^ *\d+ python3\.11\(\d+\): *<= (\S+) in %s:\d+$"
                     % re.escape(script))
    got = [pat.match(l) for l in out.splitlines()]
    t.ok(all(got) and [m.group(1) for m in got][:-1] == prof,
         "python3.11: a thread_indent() call trace, one line per return "
         "(%s)" % (out.splitlines()[:1],))

# 5. libstdc++'s throw marker
cxx = shutil.which("g++") or shutil.which("c++")
if not cxx:
    t.skip("no C++ compiler")
else:
    exe = os.path.join(t.tmpdir(), "u_cxx")
    subprocess.run([cxx, "-O0", "-g", "-o", exe,
                    os.path.join(t.TARGETS, "u_cxx.cc")], check=True)
    ldd = subprocess.run(["ldd", exe], stdout=subprocess.PIPE,
                         text=True).stdout
    lib = [l.split()[2] for l in ldd.splitlines() if "libstdc++" in l][0]
    r, out = run("""
global n, ty
probe process("%s").mark("throw") {
	n++
	ty = user_string(user_long($arg2 + 8))
}
probe end { printf("%%d %%s\\n", n, ty) }
""" % lib, "%s 50" % exe)
    t.eq(out.split(), ["50", "l"], "libstdc++ throw: 50 hits, $arg2 the "
         "type_info of long (its name \"l\")")
t.done()
