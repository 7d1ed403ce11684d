#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""logorder.py -- the default log (tapsets/maptap/log.stp) around module
events, and the mark of an anonymous copy of a segment.

* ex_libs (dlopen + dlclose of ex_lib.so), JSON and text: module_load
  comes just before the map event of the library's first VMA,
  module_unload just after the unmap event of its last file-backed VMA;
  the unmap of its bss in the same munmap() still names the library, as
  segment "bss" (docs/probes.md, docs/json-schema.md).
* m_textcopy (its text replaced by an anonymous copy): the replace and
  mprotect of the copy carry "anon":true in the JSON segment object and
  "text(anon)" in the text log; no other event does; a script sees
  $segment_anon 1 on those events only.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t  # noqa: E402

RANGE = ("map", "unmap", "protect", "replace", "move", "rename", "grow",
         "shrink")


def text_log(cmd):
    """The default log of CMD as text: (Run, its lines)."""
    out = os.path.join(t.tmpdir(), "log-%d.txt" % len(os.listdir(
        t.tmpdir())))
    r = t.maptap(["-o", out, "-c", cmd], json_out=False, verify=False)
    lines = open(out).read().splitlines() if os.path.exists(out) else []
    return r, lines


def mod_path(e):
    return (e.get("module") or {}).get("path")


def check_lib_order():
    lib = t.build("ex_lib", shared=True,
                  out=os.path.join(t.tmpdir(), "ex_lib.so"))
    libs = t.build("ex_libs")
    cmd = "%s %s %s" % (libs, lib, os.path.join(t.tmpdir(), "rep"))
    r = t.maptap(["-c", cmd], verify=False)
    ev = r.events
    t.eq(r.status, 0, "ex_libs: runs, exit status 0")
    loads = [i for i, e in enumerate(ev) if e["event"] == "module_load"
             and e.get("path") == lib]
    unloads = [i for i, e in enumerate(ev) if e["event"] == "module_unload"
               and e.get("path") == lib]
    if not t.ok(len(loads) == 1 and len(unloads) == 1,
                "JSON: one module_load and one module_unload of the library"):
        return
    li, ui = loads[0], unloads[0]
    first = ev[li + 1] if li + 1 < len(ev) else {}
    t.ok(first.get("event") == "map" and first.get("path") == lib and
         not any(e.get("path") == lib for e in ev[:li]),
         "JSON: module_load comes just before the map of the library's "
         "first VMA: %s" % first)
    last = ev[ui - 1]
    t.ok(last["event"] == "unmap" and last.get("path") == lib and
         mod_path(last) == lib,
         "JSON: module_unload comes just after an unmap of the library: %s"
         % last)
    t.ok(not any(e.get("path") == lib for e in ev[ui + 1:]),
         "JSON: no VMA of the library's file after its unload")
    t.eq((ev[ui]["time_ns"], ev[ui]["syscall"]),
         (last["time_ns"], last["syscall"]),
         "JSON: the unload carries the time and call of that unmap")
    bss = [e for e in ev if e["event"] == "unmap" and e["inode"] == 0 and
           e["time_ns"] == last["time_ns"] and e["pid"] == last["pid"]]
    t.ok(len(bss) == 1 and mod_path(bss[0]) == lib and
         (bss[0].get("segment") or {}).get("kind") == "bss",
         "JSON: the unmap of the library's bss in the same munmap names "
         "the library, segment bss: %s" % bss)
    bias = ev[ui]["bias"]
    t.ok(bss and bss[0].get("module", {}).get("bias") == bias,
         "JSON: ... with the library's bias %s" % bias)

    r, lines = text_log(cmd)
    t.eq(r.status, 0, "ex_libs text: runs, exit status 0")
    mine = [(i, l.split()[2]) for i, l in enumerate(lines)
            if " %s " % lib in l + " "]
    kinds = [k for _, k in mine]
    if not t.ok("module_load" in kinds and "module_unload" in kinds,
                "text: load and unload lines of the library"):
        return
    t.eq(kinds[kinds.index("module_load") + 1], "map",
         "text: the library's first map line follows its module_load")
    ui = kinds.index("module_unload")
    t.eq((kinds[ui - 1], mine[ui - 1][0] + 1, kinds[ui + 1:]),
         ("unmap", mine[ui][0], []),
         "text: module_unload is the line right after the library's last "
         "unmap")
    after = lines[mine[ui][0] + 1] if mine[ui][0] + 1 < len(lines) else ""
    t.ok(re.search(r" unmap +\S+ rw-p 00000000 \[anon\] \{dyn bss\} "
                   r"\[munmap\]$", after),
         "text: then the unmap of its bss, {dyn bss}: %s" % after)


def textcopy():
    d = t.tmpdir()
    t.build("m_copier", shared=True, out=os.path.join(d, "libm_copier.so"))
    return t.build("m_textcopy", "-L" + d, "-lm_copier", "-Wl,-rpath," + d,
                   out=os.path.join(d, "m_textcopy"))


def check_anon(exe):
    r = t.maptap(["-c", exe], verify=False)
    t.eq(r.status, 0, "m_textcopy: runs, exit status 0")
    rng = [e for e in r.events if e["event"] in RANGE]
    marked = [e for e in rng if (e.get("segment") or {}).get("anon")]
    t.eq([(e["event"], e["perms"], mod_path(e), e["segment"]["kind"])
          for e in marked],
         [("replace", "rw-p", exe, "text"), ("protect", "r-xp", exe, "text")],
         "JSON: the replace and mprotect of the copy, and nothing else, "
         "have segment anon true")
    t.ok(all(e["segment"].get("anon") is True and e["inode"] == 0
             for e in marked),
         "JSON: anon is the boolean true, on anonymous memory")
    plain = [e for e in rng if e.get("segment") and
             "anon" not in e["segment"]]
    t.ok(plain and all(e.get("segment", {}).get("anon", None) is None
                       for e in plain),
         "JSON: other segment objects have no anon field")

    r, lines = text_log(exe)
    tagged = [l.split()[2] for l in lines if "(anon)}" in l]
    t.eq(tagged, ["replace", "protect"],
         "text: the same two events show {dyn text(anon)}")
    t.ok(all("{dyn text(anon)}" in l for l in lines if "(anon)}" in l),
         "text: as {dyn text(anon)}")

    script = os.path.join(t.tmpdir(), "anon.stp")
    with open(script, "w") as f:
        f.write('probe maptap.vma.replace, maptap.vma.protect\n'
                '{\n  if ($module_path == "%s")\n'
                '    printf("%%s %%s %%s %%d\\n", $kind, $perms, '
                '$segment_kind, $segment_anon)\n}\n' % exe)
    out = os.path.join(t.tmpdir(), "anon.out")
    r = t.maptap(["-o", out, "-c", exe, script], json_out=False,
                 verify=False)
    got = open(out).read().splitlines() if os.path.exists(out) else []
    ones = [l for l in got if l.endswith(" 1")]
    zeros = [l for l in got if l.endswith(" 0")]
    t.ok(r.status == 0 and ones == ["replace rw-p text 1",
                                    "protect r-xp text 1"] and
         zeros and len(ones) + len(zeros) == len(got),
         "script: $segment_anon is 1 on the copy, 0 elsewhere: %s" % got)


check_lib_order()
check_anon(textcopy())
t.done()
