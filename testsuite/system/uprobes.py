#!/usr/bin/env python3
"""uprobes.py -- breakpoint probes (process("PATH").function("NAME") and
.return, .statement; maptap/uprobe.h), each checked against a count the
target makes known in advance and its own untraced output:

  1. N entry and N return hits with the right $return, recursion depth
     100, a function whose first instruction is rip-relative;
  2. 8 threads x 100,000 calls: exactly 800,000 hits, the untraced sum;
  3. fork: the child's hits counted apart from the parent's;
  4. a library dlopened after start;
  5. -x detach mid-run under load: the text equal to the file byte for
     byte afterwards, the target's sum the untraced one;
  6. the target's own SIGTRAP is still delivered;
  7. malloc in libc.so.6 against an LD_PRELOAD counter's count.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t  # noqa: E402

PROG = t.build("u_calls")
LIB = t.build("u_lib", shared=True)
COUNTER = t.build("u_count", shared=True)


def run(script, cmd, timeout=600, env=None):
    out = os.path.join(t.tmpdir(), "out-%d" % run.n)
    run.n += 1
    r = t.maptap(["-o", out, "-e", script, "-c", cmd], json_out=False,
                 verify=False, timeout=timeout, env=env)
    text = open(out).read() if os.path.exists(out) else ""
    if r.status != 0:
        t.diag(r.stderr)
    return r, text


run.n = 0


def plain(argv, inp=None):
    """The stdout of ARGV run untraced."""
    return subprocess.run(argv, input=inp, stdout=subprocess.PIPE,
                          text=True, timeout=120).stdout


def fields(text):
    """'k v k v ...' lines into a dict of ints."""
    d = {}
    for line in text.split("\n"):
        w = line.split()
        for i in range(0, len(w) - 1, 2):
            try:
                d[w[i]] = int(w[i + 1])
            except ValueError:
                pass
    return d


P = 'process("%s")' % PROG

# 1. exact counts, $return, recursion, a rip-relative first instruction.
N = 1000
r, out = run("""
global e, r, rs, rec, rret, rip
probe %(p)s.function("u_square") { e++ }
probe %(p)s.function("u_square").return { r++; rs += $return }
probe %(p)s.function("u_rec") { rec++ }
probe %(p)s.function("u_rec").return { rret++ }
probe %(p)s.function("u_riprel") {
	if (usymname(uaddr()) == "u_riprel" && probefunc() == "u_riprel")
		rip++
}
probe end { printf("e %%d r %%d rs %%d rec %%d rret %%d rip %%d\\n",
	e, r, rs, rec, rret, rip) }
""" % {"p": P}, "%s count %d" % (PROG, N))
want = plain([PROG, "count", str(N)])
d = fields(out)
t.eq(r.status, 0, "count: exit status 0")
t.eq(r.stdout, want, "count: the target's output is the untraced one")
t.eq(d.get("e"), N, "count: N entry hits")
t.eq(d.get("r"), N, "count: N return hits")
t.eq(d.get("rs"), fields(want).get("sum"), "count: $return sums to the "
     "target's own sum")
t.eq((d.get("rec"), d.get("rret")), (101, 101),
     "count: recursion depth 100, 101 entries and 101 returns")
t.eq(d.get("rip"), N, "count: rip-relative first instruction, N hits "
     "named by usymname(uaddr()) and probefunc()")

# 2. 8 threads x 100,000 calls.
r, out = run("""
global n
probe %s.function("u_square") { n++ }
probe end { printf("hits %%d\\n", n) }
""" % P, "%s threads 8 100000" % PROG)
want = plain([PROG, "threads", "8", "100000"])
t.eq(r.status, 0, "threads: exit status 0")
t.eq(fields(out).get("hits"), 800000, "threads: exactly 800,000 hits")
t.eq(r.stdout, want, "threads: the target's sum is the untraced one")

# 3. fork: hits by process.
r, out = run("""
global n
probe %s.function("u_square") { n[pid() == target() ? "parent" : "child"]++ }
probe end { foreach (k in n) printf("%%s %%d\\n", k, n[k]) }
""" % P, "%s fork 1000" % PROG)
t.eq(r.status, 0, "fork: exit status 0")
t.eq((fields(out).get("parent"), fields(out).get("child")), (1000, 2000),
     "fork: the parent's 1000 hits and the child's 2000 apart")
t.eq(sorted(r.stdout.split("\n")),
     sorted(plain([PROG, "fork", "1000"]).split("\n")),
     "fork: the target's output is the untraced one")

# 4. a library dlopened after start.
r, out = run("""
global n, s
probe process("%s").function("u_libfn").return { n++; s += $return }
probe end { printf("n %%d s %%d\\n", n, s) }
""" % LIB, "%s dlopen %s 1000" % (PROG, LIB))
t.eq(r.status, 0, "dlopen: exit status 0")
t.eq(fields(out).get("n"), 1000, "dlopen: 1000 return hits in a library "
     "loaded after start")
t.eq(fields(out).get("s"), fields(r.stdout).get("sum"),
     "dlopen: $return sums to the target's sum")


# 5. -x, detach after 20,000 hits while the target calls on.
def text_identical(pid, path):
    data = open(path, "rb").read()
    same = checked = 0
    with open("/proc/%d/maps" % pid) as f:
        lines = f.read().splitlines()
    with open("/proc/%d/mem" % pid, "rb") as mem:
        for line in lines:
            w = line.split()
            if len(w) < 6 or w[5] != path or "x" not in w[1]:
                continue
            lo, hi = (int(x, 16) for x in w[0].split("-"))
            off = int(w[2], 16)
            mem.seek(lo)
            got = mem.read(hi - lo)
            n = min(len(got), len(data) - off)
            checked += 1
            same += got[:n] == data[off:off + n]
    return checked > 0 and same == checked


CALLS = 3000000
tp = subprocess.Popen([PROG, "loop", str(CALLS)], stdin=subprocess.PIPE,
                      stdout=subprocess.PIPE, text=True)
pid = int(tp.stdout.readline().split()[1])
full, _ = t.maptap_argv(["-e", """
global n
probe %s.function("u_square") { if (++n == 20000) exit() }
probe end { printf("hits %%d\\n", n) }
""" % P, "-x", str(pid)], json_out=False, verify=False)
mp = subprocess.Popen(full, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE, text=True)
t.wait_until(lambda: (lambda s: bool(s) and all(
    t.tracer_pid_tid(pid, x) == mp.pid for x in s))(t.task_states(pid)),
    what="every thread seized")
tp.stdin.write("go\n")
tp.stdin.flush()
mr = t.finish(mp, full, None, timeout=600)
got = tp.stdout.readline()
t.eq(fields(mr.stdout).get("hits"), 20000, "detach: 20,000 hits, then exit()")
t.eq(t.tracer_pid(pid), 0, "detach: the target is traced no more")
t.ok(text_identical(pid, PROG), "detach: the target's text is the file's, "
     "byte for byte")
tp.stdin.close()
t.eq(tp.wait(timeout=60), 0, "detach: the target exits 0")
t.eq(got, plain([PROG, "loop", str(CALLS)], "go\n").split("\n")[1] + "\n",
     "detach: the target's sum is the untraced one")

# 6. a SIGTRAP of the target's own is delivered, a breakpoint's is not.
r, out = run("""
global n
probe %s.function("u_square") { n++ }
probe end { printf("hits %%d\\n", n) }
""" % P, "%s trap 1" % PROG)
t.eq(r.stdout, "trapped 1 sum 25\n", "trap: the target's raise(SIGTRAP) "
     "reached its handler once")
t.eq(fields(out).get("hits"), 2, "trap: both probed calls hit")

# 7. malloc in libc against an LD_PRELOAD counter.
MALLOC = """
global n
probe process("libc.so.6").function("malloc") { n++ }
probe end { printf("malloc %d\\n", n) }
"""
cnt = os.path.join(t.tmpdir(), "count")
env = dict(os.environ, LD_PRELOAD=COUNTER, U_COUNT_OUT=cnt)
subprocess.run([PROG, "malloc", "5000"], env=env, stdout=subprocess.DEVNULL,
               check=True)
want = int(open(cnt).read())
r, out = run(MALLOC, "%s malloc 5000" % PROG)
t.eq(fields(out).get("malloc"), want, "malloc: a C program's calls, "
     "counted as the LD_PRELOAD counter counts them (%d)" % want)
env["PYTHONHASHSEED"] = "0"
imp = os.path.join(t.tmpdir(), "imp.py")
with open(imp, "w") as f:
    f.write("import json\n")
subprocess.run(["python3", imp], env=env, stdout=subprocess.DEVNULL,
               check=True)
want = int(open(cnt).read())
r, out = run(MALLOC, "python3 %s" % imp,
             env=dict(os.environ, PYTHONHASHSEED="0"))
got = fields(out).get("malloc", 0)
t.diag("python3 importing json: %d malloc hits, LD_PRELOAD counter %d"
       % (got, want))
# libc's own calls of malloc that bypass its PLT (no interposer sees
# them) make the breakpoint's count larger, never smaller.
t.ok(want <= got <= want + want // 100, "malloc: python3 importing a "
     "module, within 1% above the LD_PRELOAD counter's count")
t.done()
