#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""listing.py -- maptap -l / -L PROBEPOINT (stap's listing mode): each
concrete point once, sorted, by the name stap gives it; with -L its
variables; exit 0 when something matched, 1 otherwise.  Expected lists
come from the files themselves (readelf, nm, the tapsets' sources), not
from this test.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t  # noqa: E402


def lst(*args):
    r = subprocess.run([t.MAPTAP] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=300)
    return r.returncode, r.stdout.splitlines(), r.stderr


def notes(path):
    """(name, number of arguments) of each SDT note of PATH, by readelf."""
    out = subprocess.run(["readelf", "-n", path], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout
    res, name = [], None
    for line in out.splitlines():
        w = line.split()
        if w[:1] == ["Name:"]:
            name = w[1]
        elif w[:1] == ["Arguments:"] and name:
            res.append((name, len(w) - 1))
            name = None
    return res


# tapset aliases: the names matching the glob, as the tapsets define them
TAPSETS = os.environ["MAPTAP_TAPSET"]
defined = set()
for dirpath, _, files in os.walk(TAPSETS):
    for f in files:
        if f.endswith(".stp"):
            for m in re.finditer(r"^probe\s+(syscall\.mm[a-z0-9_]*)\s*=",
                                 open(os.path.join(dirpath, f)).read(), re.M):
                defined.add(m.group(1))
rc, out, err = lst("-l", "syscall.mm*")
t.eq((rc, out), (0, sorted(defined)), "-l 'syscall.mm*': the tapsets' "
     "aliases that match, by their own names (%s)" % " ".join(out))
rc, out, err = lst("-L", "syscall.mmap2")
w = out[0].split() if out else []
t.ok(rc == 0 and len(out) == 1 and w[0] == "syscall.mmap2" and
     {"name:string", "start:long", "length:long", "argstr:string",
      "$arg1:long"} <= set(w),
     "-L 'syscall.mmap2': the alias's locals and $argN with types (%s)"
     % (out[:1],))
rc, out, err = lst("-L", "process.syscall.return")
t.eq(out, ["process.syscall.return $syscall:long $arg1:long $arg2:long "
           "$arg3:long $arg4:long $arg5:long $arg6:long $$parms:string "
           "$return:long"], "-L 'process.syscall.return' (docs/probes.md)")
rc, out, err = lst("-l", "syscall.*")
t.ok(rc == 0 and len(out) > 300 and len(out) == len(set(out)) and
     out == sorted(out) and all(l.startswith("syscall.") for l in out),
     "-l 'syscall.*': %d points, sorted, each once" % len(out))

# functions: with DWARF, NAME@FILE:LINE
exe = os.path.join(t.tmpdir(), "sdt_marks")
subprocess.run(t.CC + ["-O0", "-g", "-o", exe,
                       os.path.join(t.TARGETS, "sdt_marks.c")], check=True)
rc, out, err = lst("-l", 'process("%s").function("fire")' % exe)
t.ok(rc == 0 and len(out) == 1 and re.fullmatch(
    r'process\("%s"\)\.function\("fire@.*sdt_marks\.c:\d+"\)'
    % re.escape(exe), out[0]), "-l function(\"fire\"): %s" % out)
rc, out, err = lst("-L", 'process("%s").function("fire").return' % exe)
# fire() is void: no $return, as stap -L; its parameter and locals
# (their values at the entry, in a .return probe), typed by DWARF
t.ok(rc == 0 and len(out) == 1 and
     re.search(r'\.return \$i:int \$p:struct pair .*\$nm:char const\*$',
               out[0]) and "$return" not in out[0],
     "-L .return of a void function: its variables, no $return (%s)" % out)
syms = subprocess.run(["nm", "--defined-only", exe], stdout=subprocess.PIPE,
                      text=True).stdout.split("\n")
funcs = {l.split()[2] for l in syms if len(l.split()) == 3 and
         l.split()[1] in "Tt"}
rc, out, err = lst("-l", 'process("%s").function("*")' % exe)
names = {re.match(r'process\(".*"\)\.function\("([^@"]*)', l).group(1)
         for l in out}
t.eq(names, funcs, "-l function(\"*\"): every function symbol of the file, "
     "%d" % len(funcs))
rc, out, err = lst("-l", 'process("/bin/ls").function("*")')
t.ok(rc == 0 and out and all(l.startswith('process("/usr/bin/ls")'
                                          '.function("') for l in out),
     "-l 'process(\"/bin/ls\").function(\"*\")': %d functions" % len(out))

# -L of functions: the parameters from DWARF, spelled as stap -L does
src = os.path.join(t.tmpdir(), "params.c")
with open(src, "w") as f:
    f.write("struct foo { int a; };\n"
            "typedef unsigned long sz_t;\n"
            "int f(int a, const char *s, struct foo *p, sz_t n, char **v,\n"
            "      double d, volatile int *q)\n"
            "{ return a + (int)n + !s + !p + !v + (int)d + !q; }\n"
            "int main(int argc, char **argv)\n"
            "{ return f(argc, \"x\", 0, 3, argv, 1.0, 0); }\n")
pexe = os.path.join(t.tmpdir(), "params")
subprocess.run(t.CC + ["-O0", "-g", "-o", pexe, src], check=True)
rc, out, err = lst("-L", 'process("%s").function("f").{call,return}' % pexe)
t.eq([l.split(" ", 1)[-1] for l in out],
     ["$a:int $s:char const* $p:struct foo* $n:sz_t $v:char** $d:double "
      "$q:int volatile*", "$return:int $a:int $s:char const* "
      "$p:struct foo* $n:sz_t $v:char** $d:double $q:int volatile*"],
     "-L .call: the parameters with their C types; .return: $return "
     "typed by DWARF, then the parameters")
rc, out, err = lst("-L", 'process("%s").function("main")' % pexe)
t.ok(len(out) == 1 and out[0].endswith(" $argc:int $argv:char**"),
     "-L main: $argc:int $argv:char** (%s)" % out)
subprocess.run(t.CC + ["-O0", "-rdynamic", "-o", pexe + ".s", src],
               check=True)
subprocess.run(["strip", pexe + ".s"], check=True)
rc, out, err = lst("-L", 'process("%s.s").function("f")' % pexe)
t.eq(out, ['process("%s.s").function("f")' % pexe],
     "-L of a function of .dynsym, no DWARF: the point alone")

# markers
want = sorted('process("%s").mark("%s")' % (exe, n) for n, _ in notes(exe))
rc, out, err = lst("-l", 'process("%s").mark("*")' % exe)
t.eq((rc, out), (0, want), "-l mark(\"*\"): every note, by readelf")
want = sorted('process("%s").provider("sdtt").mark("%s")%s'
              % (exe, n, "".join(" $arg%d:long" % (i + 1) for i in range(k)))
              for n, k in notes(exe))
rc, out, err = lst("-L", 'process("%s").provider("sd*").mark("*")' % exe)
t.eq(out, want, "-L provider(\"sd*\").mark(\"*\"): the provider by its "
     "name, $argN:long as many as the descriptors")
PY = "/usr/bin/python3.11"
if not os.path.exists(PY) or not notes(PY):
    t.skip("no %s with SDT markers" % PY)
else:
    rc, out, err = lst("-l", 'process("%s").mark("*")' % PY)
    t.eq(out, sorted('process("%s").mark("%s")' % (PY, n)
                     for n, _ in notes(PY)), "-l python3.11's markers")

# probe-point groups with arguments (stap's brace groups)
rc, out, err = lst("-l", 'process("%s").{function("fire"), '
                   'function("main").return, {mark("tri*"), '
                   'provider("sdtt").mark("small")}}' % exe)
t.eq([re.sub(r"@[^\"]*", "", l) for l in out],
     sorted('process("%s").%s' % (exe, x) for x in (
         'function("fire")', 'function("main").return',
         'mark("triple")', 'provider("sdtt").mark("small")')),
     "-l with a nested group of components with arguments: four points")
r = subprocess.run([t.MAPTAP, "-e", '''
global n
probe process("%s").{function("fire"), mark("constant")},
      {kernel, process("%s")}.function("nosuch") ? { n[pp()]++ }
probe end { foreach (p in n) printf("%%d\\n", n[p]) }''' % (exe, exe),
                    "-c", exe + " 3"], stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, text=True, timeout=300)
t.eq((r.returncode, r.stdout.split()[-2:]), (0, ["3", "3"]),
     "a group in a running script: fire() and the marker 3 times each, "
     "{kernel,process(..)}.function(\"nosuch\") ? dropped")

# nothing matched, bad input
for pp in ('process("%s").mark("nosuch")' % exe, "nosuch.point",
           'process("/nonexistent").function("*")'):
    rc, out, err = lst("-l", pp)
    t.eq((rc, out), (1, []), "-l %s: nothing, exit 1" % pp)
rc, out, err = lst("-l", "syscall.mmap2", "-e", "probe begin {}")
t.ok(rc == 1 and "give no script" in err, "-l with a script: refused (%s)"
     % err.strip())
rc, out, err = lst("-l")
t.ok(rc == 1 and "requires an argument" in err, "-l without a point: "
     "refused (%s)" % err.strip().split("\n")[0])
t.done()
