#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# verifycost.sh -- what --verify costs on a process with many VMAs:
# maptap with --verify against maptap without it, side by side, on
# vma_loop (V VMAs made one mprotect each, then N pairs of mmap+munmap),
# output to /dev/null.  --verify checks the range each event touched and
# the whole map at a bounded rate (docs/tracer.md); a full check per
# event made it quadratic in V (issue 17: still running after 300 s where
# the run took 12 s without it).  Cells run interleaved, ROUNDS times;
# prints "cell wall user sys" per run and the medians, with each cell's
# wall time over the plain maptap cell's.
#
# Usage: BUILD=DIR [BASE=DIR2] verifycost.sh [ROUNDS [V [N]]]
#   DIR: a build directory.  Defaults: 3 rounds, V 60000, N 1000.
#   BASE: a second build (say, before a change) whose --verify run is
#   one more cell, "base-verify", under a time limit of LIMIT seconds
#   (default 600; a run cut short shows as its limit).
set -e
R=${1:-3}; V=${2:-60000}; N=${3:-1000}
: "${BUILD:?BUILD=build dir}"
. "$(dirname "$0")/cells.sh"
${CC:-cc} -O2 -g -o "$tmp/vma_loop" "$here/vma_loop.c"
[ -z "$BASE" ] || base=$(maptap_of "$BASE")

cells="untraced maptap maptap-verify"
[ -z "$BASE" ] || cells="$cells base-verify"
for r in $(seq "$R"); do
	cell untraced "$tmp/vma_loop" "$V" "$N"
	cell maptap $mt -c "$tmp/vma_loop $V $N"
	cell maptap-verify $mt --verify -c "$tmp/vma_loop $V $N"
	[ -z "$BASE" ] ||
		cell base-verify timeout "${LIMIT:-600}" $base --verify \
			-c "$tmp/vma_loop $V $N"
done | tee "$tmp/all"
echo "median of $R ($V VMAs, $N pairs): cell wall user sys wall/maptap"
for c in $cells; do
	awk -v c=$c '$1 == c { print $2, $3, $4 }' "$tmp/all" | sort -n |
	awk -v c=$c '{ a[NR] = $0 } END { print c, a[int((NR + 1) / 2)] }'
done | awk '{ if ($1 == "maptap") base = $2; row[NR] = $0; w[NR] = $2 }
	END { for (i = 1; i <= NR; i++)
		printf "%-14s %s %.1f\n", row[i], "", (base > 0 ? w[i] / base : 0) }'
