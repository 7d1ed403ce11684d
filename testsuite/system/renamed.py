#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""renamed.py -- a mapped file renamed, then unlinked, is no difference
for --verify: the kernel prints a file's name as it is when maps is read,
so the name changes with no system call on the mapping, while the
mapping (dev, inode, offset, perms) is the same.  A user saw
"model r--s .../a, kernel .../b" and "... (deleted)" differences."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t

prog = t.build("t_renamed")
for extra in ([], ["--no-seccomp"]):
    name = "renamed and unlinked file" + (" " + extra[0] if extra else "")
    r = t.maptap(extra + ["-c", "%s %s" % (prog, t.tmpdir())])
    t.eq(r.status, 0, name + ": exit status 0")
    t.no_verify_diffs(r, name)
    prot = [e for e in r.find("protect")
            if "renamed-" in (e.get("path") or "")]
    t.eq(len(prot), 2, name + ": the two mprotects of the file are events")
t.done()
