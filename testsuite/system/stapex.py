#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""stapex.py -- what three of SystemTap's user-space examples need, in
scripts of our own that use their functions the way they do (the
examples themselves are not shipped here):

  * general/para-callgraph.stp: probe points given on the command line
    ($1, $2, `%( $# > 1 %? ... %)`), .call/.return, thread_indent(),
    ppfunc(): a call graph of u_rec's 100-deep recursion under main, and
    of 4 threads, one indentation and clock per thread;
    thread_indent_depth(), indent(), indent_depth() in a begin probe.
    ($$parms and $$return, which the example prints, are target
    variables: not here.)
  * general/eventcount.stp: `never`, `global c%`, -G, pn() (an alias's
    name as the script writes it), target_set_pid(), tz_ctime() /
    tz_gmtoff() / tz_name() under a TZ of our own;
  * profiling/fntimes.stp: $1.return over a wildcard with @entry() and
    ppfunc(): one sample per call of each function.
"""
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t  # noqa: E402

PROG = t.build("u_calls")
P = 'process("%s")' % PROG


def run(script, args, cmd=None, env=None, extra=()):
    out = os.path.join(t.tmpdir(), "out-%d" % run.k)
    run.k += 1
    path = os.path.join(t.tmpdir(), "s-%d.stp" % run.k)
    with open(path, "w") as f:
        f.write(script)
    argv = ["-o", out] + list(extra) + [path] + list(args)
    if cmd:
        argv += ["-c", cmd]
    e = dict(os.environ)
    e.update(env or {})
    r = t.maptap(argv, json_out=False, verify=False, env=e)
    if r.status != 0:
        t.diag(r.stderr)
    return r, open(out).read() if os.path.exists(out) else ""


run.k = 0

# 1. thread_indent() and friends, without a target.
r, out = run(r'''
function rest(s) {
	me = sprintf(" %s(%d):", execname(), tid())
	if (substr(s, 6, strlen(me)) != me)
		return "BAD " . s
	return "[" . substr(s, 6 + strlen(me), 100) . "]"
}
probe begin {
	a = thread_indent(1)
	printf("%s %s\n", substr(a, 0, 6), rest(a))
	println(rest(thread_indent(1)))
	println(rest(thread_indent(2)))
	println(rest(thread_indent(-2)))
	println(rest(thread_indent(-1)))
	println(rest(thread_indent(-1)))
	b = thread_indent(1)
	printf("%s %s\n", substr(b, 0, 6), rest(b))
	printf("%d %d\n", thread_indent_depth(0), thread_indent_depth(1))
	printf("%d %d\n", thread_indent_depth(-1), thread_indent_depth(-1))
	printf("<%s> <%s>\n", indent(1), substr(indent(1), 6, 100))
	printf("%d %d %d\n", indent_depth(0), indent_depth(-1),
	       indent_depth(-1))
	exit()
}
''', [])
t.eq(out, "     0 []\n[ ]\n[   ]\n[   ]\n[ ]\n[]\n     0 []\n"
     "0 1\n1 0\n<     0 :> < : >\n1 1 0\n", "thread_indent(): "
     "'%6d execname(tid):' and the depth before a positive delta, after "
     "a negative one; back at 0 the clock restarts; thread_indent_depth(), "
     "indent(), indent_depth()")

# 2. para-callgraph's way: $1 traced below the trigger $2.
CALLGRAPH = r'''
function trace(entry_p) {
	%( $# > 1 %? if (tid() in trace) %)
	printf("%s%s%s\n", thread_indent(entry_p),
	       entry_p > 0 ? "->" : "<-", ppfunc())
}
%( $# > 1 %?
global trace
probe $2.call { trace[tid()] = 1 }
probe $2.return { delete trace[tid()] }
%)
probe $1.call { trace(1) }
probe $1.return { trace(-1) }
'''
LINE = re.compile(r"^ *(\d+) u_calls\((\d+)\):( *)(->|<-)(\w+)$")


def parse(out):
    rows = []
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            t.diag("not a call graph line: %r" % line)
            return None
        rows.append((int(m.group(1)), int(m.group(2)), len(m.group(3)),
                     m.group(4), m.group(5)))
    return rows


r, out = run(CALLGRAPH, ['%s.function("u_rec")' % P,
                         '%s.function("main")' % P], "%s count 10" % PROG)
rows = parse(out) or []
want = [(d, "->", "u_rec") for d in range(101)] + \
       [(d, "<-", "u_rec") for d in range(100, -1, -1)]
t.eq([(d, a, f) for _, _, d, a, f in rows], want,
     "call graph: u_rec's 101 entries one space deeper each, its returns "
     "back out, under the trigger main")
t.ok(rows and rows[0][0] == 0 and all(
    rows[i][0] <= rows[i + 1][0] for i in range(len(rows) - 1)),
     "call graph: time from 0 at the outermost entry, never backwards")

r, out = run(CALLGRAPH, ['%s.function("*")' % P], "%s count 1" % PROG)
t.ok("no return probe" not in r.stderr and
     re.search(r"^ *\d+ u_calls\(\d+\): *->main$", out, re.M) and
     re.search(r"^ *\d+ u_calls\(\d+\): *<-main$", out, re.M),
     "call graph of function(\"*\"): main's entry and return; no "
     "complaint about _start, which has no return address")

r, out = run(CALLGRAPH, ['%s.function("u_square")' % P],
             "%s threads 4 50" % PROG)
rows = parse(out) or []
per = defaultdict(list)
for ts, tid, d, a, f in rows:
    per[tid].append((ts, d, a))
t.eq(sorted(len(v) for v in per.values()), [100] * 4,
     "threads: 50 entries and 50 returns of each of the 4 threads")
t.ok(per and all(
    [(d, a) for _, d, a in v] == [(0, "->"), (0, "<-")] * 50 and
    all(v[i][0] == 0 for i in range(0, 100, 2))
    for v in per.values()),
     "threads: each thread's own depth (0 at every call) and clock (0 at "
     "every entry from depth 0)")

# 3. eventcount's way.
r, out = run(r'''
global c%%, total, comm = ""
probe myalias = %s.function("u_square") { }
probe %%($# == 0 %%? begin %%: never %%) { println("no events") exit() }
probe %%($# >= 1 %%? $1 %%: never %%), %%($# >= 2 %%? $2 %%: never %%),
      %%($# >= 3 %%? $3 %%: never %%), myalias
{
	total <<< 1
	if (target() && !target_set_pid(pid()))
		next
	if (comm != "" && execname() != comm)
		next
	c[sprintf("%%s(%%d)", execname(), tid()), pn()] <<< 1
}
probe begin { printf("at %%s\n", tz_ctime(0)) }
probe end {
	printf("zone %%s %%d total %%d\n", tz_name(), tz_gmtoff(),
	       @count(total))
	foreach ([who, name+] in c)
		printf("%%s %%s %%d\n", substr(who, 0, 8), name,
		       @count(c[who, name]))
}
''' % P, ['%s.function("u_rec").return' % P, '%s.function("u_riprel")' % P],
    "%s count 10" % PROG, env={"TZ": "XYZ-2"},
    extra=["-G", 'comm=u_calls'])
t.eq(out, "at Thu Jan  1 02:00:00 1970 XYZ\nzone XYZ -7200 total 121\n"
     'u_calls( myalias 10\n'
     'u_calls( %s.function("u_rec").return 101\n'
     'u_calls( %s.function("u_riprel") 10\n' % (P, P),
     "eventcount: never, c%, -G, pn() is the probe point as the script "
     "(or its command line) writes it, also an alias's, tz_ctime() in TZ")

r, out = run(r'''
global c
probe my.sq = %(p)s.function("u_square") { }
probe my.rec = %(p)s.function("u_rec").return { }
probe my.* { c[pn()]++ }
probe end { foreach (k+ in c) printf("%%s %%d\n", k, c[k]) }
''' % {"p": P}, [], "%s count 10" % PROG)
t.eq(out, "my.rec 101\nmy.sq 10\n", "pn() of a wildcard over aliases "
     "is the alias each hit came through")

# 4. fntimes' way.
r, out = run(r'''
global times
function time() { return gettimeofday_us() }
probe $1.return { times[ppfunc()] <<< time() - @entry(time()) }
probe end {
	foreach (f+ in times)
		printf("%s %d %d\n", f, @count(times[f]), @min(times[f]) >= 0)
}
''', ['%s.function("u_*")' % P], "%s count 10" % PROG)
t.eq(out, "u_rec 101 1\nu_riprel 10 1\nu_square 10 1\n",
     "fntimes: one @entry() time per return of each function of a "
     "wildcard, named by ppfunc()")
# 4. The examples themselves, unchanged, where Debian's systemtap-doc put
# them (quickstart.sh installs it): profiling/fntimes.stp over u_calls's
# functions.  It prints only a function whose call took 2.5 times its
# longest so far after 100 calls; u_calls's do not, so it prints nothing
# and ends 0, with no error from any pass.  (general/eventcount.stp also
# needs stap's input.char / input.line probes, which maptap lacks.)
EXD = "/usr/share/systemtap/examples"
if not os.path.exists(os.path.join(EXD, "profiling", "fntimes.stp")):
    t.skip("SystemTap's examples are not installed (Debian package "
           "systemtap-doc): fntimes.stp not run")
else:
    out = os.path.join(t.tmpdir(), "out-fntimes")
    r = t.maptap(["-o", out, os.path.join(EXD, "profiling", "fntimes.stp"),
                  P + '.function("u_*")', "-c", "%s count 200" % PROG],
                 json_out=False, verify=False)
    t.ok(r.status == 0 and "ERROR" not in r.stderr and
         "error" not in r.stderr,
         "fntimes.stp, unchanged, runs over %s.function(\"u_*\") (%s)"
         % (P, r.stderr.strip()[-300:]))

t.done()
