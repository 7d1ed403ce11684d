#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# stackcost.sh -- what a user stack per mapping call costs: maptap's log
# with --stacks against the log without it and against strace -k (which
# unwinds each traced call with libunwind or libdw), on map_loop, all
# output to /dev/null.  The same workload untraced is the reference.
# Cells run interleaved, ROUNDS times; prints "cell wall user sys" per run
# (CPU of tracer and target together, /usr/bin/time) and the medians with
# the CPU ratio to untraced.
#
# Usage: BUILD=DIR [BASE=DIR2] [STRACE=0] stackcost.sh [ROUNDS [PAIRS]]
#   DIR: a build directory (its maptap, or .libs/maptap in older trees, with .libs as library
#   path).  Defaults: 5 rounds, 1000 pairs (strace -k
#   takes about 17 ms per call here).
#   BASE: a second build (say, before a change) whose --stacks run is
#   one more cell, "base-stacks", interleaved with the others.
#   STRACE=0 leaves the strace -k cell out.
set -e
R=${1:-5}; N=${2:-1000}
: "${BUILD:?BUILD=build dir}"
. "$(dirname "$0")/cells.sh"
[ -z "$BASE" ] || base=$(maptap_of "$BASE")

cells="untraced maptap maptap-stacks"
[ -z "$BASE" ] || cells="$cells base-stacks"
[ "${STRACE:-1}" = 0 ] || cells="$cells strace-k"
for r in $(seq "$R"); do
	cell untraced "$tmp/map_loop" "$N"
	cell maptap $mt -c "$tmp/map_loop $N"
	cell maptap-stacks $mt --stacks -c "$tmp/map_loop $N"
	[ -z "$BASE" ] ||
		cell base-stacks $base --stacks -c "$tmp/map_loop $N"
	[ "${STRACE:-1}" = 0 ] ||
		cell strace-k strace -f -k -e trace=%memory -o /dev/null \
			"$tmp/map_loop" "$N"
done | tee "$tmp/all"
medians $cells
