#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""targetvars.py -- target variables from DWARF in breakpoint probes
(maptap/tvar.h, translator/interp/dwvars.c), on tv_vars.c built at test
time with gcc -g at -O0 and at -O2; every value is one the test knows
from the target's own source:

  1. a struct walk through two pointers ($o->m->in->len, ->id, ->name
     with user_string), arrays with a constant and a computed index, a
     char array, an enum, a union, &$k read back with user_int(), at -O0
     and -O2;
  2. $$parms / $$locals / $$vars as stap prints them (name=0x... in hex,
     "?" for a variable with no location), $o$ and $o$$ pretty printing;
  3. .return: $return typed by DWARF, @entry($x) and $x (read at the
     entry), $$return, at -O0 and -O2 (where the entry values are read
     at the entry itself, in their argument registers); .inline: the
     parameter of an inlined instance (its frame is main's);
  4. -O2: a local kept in a register, whose location list moves it from
     rax to rdx across the function (.statement probes at two lines);
     parameters whose location there is only DW_OP_entry_value, read
     from the registers saved at that call's entry; a local with no
     location yet: @defined false, stap's "not accessible" error;
  5. a missing variable: stap's "unable to find local" message with the
     alternatives that exist; a missing member with its alternatives;
     writing a target variable refused;
  5b. a struct passed by value: at -O2 in two registers (a DW_OP_piece
     location) at .call, in memory at -O0;
  6. @cast(ADDR, "struct tv_outer")->m->in->len, with and without the
     module argument;
  7. SystemTap's own examples, unchanged, from systemtap-doc's
     /usr/share/systemtap/examples (SKIP without it):
     general/para-callgraph.stp ($$parms at .call, where -O0 code has
     not stored its parameters yet: read from the argument registers;
     $$return, "" for a void function) with its trigger argument, and
     general/para-callgraph-verbose.stp ($$parms$$) at -O2.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t  # noqa: E402

SRC = os.path.join(t.TARGETS, "tv_vars.c")
O0 = t.build("tv_vars", out=os.path.join(t.tmpdir(), "tv_vars0"))
O2 = t.build("tv_vars", "-O2", out=os.path.join(t.tmpdir(), "tv_vars2"))
N = 3


def line_of(marker):
    with open(SRC) as f:
        for i, l in enumerate(f, 1):
            if marker in l and "/*" in l and not l.lstrip().startswith("*"):
                return i
    raise SystemExit("no marker " + marker)


LINE_A = line_of("TV_LINE_A")
LINE_B = line_of("TV_LINE_B")


def ext(v):
    return v + 1


def want_sum(n):
    s = 0
    for k in range(n):
        acc = ext(3 * k)
        s += (10 * k + 42 + 1) + (k * k + 1) + \
            (ext(acc ^ (100 + k)) + acc) + k + (ext(5 * k) + k) + \
            (ext(k) + 40 + k)
    return s


def run(script, prog, n=N):
    out = os.path.join(t.tmpdir(), "out-%d" % run.n)
    run.n += 1
    r = t.maptap(["-o", out, "-e", script, "-c", "%s %d" % (prog, n)],
                 json_out=False, verify=False)
    text = open(out).read() if os.path.exists(out) else ""
    return r, text


run.n = 0


def lines(text, tag):
    return [l[len(tag) + 1:] for l in text.splitlines()
            if l.startswith(tag + " ")]


for prog, opt in ((O0, "-O0"), (O2, "-O2")):
    P = 'process("%s")' % prog
    # 1. a struct walk through two pointers, arrays, enum, union, &$k
    walk = '''
probe %(p)s.function("tv_walk") {
	printf("W %%%%d %%%%d %%%%d %%%%s %%%%d %%%%d %%%%d %%%%d %%%%s%%s\\n", $k,
	       $o->m->in->len, $o->m->id, user_string($o->m->in->name),
	       $o->arr[2], $o->arr[$k %%%% 4], $o->un->i, $o->un->b[0],
	       user_string($label)%%s)
}
''' % {"p": P}
    want = ["%d 42 7 innername 3 %d %d 4 xlabel" %
            (k, [1, 2, 3, 4][k % 4], 0x01020304) for k in range(N)]
    if opt == "-O0":
        r, out = run(walk % (" %d", ", user_int(&$k) == $k"), prog)
        want = [w + " 1" for w in want]
    else:
        # $k lives in a register at -O2: it has no address
        r, out = run(walk % (" %d", ", user_int(&$k) == $k"), prog)
        t.ok(r.status != 0 and "cannot take the address of '$k'"
             in r.stderr, "-O2 walk: &$k of a register variable refused")
        r, out = run(walk % ("", ""), prog)
    t.eq(r.status, 0, "%s walk: exit status 0" % opt)
    t.eq(r.stdout, "sum %d\n" % want_sum(N),
         "%s walk: the target's own output" % opt)
    t.eq(lines(out, "W"), want,
         "%s walk: two pointers, arrays, union%s" %
         (opt, ", &$k" if opt == "-O0" else " from registers"))

    # 3. .return: $return, @entry, $x at the entry, $$return
    r, out = run('''
probe %(p)s.function("tv_square").return {
	printf("R %%d %%d %%d %%s %%s\\n", $return, @entry($x * 2), $x,
	       $$return, $$parms)
}
''' % {"p": P}, prog)
    t.eq(lines(out, "R"), ["%d %d %d return=0x%x x=0x%x" %
                           (k * k + 1, 2 * k, k, k * k + 1, k)
                           for k in range(N)],
         "%s return: $return, @entry($x * 2), $x, $$return, $$parms" % opt)

    # an inlined instance: its parameter, the frame of main it lives in
    r, out = run('''
probe %(p)s.function("tv_inl").inline { printf("I %%d %%s\\n", $q, $$parms) }
''' % {"p": P}, prog)
    t.eq(lines(out, "I"), ["%d q=0x%x" % (k, k) for k in range(N)],
         "%s .inline: $q of the inlined instance (frame base of main)" % opt)

# 2. $$parms, $$locals, $$vars, $o$, $o$$ (-O0: every variable in memory)
P0 = 'process("%s")' % O0
r, out = run('''
probe %(p)s.function("tv_walk") {
	printf("P %%s\\n", $$parms)
	printf("L %%s\\n", $$locals)
	printf("V %%s\\n", $$vars$)
	printf("S %%s\\n", $o$)
	printf("D %%s\\n", $o$$)
	printf("M %%s\\n", $o->m->in$)
	printf("B %%d %%d %%d\\n", $o->bits->lo, $o->bits->neg,
	       $o->bits->wide)
	printf("G %%d %%d %%d %%d\\n", $o->grid[1][2], $o->grid[0][1],
	       $o->grid[1][0], $o->grid[1] - $o->grid[0])
}
''' % {"p": P0}, O0, 1)
hexp = r"0x[0-9a-f]+"
t.ok(re.fullmatch(r"o=%s k=0x0 label=%s" % (hexp, hexp),
                  (lines(out, "P") or [""])[0]) is not None,
     "$$parms: name=0x... in hex, 0 as 0x0: %r" % lines(out, "P"))
t.ok(re.fullmatch(r"total=%s i=%s" % (hexp, hexp),
                  (lines(out, "L") or [""])[0]) is not None,
     "$$locals: the locals in scope: %r" % lines(out, "L"))
t.ok(re.fullmatch(r'o=\{.*\} k=0 label="xlabel" total=-?\d+ i=-?\d+',
                  (lines(out, "V") or [""])[0]) is not None,
     "$$vars$: decimal, strings, the struct: %r" % lines(out, "V"))
t.ok(re.fullmatch(r'\{\.m=%s, \.arr=\[1, 2, 3, 4\], \.tag="tagv", \.c=6, '
                  r'\.un=\{\.\.\.\}, \.bits=\{\.\.\.\}, '
                  r'\.grid=\[1, 2, 3, 4, 5, -6\]\}' % hexp,
                  (lines(out, "S") or [""])[0]) is not None,
     "$o$: one level, char array as a string, enum: %r" % lines(out, "S"))
t.ok(re.fullmatch(r'\{\.m=%s, \.arr=\[1, 2, 3, 4\], \.tag="tagv", \.c=6, '
                  r'\.un=\{\.i=16909060, \.b="\\004\\003\\002\\001"\}, '
                  r'\.bits=\{\.lo=5, \.neg=-7, \.wide=1234\}, '
                  r'\.grid=\[1, 2, 3, 4, 5, -6\]\}'
                  % hexp, (lines(out, "D") or [""])[0]) is not None,
     "$o$$: nested union too: %r" % lines(out, "D"))
t.eq(lines(out, "M"), ['{.len=42, .name="innername"}'],
     "$o->m->in$: the struct through two pointers")
t.eq(lines(out, "B"), ["5 -7 1234"], "bit-fields, one sign-extended")
t.eq(lines(out, "G"), ["-6 2 4 6"], "a 2-D array: [i][j], and [i] a row's "
     "address (3 shorts apart)")

# 4. -O2: a register variable whose location moves; entry values away
# from the entry (the registers saved at the function's entry); a
# variable with no location yet
P2 = 'process("%s")' % O2
r, out = run('''
probe %(p)s.statement("tv_crunch@tv_vars.c:%(a)d") {
	printf("A %%d %%d %%d %%d\\n", $acc, @defined($b) ? $b : -1,
	       @defined($second), $a)
}
probe %(p)s.statement("tv_crunch@tv_vars.c:%(b)d") {
	printf("B %%d %%d %%d\\n", $acc, $second, $b)
}
probe %(p)s.function("tv_crunch") { printf("F %%s\\n", $$parms) }
''' % {"p": P2, "a": LINE_A, "b": LINE_B}, O2)
t.eq(lines(out, "A"), ["%d %d 0 %d" % (ext(3 * k), 100 + k, k)
                       for k in range(N)],
     "-O2 line A: $acc in a register (rax); $a, $b entry values (read "
     "from the registers of the call's entry); $second not yet: "
     "@defined false")
t.eq(lines(out, "B"), ["%d %d %d" % (ext(3 * k), ext(ext(3 * k) ^ (100 + k)),
                                     100 + k) for k in range(N)],
     "-O2 line B: $acc moved (rdx by the location list), $second, $b")
t.eq(lines(out, "F"), ["a=0x%x b=0x%x" % (k, 100 + k) for k in range(N)],
     "-O2 .function past the first statement: $$parms from entry values")
r, out = run('''
probe %(p)s.statement("tv_crunch@tv_vars.c:%(a)d") { println($second) }
''' % {"p": P2, "a": LINE_A}, O2)
t.ok(r.status != 0 and "not accessible at this address" in r.stderr
     and "[man error::dwarf]" in r.stderr,
     "-O2: reading $second before it has a location is stap's error")

# a struct in two registers at -O2 (DW_OP_reg5 piece 8, DW_OP_reg4 piece
# 8 at the entry), in memory at -O0
for prog, opt, point in ((O2, "-O2", "call"), (O0, "-O0", "function")):
    pt = 'process("%s").function("tv_pair_sum")' % prog
    if point == "call":
        pt += ".call"
    r, out = run('''
probe %s { printf("Q %%d %%d %%s\\n", $p->a, $p->b, $p$) }
''' % pt, prog)
    t.eq(lines(out, "Q"), ["%d %d {.a=%d, .b=%d}" % (k, 40 + k, k, 40 + k)
                           for k in range(N)],
         "%s struct by value%s: $p->a, $p->b, $p$" %
         (opt, " in DW_OP_piece registers" if point == "call" else ""))

# 5. missing names, writes
r, out = run('''probe %s.function("tv_walk") { println($nosuch) }''' % P0, O0)
m = re.search(r"unable to find local 'nosuch', \[man error::dwarf\] "
              r"dieoffset 0x[0-9a-f]+ in \S+, near pc 0x[0-9a-f]+ in "
              r"tv_walk \S+ \(alternatives: ([^)]*)\)", r.stderr)
t.ok(r.status != 0 and m is not None, "missing: stap's message")
t.eq(m.group(1).split() if m else None, ["o", "k", "label", "total", "i"],
     "missing: the alternatives are the variables in scope")
r, out = run('''probe %s.function("tv_walk") { println($o->mm) }''' % P0,
             O0)
t.ok(r.status != 0 and "unable to find member 'mm' for struct tv_outer "
     "(alternatives: m arr tag c un bits grid)" in r.stderr,
     "missing member: its alternatives")
r, out = run('''probe %s.function("tv_walk") { $k = 1 }''' % P0, O0)
t.ok(r.status != 0 and "write to target variable not permitted" in
     r.stderr, "writing $k is refused (no guru mode)")
t.eq(r.stdout, "", "refused at pass 2: the target never ran")

# 6. @cast
r, out = run('''
probe %(p)s.function("tv_walk") {
	printf("C %%d %%d %%d\\n", @cast($o, "struct tv_outer")->m->in->len,
	       @cast($o, "struct tv_outer", "%(f)s")->arr[3],
	       @cast($o->m, "struct tv_mid")->id)
}
''' % {"p": P0, "f": O0}, O0, 1)
t.eq(lines(out, "C"), ["42 4 7"], "@cast: with and without the module")
r, out = run('''probe %s.function("tv_walk") {
	println(@cast($o, "struct nosuch")->x) }''' % P0, O0)
t.ok(r.status != 0 and "type definition 'struct nosuch' not found"
     in r.stderr, "@cast of an unknown type: stap's message")

# 7. SystemTap's examples, unchanged
EX = "/usr/share/systemtap/examples/general"
LINE = re.compile(r"^ *\d+ (\S+)\((\d+)\):( *)(->|<-)(\S+) (.*)$")


def callgraph(text):
    """para-callgraph lines as (indent, arrow, function, extra)."""
    got = []
    for l in text.splitlines():
        m = LINE.match(l)
        if m:
            got.append((len(m.group(3)), m.group(4), m.group(5),
                        m.group(6)))
    return got


def example_run(name, args, prog, n):
    out = os.path.join(t.tmpdir(), "ex-%s" % name)
    r = t.maptap(["-o", out, os.path.join(EX, name)] + args +
                 ["-c", "%s %d" % (prog, n)], json_out=False, verify=False)
    return r, open(out).read() if os.path.exists(out) else ""


if not os.path.exists(os.path.join(EX, "para-callgraph.stp")):
    t.skip("SystemTap's examples are not installed (Debian package "
           "systemtap-doc): para-callgraph.stp not run")
else:
    r, out = example_run("para-callgraph.stp",
                         ['process("%s").function("tv_*")' % O0,
                          'process("%s").function("main")' % O0], O0, 1)
    P = r"0x[0-9a-f]+"
    want = [(0, "->", "tv_ext", "v=" + P),  # tv_ext((long)&o)
            (0, "<-", "tv_ext", "return=" + P),
            (0, "->", "tv_void", r"out=%s v=0x0" % P),
            (0, "<-", "tv_void", r""),
            (0, "->", "tv_walk", r"o=%s k=0x0 label=%s" % (P, P)),
            (0, "<-", "tv_walk", r"return=0x2b"),
            (0, "->", "tv_square", r"x=0x0"),
            (0, "<-", "tv_square", r"return=0x1"),
            (0, "->", "tv_crunch", r"a=0x0 b=0x64"),
            (1, "->", "tv_ext", r"v=0x0"),
            (1, "<-", "tv_ext", r"return=0x1"),
            (1, "->", "tv_ext", r"v=0x65"),
            (1, "<-", "tv_ext", r"return=0x66"),
            (0, "<-", "tv_crunch", r"return=0x67"),
            (0, "->", "tv_ext", r"v=0x0"),	# in the inlined tv_inl(0)
            (0, "<-", "tv_ext", r"return=0x1"),
            (0, "->", "tv_pair_sum", r"p=\{\.\.\.\}"),  # a struct: {...}
            (1, "->", "tv_ext", r"v=0x0"),
            (1, "<-", "tv_ext", r"return=0x1"),
            (0, "<-", "tv_pair_sum", r"return=0x29")]
    got = callgraph(out)
    t.ok(r.status == 0 and len(got) == len(want) and
         all(g[:3] == w[:3] and re.fullmatch(w[3], g[3])
             for g, w in zip(got, want)),
         "para-callgraph.stp (-O0, .call before the prologue): %r" % got)
    r, out = example_run("para-callgraph-verbose.stp",
                         ['process("%s").function("tv_[swc]*")' % O2], O2,
                         1)
    got = dict((g[2], g[3]) for g in callgraph(out) if g[1] == "->")
    t.eq((got.get("tv_square"), got.get("tv_crunch")), ("x=0", "a=0 b=100"),
         "para-callgraph-verbose.stp (-O2): $$parms$$ in decimal")
    t.ok(re.fullmatch(r'o=\{\.m=%s, \.arr=\[1, 2, 3, 4\], \.tag="tagv", '
                      r'\.c=6, \.un=\{\.i=16909060, '
                      r'\.b="\\004\\003\\002\\001"\}, '
                      r'\.bits=\{\.lo=5, \.neg=-7, \.wide=1234\}, '
                      r'\.grid=\[1, 2, 3, 4, 5, -6\]\} k=0 '
                      r'label="xlabel"' % P, got.get("tv_walk", ""))
         is not None, "para-callgraph-verbose.stp: a struct through its "
         "pointer, every level: %r" % got.get("tv_walk"))

t.done()
