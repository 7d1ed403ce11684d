#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""fds.py -- the launched command starts with the descriptors maptap was
started with, and no others: the -o file, the tapsets and scripts maptap
read, the files of its module layer are maptap's own (O_CLOEXEC).

A user found the -o file open as fd 3 in the traced command: it could
write into maptap's output, and its own descriptor numbers shifted by
one."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import mttest as t

prog = t.build("t_fds")
code, out = t.untraced([prog])
want = out.decode().strip()
t.eq((code, want), (0, "fds: 0 1 2"), "untraced: fds 0 1 2")

out_file = os.path.join(t.tmpdir(), "fds-out.txt")
script = os.path.join(t.tmpdir(), "fds.stp")
with open(script, "w") as f:
    f.write("probe process.begin { n++ } global n\n")

CASES = (
    ("default log, -o FILE", ["-o", out_file, "-c", prog]),
    ("--json -o FILE --verify", None),	# mttest's own options
    ("--report -o FILE", ["--report", "-o", out_file, "-c", prog]),
    ("--stacks -o FILE", ["--stacks", "-o", out_file, "-c", prog]),
    ("script file, -o FILE", [script, "-o", out_file, "-c", prog]),
    ("-e script", ["-e", "probe begin { }", "-c", prog]),
    ("through sh -c", ["-o", out_file, "-c", "sh -c '%s; true'" % prog]),
)

for name, args in CASES:
    if args is None:
        r = t.maptap(["-c", prog])
    else:
        r = t.maptap(args, json_out=False, verify=False)
    t.eq(r.status, 0, name + ": exit status 0")
    lines = [l for l in r.stdout.splitlines() if l.startswith("fds:")]
    t.eq(lines, [want], name + ": the command has the untraced fds")

t.done()
