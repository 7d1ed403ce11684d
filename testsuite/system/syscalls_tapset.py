#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""syscalls_tapset.py -- the syscall and memory tapsets, as stap's own
testsuite checks them: syscall.NAME's name/argstr/retstr and decoded
variables for mmap2, munmap, mprotect, mremap, brk and openat with exact
expected lines; the vm.* names; syscall.* covering every call the target
makes; and the generated tapset and reference being current.

The target (testsuite/targets/st_calls.c) makes its calls between two
close(-77) markers at fixed addresses, so every line is known in advance
except the break, which it reports.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t  # noqa: E402

BASE = 0x200000000
PG = 4096

# A script's output goes to -o FILE: the target's stdout is its own.
WINDOW = """
global on
probe syscall.close
{
	if (pid() == target() && __int32($arg1) == -77)
		on = !on
}
"""


def script(text):
    """Run TEXT on st_calls; (maptap's Run, the script's output, the
    break the target reported)."""
    out = os.path.join(t.tmpdir(), "out-%d" % script.n)
    rep = os.path.join(t.tmpdir(), "rep-%d" % script.n)
    fil = os.path.join(t.tmpdir(), "file-%d" % script.n)
    script.n += 1
    r = t.maptap(["-o", out, "-e", WINDOW + text, "-c",
                  "%s %s %s" % (PROG, rep, fil)], json_out=False,
                 verify=False)
    text = open(out).read() if os.path.exists(out) else ""
    got = t.reports(open(rep).read()) if os.path.exists(rep) else {}
    if r.status != 0:
        t.diag(r.stderr)
    script.fd = got.get("fd", -1)
    return r, text, got.get("brk")


script.n = 0

PROG = t.build("st_calls")

# 1. name(argstr) and name = retstr, exactly as stap prints them.
r, out, cur = script("""
probe syscall.mmap2, syscall.munmap, syscall.mprotect, syscall.brk,
      syscall.openat, syscall.mremap
{
	if (on)
		printf("%s(%s)\\n", name, argstr)
}
probe syscall.mmap2.return, syscall.munmap.return,
      syscall.mprotect.return, syscall.brk.return, syscall.openat.return,
      syscall.mremap.return
{
	if (on)
		printf("%s = %s\\n", name, retstr)
}
""")
t.eq(r.status, 0, "syscall.NAME script runs, exit status 0")
fil = os.path.join(t.tmpdir(), "file-0")
want = """\
mmap2(0x200000000, 8192, PROT_READ|PROT_WRITE, \
MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED_NOREPLACE, -1, 0)
mmap2 = 0x200000000
openat(AT_FDCWD, "%s", O_RDWR|O_CREAT|O_TRUNC, 0640)
openat = %d
openat(AT_FDCWD, "/nonexistent/st_calls", O_RDONLY)
openat = -2 (ENOENT)
mmap2(0x200010000, 4096, PROT_READ, MAP_SHARED|MAP_FIXED, %d, 0)
mmap2 = 0x200010000
mprotect(0x200000000, 4096, PROT_READ|PROT_EXEC)
mprotect = 0
mprotect(0x200000000, 4096, 0x10)
mprotect = -22 (EINVAL)
mremap(0x200010000, 4096, 8192, 0x0, 0x0)
mremap = 0x200010000
munmap(0x200000001, 4096)
munmap = -22 (EINVAL)
munmap(0x200000000, 8192)
munmap = 0
munmap(0x200010000, 4096)
munmap = 0
""" % (fil, script.fd, script.fd)
if cur is not None:
    want += "brk(%#x)\nbrk = %d\nbrk(%#x)\nbrk = %d\n" % (
        cur + 8192, cur + 8192, cur, cur)
t.eq(out, want, "name(argstr) / name = retstr lines, as stap prints them")

# 2. The decoded variables themselves.
r, out, cur = script("""
probe syscall.mmap2
{
	if (on)
		printf("mmap2 start=%x length=%d prot=%d prot_str=%s flags=%x "
		       "flags_str=%s fd=%d pgoffset=%d $arg5=%x\\n", start, length,
		       prot, prot_str, flags, flags_str, fd, pgoffset, $arg5)
}
probe syscall.munmap
{
	if (on)
		printf("munmap start=%x length=%d\\n", start, length)
}
probe syscall.mprotect
{
	if (on)
		printf("mprotect addr=%x len=%d prot=%d prot_str=%s\\n", addr,
		       len, prot, prot_str)
}
probe syscall.openat
{
	if (on)
		printf("openat dfd=%d dfd_str=%s flags=%d flags_str=%s "
		       "mode=%#o\\n", dfd, dfd_str, flags, flags_str, mode)
}
probe syscall.brk.return
{
	if (on)
		printf("brk retval=%x\\n", retval)
}
""")
want = """\
mmap2 start=200000000 length=8192 prot=3 prot_str=PROT_READ|PROT_WRITE \
flags=100022 flags_str=MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED_NOREPLACE fd=-1 \
pgoffset=0 $arg5=ffffffffffffffff
openat dfd=-100 dfd_str=AT_FDCWD flags=578 flags_str=O_RDWR|O_CREAT|O_TRUNC \
mode=0640
openat dfd=-100 dfd_str=AT_FDCWD flags=0 flags_str=O_RDONLY mode=00
mmap2 start=200010000 length=4096 prot=1 prot_str=PROT_READ flags=11 \
flags_str=MAP_SHARED|MAP_FIXED fd=%d pgoffset=0 $arg5=%x
mprotect addr=200000000 len=4096 prot=5 prot_str=PROT_READ|PROT_EXEC
mprotect addr=200000000 len=4096 prot=16 prot_str=0x10
munmap start=200000001 length=4096
munmap start=200000000 length=8192
munmap start=200010000 length=4096
""" % (script.fd, script.fd)
if cur is not None:
    want += "brk retval=%x\nbrk retval=%x\n" % (cur + 8192, cur)
t.eq(out, want, "decoded variables of mmap2, munmap, mprotect, openat, brk")

# 2b. The process calls: prctl, clone (glibc's fork), exit in the child,
# a failing execve.  The child's lines are kept for the end: its exit and
# the parent's clone return race.
r, out, cur = script("""
global kid
probe syscall.prctl, syscall.execve
{
	if (on)
		printf("%s(%s)\\n", name, argstr)
}
probe syscall.clone
{
	if (on)
		printf("clone flags_str=%s\\n", flags_str)
}
probe syscall.prctl.return, syscall.execve.return
{
	if (on)
		printf("%s = %s\\n", name, retstr)
}
probe syscall.clone.return
{
	if (on && pid() == target())
		printf("clone = %s\\n", retval > 0 ? "CHILD" : retstr)
}
probe syscall.exit
{
	if (on)
		kid = sprintf("%s(%s) status=%d", name, argstr, status)
}
probe end
{
	println(kid)
}
""")
want = """\
prctl(PR_SET_NAME, "st-worker")
prctl = 0
clone flags_str=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD
clone = CHILD
execve("/nonexistent/st_calls", ["st", "x y"], ["A=1"])
execve = -2 (ENOENT)
exit(7) status=7
"""
t.eq(out, want, "prctl, clone, exit, execve: argstr, flags_str, retstr")

# 3. The vm.* memory tapset: one line per address-space change.
r, out, cur = script("""
probe vm.*
{
	if (on)
		printf("%s 0x%x %d\\n", name, address, length)
}
probe vm.mprotect
{
	if (on)
		printf("  %s -> %s\\n", old_perms, perms)
}
probe vm.mremap
{
	if (on)
		printf("  from 0x%x %d\\n", old_address, old_length)
}
""")
want = """\
mmap 0x200000000 8192
mmap 0x200010000 4096
mprotect 0x200000000 4096
  rw-p -> r-xp
mremap 0x200010000 8192
  from 0x200010000 4096
munmap 0x200000000 4096
munmap 0x200001000 4096
munmap 0x200010000 4096
"""
if cur is not None:
    lo = (cur + PG - 1) // PG * PG
    hi = (cur + 8192 + PG - 1) // PG * PG
    want += "brk 0x%x %d\nmunmap 0x%x %d\n" % (lo, hi - lo, lo, hi - lo)
t.eq(out, want, "vm.mmap, vm.mprotect, vm.mremap, vm.munmap, vm.brk")

# 4. syscall.* and syscall.*.return: every call the target makes fires
# exactly one of each (none missing from the table, none twice), counted
# against the raw process.syscall points.
r, out, cur = script("""
global named, raw, named_ret, raw_ret
probe syscall.* { if (pid() == target()) named++ }
probe syscall.*.return { if (pid() == target()) named_ret++ }
probe process.syscall { if (pid() == target()) raw++ }
probe process.syscall.return { if (pid() == target()) raw_ret++ }
probe end
{
	printf("%d %d %d %d\\n", named, raw, named_ret, raw_ret)
}
""")
f = out.split()
ok = len(f) == 4 and f[0] == f[1] and f[2] == f[3] and int(f[0]) > 20
t.ok(ok, "syscall.* fires once per call the target makes (%s)" % out.strip())
if not ok:
    t.diag(r.stderr)

# 5. syscall.* expands to every call of the table, once.
table = os.path.join(t.SRCDIR, "runtime", "tracer", "syscalls_x86_64.h")
rows = sum(1 for line in open(table) if line.startswith("SYSCALL("))
r = t.maptap(["-p2", "-c", "true", "-e",
              "probe syscall.* { n++ } probe syscall.*.return { n++ }"],
             json_out=False, verify=False)
points = [line.split(" /*")[0] for line in r.stdout.splitlines()
          if line.startswith("maptap.syscall(")]
t.eq((len(points), len(set(points))), (2 * rows, 2 * rows),
     "syscall.* and syscall.*.return: one alias per table row each")

# 6. The generated files are current.
gen = subprocess.run([os.path.join(t.SRCDIR, "scripts",
                                   "gen-syscalls-tapset"), "--check",
                      t.SRCDIR], stderr=subprocess.PIPE, text=True)
if not t.ok(gen.returncode == 0,
            "tapsets/syscalls.stp and errno.stp are current"):
    t.diag(gen.stderr)
ref = subprocess.run([os.path.join(t.SRCDIR, "scripts", "tapset-ref"),
                      "--check", t.SRCDIR], stderr=subprocess.PIPE,
                     text=True)
if not t.ok(ref.returncode == 0, "docs/tapsets.md is current"):
    t.diag(ref.stderr)

t.done()
