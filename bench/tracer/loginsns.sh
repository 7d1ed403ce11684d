#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# loginsns.sh -- what the default log (tapsets/maptap/log.stp) costs per
# event in instructions, counted by callgrind, for one or more maptap
# builds side by side.  Each build runs pm_target's mmap loop (PAIRS
# mmap + touch + munmap pairs: two events a pair) launched in perf mode
# (--events=perf -c: maptap never stops the loop, and valgrind runs
# maptap only, not the command), once with the default log and once
# with an empty maptap.event probe, -o /dev/null.  The difference over
# the events is the log's cost per event: instructions, not seconds, so
# the same on a loaded machine as on an idle one (bench/README.md, "The
# default log's instructions").  In perf mode maptap's CPU time runs on
# another CPU than the target's, but on these VMs it still slows the
# target (bench/README.md), so its instructions are what to cut.
#
# Usage: bench/tracer/loginsns.sh [-n PAIRS] [-j] BIN...
#   BIN: a maptap program (a build tree's maptap); -j: --json.
#   Default 20000 pairs.  Needs valgrind and root (perf mode).
set -u
N=20000
J=
while getopts n:j o; do
	case $o in
	n) N=$OPTARG ;;
	j) J=--json ;;
	*) echo "usage: $0 [-n PAIRS] [-j] BIN..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $0 [-n PAIRS] [-j] BIN..." >&2; exit 2; }
command -v valgrind >/dev/null || { echo "$0: needs valgrind" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
# No MAPTAP_TAPSET: a build tree's maptap reads its own tree's tapsets,
# so each BIN runs the log it was built with.
unset MAPTAP_TAPSET
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -o "$tmp/pm_target" "$here/pm_target.c" || exit 1
echo 'probe maptap.event { }' >"$tmp/empty.stp"

insns() {	# BIN [SCRIPT]: instructions maptap ran (all its threads)
	local out=$tmp/cg pid
	rm -f "$out".*
	# The command's child writes a profile too, a copy of its parent's
	# counts at the fork: read maptap's own, named by its pid.
	# shellcheck disable=SC2086
	echo go | valgrind --tool=callgrind --callgrind-out-file="$out.%p" \
		"$1" --events=perf $J -o /dev/null \
		-c "$tmp/pm_target mmap $N" ${2:-} >/dev/null 2>"$tmp/err" &
	pid=$!
	wait "$pid" ||
		{ echo "$0: $1 failed:" >&2; tail -3 "$tmp/err" >&2; exit 1; }
	awk '/^summary:/ { print $2 }' "$out.$pid"
}

printf '%-40s %14s %14s %10s %7s\n' BIN "with log" "empty probe" \
	"per event" ratio
first=
for b in "$@"; do
	l=$(insns "$b") || exit 1
	e=$(insns "$b" "$tmp/empty.stp") || exit 1
	per=$(( (l - e) / (2 * N) ))
	[ -n "$first" ] || first=$per
	awk -v b="$b" -v l="$l" -v e="$e" -v p="$per" -v f="$first" \
		'BEGIN { printf "%-40s %14d %14d %10d %6.3fx\n", b, l, e, p, p / f }'
done
echo "(instructions, callgrind; per event = (log - empty) / $((2 * N)) events)"
