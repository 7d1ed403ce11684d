#!/bin/bash
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
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -g -o "$tmp/map_loop" "$here/map_loop.c"
maptap_of() {	# maptap_of DIR: the command that runs DIR's maptap
	if [ -x "$1/.libs/maptap" ]; then	# a libtool wrapper's tree
		echo "env LD_LIBRARY_PATH=$1/.libs $1/.libs/maptap -o /dev/null"
	else				# maptap linked with -no-install
		echo "$1/maptap -o /dev/null"
	fi
}
mt=$(maptap_of "$BUILD")
[ -z "$BASE" ] || base=$(maptap_of "$BASE")

cell() {	# NAME COMMAND...
	local name=$1; shift
	/usr/bin/time -f "$name %e %U %S" -o "$tmp/t" "$@" \
		>/dev/null 2>&1 || true
	cat "$tmp/t"
}

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
echo "median of $R ($N pairs): cell wall user sys user+sys cpu/untraced"
for c in $cells; do
	awk -v c=$c '$1 == c { print $2, $3, $4, $3 + $4 }' "$tmp/all" |
	sort -n -k4 | awk -v c=$c '{ a[NR] = $0 } END { print c, a[int((NR + 1) / 2)] }'
done | awk '{ if ($1 == "untraced") base = $5
	printf "%-14s %s %s %s %.2f %.1f\n", $1, $2, $3, $4, $5,
	       (base > 0 ? $5 / base : 0) }'
