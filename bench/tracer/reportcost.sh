#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# reportcost.sh -- what maptap --report costs on a mapping-heavy loop:
# map_loop (mmap + touch + munmap of one page) untraced, traced by a
# script that runs nothing (the tracer's own cost), under the default
# log, under --report alone (one stack walk per mmap, no log), and
# under the log with --stacks, all output to /dev/null.  Cells run
# interleaved, ROUNDS times; prints "cell wall user sys" per run (CPU of
# tracer and target together, /usr/bin/time) and the medians with the
# CPU ratio to untraced.
#
# Usage: BUILD=DIR reportcost.sh [ROUNDS [PAIRS]]
#   DIR: a build directory (its maptap, or .libs/maptap in older trees,
#   with .libs as library path).  Defaults: 5 rounds, 5000 pairs.
set -e
R=${1:-5}; N=${2:-5000}
: "${BUILD:?BUILD=build dir}"
. "$(dirname "$0")/cells.sh"

cells="untraced maptap-none maptap-log maptap-report maptap-stacks"
for r in $(seq "$R"); do
	cell untraced "$tmp/map_loop" "$N"
	cell maptap-none $mt -e 'probe never {}' -c "$tmp/map_loop $N"
	cell maptap-log $mt -c "$tmp/map_loop $N"
	cell maptap-report $mt --report -c "$tmp/map_loop $N"
	cell maptap-stacks $mt --stacks -c "$tmp/map_loop $N"
done | tee "$tmp/all"
medians $cells
