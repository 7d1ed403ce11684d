#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_report_json.sh -- the JSON report of test_report's fixture, parsed
# back: one object per process, the schema's fields and types, and byte
# totals that agree (sites, modules + anon, live_bytes).
. "$top_srcdir/testsuite/lib/tap.sh"
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT

if ! "$top_builddir/testsuite/unit/test_report" --json >"$out"; then
	fail "test_report --json runs"
	tap_done; exit
fi
ok "test_report --json runs"
if ! command -v python3 >/dev/null; then
	skip "no python3"
	tap_done; exit
fi
# python3 goes on counting from the cases above and prints the plan.
exec python3 - "$out" "$tap_n" <<'PY'
import json, sys
n = int(sys.argv[2])
def check(cond, name):
    global n
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, name))
lines = open(sys.argv[1]).read().splitlines()
objs = [json.loads(l) for l in lines]
check(len(objs) == 2, "one line per process")
p, c = objs
keys = ["event", "pid", "exe", "state", "status", "live_bytes",
        "peak_bytes", "peak_time_ns", "incomplete", "sites", "peak_sites",
        "modules",
        "anon", "dl", "loads_at_start"]
check(list(p.keys()) == keys, "fields in the schema's order")
check(p["event"] == "report" and p["pid"] == 100, "event and pid")
check(p["state"] == "detached" and p["status"] is None, "still running")
check(c["state"] == "exited" and c["status"] == 9, "exited child")
check(c["exe"] == '/bin/child "quoted"\n', "exe escaped and read back")
K = 4096
check(p["live_bytes"] == 11 * K, "live bytes")
check(p["peak_bytes"] == (2 + 8 + 12 + 0xf8) * K and
      p["peak_time_ns"] == 4000, "peak and its time")
for o in objs:
    s = sum(x["bytes"] for x in o["sites"])
    a = sum(x["bytes"] for x in o["modules"]) + sum(x["bytes"] for x in o["anon"])
    check(s == o["live_bytes"] == a, "pid %d: sites = classes = live" % o["pid"])
    ps = [x["bytes"] for x in o["peak_sites"]]
    check(sum(ps) == o["peak_bytes"] and ps == sorted(ps, reverse=True),
          "pid %d: peak_sites add up to peak_bytes, largest first" % o["pid"])
    b = [x["bytes"] for x in o["sites"]]
    check(b == sorted(b, reverse=True) and all(b), "pid %d: sites largest first, none empty" % o["pid"])
whats = {x["what"] for x in p["sites"]}
check(whats == {"call", "before attach", "kernel"}, "pseudo sites: %s" % sorted(whats))
fr = [x for x in p["sites"] if x["what"] == "call"][0]["frames"][0]
check(set(fr) == {"pc", "symbol", "offset", "module", "file", "line"} and
      fr["pc"].startswith("0x"), "frame fields")
anon = {x["name"]: x["bytes"] for x in p["anon"]}
check(anon == {"[anon]": 3 * K, "[anon:cache]": K, "[anon:other]": K,
               "[heap]": 2 * K, "[stack]": 4 * K}, "anon table: %s" % anon)
inh = [x for x in c["sites"] if x["what"] == "inherited"]
check(len(inh) == 1 and inh[0]["bytes"] == 11 * K, "child: inherited")
print("1..%d" % n)
PY
