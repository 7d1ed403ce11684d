#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""funcs.py -- system tests of the user-symbol, user-memory and vma_
script functions (translator/interp/builtins_ucontext.c, _usymbols.c,
_uconversions.c; docs/functions.md).

The target (testsuite/targets/u_main.c with u_lib.c, built here) asks the
script questions with write(-1, ADDR, WHAT): a process.syscall probe sees
ADDR in $arg2 and answers with the functions under test.  It also installs
signal handlers (rt_sigaction), reads a CPU-time clock (its vDSO falls
back to the system call) and calls getuid().

Every expected value comes from outside maptap: the addresses the target
prints for its own symbols, its copy of /proc/self/maps, nm -S, readelf
and addr2line on the built files, and Python's struct for the bytes.
"""
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t  # noqa: E402

Q_SYM, Q_STRING, Q_READERS, Q_VMA = 1, 2, 3, 4
SIGUSR1, SIGUSR2 = 10, 12
NR = {"write": 1, "rt_sigaction": 13, "getuid": 102, "clock_gettime": 228}

SCRIPT = r"""
probe process.syscall {
	if ($syscall == %(write)d && ($arg1 & 0xffffffff) == 0xffffffff)
		answer($arg2, $arg3)
	if ($syscall == %(rt_sigaction)d && $arg2 != 0 &&
	    ($arg1 == %(usr1)d || $arg1 == %(usr2)d)) {
		h = user_long($arg2)
		printf("sigaction|%%d|0x%%x|%%s|%%s\n", $arg1, h, usymname(h),
		       umodname(h))
	}
	if ($syscall == %(getuid)d || $syscall == %(clock_gettime)d) {
		pc = uaddr()
		printf("site|%%d|0x%%x|%%s|0x%%x\n", $syscall, pc, umodname(pc),
		       register("rip"))
	}
}

function answer(a, q) {
	if (q == %(q_sym)d)
		printf("sym|0x%%x|%%s|%%s|%%s|%%s|0x%%x|%%s\n", a, usymname(a),
		       usymdata(a), umodname(a), usymfileline(a), umodaddr(a),
		       umodbuildid(a))
	else if (q == %(q_string)d) {
		try { s = text_str(user_string(a)) } catch (e) { s = "ERR " . e }
		try { user_char_error(a) } catch (e) { s = s . " / " . e }
		printf("string|0x%%x|%%s|%%s|%%s|%%s|%%s\n", a, s,
		       text_str(user_string_n(a, 5, "<f>")),
		       user_string_quoted(a), user_string_n_quoted(a, 4),
		       text_str(user_string2(a, "<f2>")))
	} else if (q == %(q_readers)d) {
		printf("readers|0x%%x|%%d %%d %%d %%d %%d %%d|", a, user_char(a),
		       user_short(a), user_ushort(a), user_int(a), user_long(a),
		       user_ulong(a))
		printf("%%d %%d %%d %%d %%d %%d %%d %%d|", user_int8(a),
		       user_uint8(a), user_int16(a), user_uint16(a),
		       user_int32(a), user_uint32(a), user_int64(a),
		       user_uint64(a))
		try {
			e = sprintf("%%d %%d %%d", user_int8_error(a),
				    user_uint16_error(a), user_uint32_error(a))
		} catch (m) { e = m }
		printf("%%s|%%d %%d\n", e, user_char_warn(a), user_long_warn(a))
	} else if (q == %(q_vma)d)
		printf("vma|0x%%x|0x%%x|0x%%x|%%s|%%s|0x%%x|%%s|%%s|%%d\n", a,
		       vma_start(a), vma_end(a), vma_perms(a), vma_name(a),
		       vma_offset(a), vma_segment_kind(a), vma_module(a),
		       vma_mapped(a))
}
""" % {"write": NR["write"], "rt_sigaction": NR["rt_sigaction"],
       "getuid": NR["getuid"], "clock_gettime": NR["clock_gettime"],
       "usr1": SIGUSR1, "usr2": SIGUSR2, "q_sym": Q_SYM,
       "q_string": Q_STRING, "q_readers": Q_READERS, "q_vma": Q_VMA}


def run(cmd, *args):
    return subprocess.run([cmd] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True,
                          check=True).stdout


class Elf:
    """What nm, readelf and addr2line say about one built file."""

    def __init__(self, path, src):
        self.path = path
        self.src = src          # the source path given to the compiler
        self.syms = {}
        for line in run("nm", "-S", path).splitlines():
            f = line.split()
            if len(f) == 4:
                self.syms[f[3]] = (int(f[0], 16), int(f[1], 16))
        m = re.search(r"Build ID: ([0-9a-f]+)", run("readelf", "-n", path))
        self.build_id = m.group(1) if m else ""
        self.loads, self.relro = [], None
        for line in run("readelf", "-lW", path).splitlines():
            f = line.split()
            if f and f[0] in ("LOAD", "GNU_RELRO"):
                vaddr, memsz = int(f[2], 16), int(f[5], 16)
                flags = "".join(x for x in f[6:-1] if x in "RWE")
                if f[0] == "LOAD":
                    self.loads.append((vaddr, vaddr + memsz, flags))
                else:
                    self.relro = (vaddr, vaddr + memsz)

    def kind(self, vaddr):
        """The segment kind (module.h's rules) of VADDR."""
        for lo, hi, flags in self.loads:
            if lo <= vaddr < hi:
                if "E" in flags:
                    return "text"
                if "W" not in flags:
                    return "rodata"
                if self.relro and self.relro[0] <= vaddr < self.relro[1]:
                    return "relro"
                return "data"
        return "-"

    def fileline(self, vaddr):
        out = run("addr2line", "-e", self.path, "0x%x" % vaddr).strip()
        return re.sub(r" \(discriminator \d+\)$", "", out)


def maps(path):
    """[(start, end, perms, offset, name)] of a /proc/PID/maps copy."""
    res = []
    with open(path) as f:
        for line in f:
            f6 = line.rstrip("\n").split(None, 5)
            lo, hi = (int(x, 16) for x in f6[0].split("-"))
            res.append((lo, hi, f6[1], int(f6[2], 16),
                        f6[5] if len(f6) > 5 else ""))
    return res


def vma_at(vmas, a):
    for v in vmas:
        if v[0] <= a < v[1]:
            return v
    return None


def bias_of(vmas, path):
    """The load bias of PATH: its offset-0 mapping (first PT_LOAD has
    p_vaddr 0 and p_offset 0 for gcc's PIE and shared objects)."""
    for v in vmas:
        if v[4] == path and v[3] == 0:
            return v[0]
    return None


def stap_text(s):
    """text_str() of an ASCII string: stap's escapes."""
    esc = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
           "\t": "\\t", "\v": "\\v", '"': '\\"', "\\": "\\\\"}
    return "".join(esc.get(c, c) if 0x20 <= ord(c) < 0x7f or c in esc
                   else "\\%03o" % ord(c) for c in s)


def main():
    lib = t.build("u_lib", shared=True,
                  out=os.path.join(t.tmpdir(), "libu_lib.so"))
    exe = t.build("u_main", "-L" + t.tmpdir(), "-lu_lib",
                  "-Wl,-rpath," + t.tmpdir())
    exe, lib = os.path.realpath(exe), os.path.realpath(lib)
    rep = os.path.join(t.tmpdir(), "report")
    mapsf = os.path.join(t.tmpdir(), "maps")
    r = t.maptap(["-e", SCRIPT, "-c", "%s %s %s" % (exe, rep, mapsf)],
                 json_out=False, verify=False)
    if not t.eq(r.status, 0, "maptap -c u_main exits 0"):
        t.diag(r.stderr)
        t.done()
    t.eq(r.stderr, "WARNING: user char copy fault at 0x10 [man error::fault]\n"
         "WARNING: user long copy fault 0x10 [man error::fault]\n",
         "the _warn forms' warnings, nothing else on stderr")
    with open(rep) as f:
        addrs = {w[0]: int(w[1], 16) for w in (ln.split() for ln in f)}
    vmas = maps(mapsf)
    elfs = {exe: Elf(exe, os.path.join(t.TARGETS, "u_main.c")),
            lib: Elf(lib, os.path.join(t.TARGETS, "u_lib.c"))}
    bias = {p: bias_of(vmas, p) for p in elfs}
    lines = [ln.split("|") for ln in r.stdout.splitlines()]

    def module_of(a):
        v = vma_at(vmas, a)
        return v[4] if v else None

    check_syms(lines, addrs, elfs, bias, module_of)
    check_strings(lines, addrs)
    check_readers(lines, addrs)
    check_vmas(lines, addrs, elfs, bias, vmas)
    check_signals(lines, addrs, module_of)
    check_sites(lines, vmas, module_of)
    t.done()


def symbol_at(elfs, bias, path, a):
    """(name, start, size) of the symbol of ELFS[PATH] containing A."""
    for name, (value, size) in elfs[path].syms.items():
        if value + bias[path] <= a < value + bias[path] + size:
            return name, value + bias[path], size
    return None


def want_fileline(e, vaddr, a):
    """usymfileline's answer from addr2line: its line, and the file as
    the line table names it, which is the path given to the compiler
    (stap prints that; addr2line puts the compilation directory, the
    test's, in front of a relative one).  No line (a data object): the
    address, as stap falls back to it."""
    fl = e.fileline(vaddr)
    if fl.startswith("??"):
        return "0x%x" % a
    f, line = fl.rsplit(":", 1)
    if not t.ok(f == os.path.join(os.getcwd(), e.src),
                "addr2line names %s" % e.src):
        t.diag("addr2line: %s" % f)
    return "%s:%s" % (e.src, line)


def check_syms(lines, addrs, elfs, bias, module_of):
    want_addrs = [addrs["u_main_func"], addrs["u_main_func"] + 3,
                  addrs["u_main_data"] + 8, addrs["u_lib_func"],
                  addrs["u_lib_data"] + 4]
    got = [ln for ln in lines if ln[0] == "sym"]
    t.eq([int(ln[1], 16) for ln in got], want_addrs,
         "one sym answer per question, in order")
    for ln in got:
        a = int(ln[1], 16)
        path = module_of(a)
        sym = symbol_at(elfs, bias, path, a) if path in elfs else None
        if not t.ok(sym is not None, "0x%x: nm knows a symbol there" % a):
            continue
        name, start, size = sym
        e = elfs[path]
        vaddr = a - bias[path]
        t.eq(ln[2], name, "usymname(0x%x) is %s" % (a, name))
        t.eq(ln[3], "%s+0x%x/0x%x [%s]" % (name, a - start, size, path),
             "usymdata(%s+%d)" % (name, a - start))
        t.eq(ln[4], path, "umodname(%s) is %s" % (name, path))
        t.eq(ln[5], want_fileline(e, vaddr, a),
             "usymfileline(%s+%d) as addr2line" % (name, a - start))
        t.eq(int(ln[6], 16), vaddr, "umodaddr(%s+%d) is the ELF vaddr"
             % (name, a - start))
        t.eq(ln[7], e.build_id, "umodbuildid(%s) as readelf -n" % name)


def check_strings(lines, addrs):
    s = 'hello, "funcs"\n'
    cases = [(addrs["u_string"], s), (addrs["u_string"] + 7, s[7:]),
             (16, None)]
    got = [ln for ln in lines if ln[0] == "string"]
    t.eq([int(ln[1], 16) for ln in got], [c[0] for c in cases],
         "one string answer per question")
    for ln, (a, want) in zip(got, cases):
        if want is None:
            t.eq(ln[2], "ERR user string copy fault -14 at 0x%x "
                 "[man error::fault] / read fault [man error::fault] at "
                 "0x%016x (addr)" % (a, a), "user_string fault is caught")
            t.eq(ln[3:], ["<f>", "0x%x" % a, "0x%x" % a, "<f2>"],
                 "faults: fallback strings and the address")
            continue
        t.eq(ln[2], stap_text(want), "user_string(0x%x)" % a)
        t.eq(ln[3], stap_text(want[:5]), "user_string_n(0x%x, 5)" % a)
        t.eq(ln[4], '"%s"' % stap_text(want), "user_string_quoted(0x%x)" % a)
        q = '"%s"' % stap_text(want[:4])
        t.eq(ln[5], q, "user_string_n_quoted(0x%x, 4)" % a)
        t.eq(ln[6], stap_text(want), "user_string2(0x%x, ...)" % a)


def check_readers(lines, addrs):
    raw = bytes([0xf1, 0x82, 0x03, 0x84, 0x05, 0x86, 0x07, 0x88])

    def u(fmt):
        return struct.unpack("<" + fmt, raw[:struct.calcsize(fmt)])[0]

    got = [ln for ln in lines if ln[0] == "readers"]
    if not t.eq(len(got), 2, "two reader answers"):
        return
    ln = got[0]
    t.eq(int(ln[1], 16), addrs["u_pattern"], "readers at u_pattern")
    # user_ulong and user_uint64 return the 64-bit pattern as a (signed)
    # script long, as stap's do
    want = [u("b"), u("h"), u("H"), u("i"), u("q"), u("q")]
    t.eq([int(x) for x in ln[2].split()], want,
         "user_char/short/ushort/int/long/ulong")
    want = [u("b"), u("B"), u("h"), u("H"), u("i"), u("I"), u("q"), u("q")]
    t.eq([int(x) for x in ln[3].split()], want,
         "user_int8 ... user_uint64")
    t.eq(ln[4], "%d %d %d" % (u("b"), u("H"), u("I")),
         "the _error forms read as the plain ones")
    t.eq(ln[5], "%d %d" % (u("b"), u("q")), "the _warn forms too")
    ln = got[1]
    t.eq([int(x) for x in ln[2].split() + ln[3].split()], [0] * 14,
         "every plain reader returns 0 on a fault")
    t.eq(ln[4], "read fault [man error::fault] at 0x%016x (addr)" % 16,
         "a _error form raises stap's message")
    t.eq(ln[5], "0 0", "the _warn forms return 0")


def check_vmas(lines, addrs, elfs, bias, vmas):
    got = [ln for ln in lines if ln[0] == "vma"]
    want_addrs = [addrs["u_main_func"], addrs["u_main_data"],
                  addrs["u_lib_func"]]
    t.eq([int(ln[1], 16) for ln in got], want_addrs, "one vma answer each")
    for ln in got:
        a = int(ln[1], 16)
        v = vma_at(vmas, a)
        path = v[4]
        t.eq([int(ln[2], 16), int(ln[3], 16), ln[4], ln[5], int(ln[6], 16)],
             [v[0], v[1], v[2], v[4], v[3]],
             "vma_start/end/perms/name/offset(0x%x) as maps" % a)
        t.eq(ln[7], elfs[path].kind(a - bias[path]),
             "vma_segment_kind(0x%x) as readelf -l" % a)
        t.eq(ln[8], path, "vma_module(0x%x)" % a)
        t.eq(ln[9], "1", "vma_mapped(0x%x)" % a)


def check_signals(lines, addrs, module_of):
    got = {int(ln[1]): ln for ln in lines if ln[0] == "sigaction"}
    for sig, key in ((SIGUSR1, "u_main_handler"), (SIGUSR2, "u_lib_handler")):
        ln = got.get(sig)
        if not t.ok(ln is not None, "rt_sigaction(%d) seen" % sig):
            continue
        h = addrs[key]
        t.eq(int(ln[2], 16), h, "user_long($arg2) is &%s" % key)
        t.eq(ln[3], key, "usymname(handler) is %s" % key)
        t.eq(ln[4], module_of(h), "umodname(&%s)" % key)


def check_sites(lines, vmas, module_of):
    got = [ln for ln in lines if ln[0] == "site"]
    for nr in (NR["clock_gettime"], NR["getuid"]):
        mine = [ln for ln in got if int(ln[1]) == nr]
        if not t.ok(mine, "syscall %d seen" % nr):
            continue
        for ln in mine:
            pc = int(ln[2], 16)
            t.ok(module_of(pc) is not None and ln[3] == module_of(pc),
                 "umodname(uaddr()) at syscall %d: %s" % (nr, ln[3]))
            t.eq(int(ln[4], 16), pc, "register(\"rip\") is uaddr()")
    vdso = [ln for ln in got if ln[3] == "[vdso]"]
    t.ok(vdso or not any(v[4] == "[vdso]" for v in vmas),
         "the CPU-time clock's call site is in the vDSO")


main()
