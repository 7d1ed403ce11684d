#!/bin/bash
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
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -g -o "$tmp/map_loop" "$here/map_loop.c"
if [ -x "$BUILD/.libs/maptap" ]; then	# a libtool wrapper's build tree
	mt="env LD_LIBRARY_PATH=$BUILD/.libs $BUILD/.libs/maptap -o /dev/null"
else					# maptap linked with -no-install
	mt="$BUILD/maptap -o /dev/null"
fi

cell() {	# NAME COMMAND...
	local name=$1; shift
	/usr/bin/time -f "$name %e %U %S" -o "$tmp/t" "$@" \
		>/dev/null 2>&1 || true
	cat "$tmp/t"
}

cells="untraced maptap-none maptap-log maptap-report maptap-stacks"
for r in $(seq "$R"); do
	cell untraced "$tmp/map_loop" "$N"
	cell maptap-none $mt -e 'probe never {}' -c "$tmp/map_loop $N"
	cell maptap-log $mt -c "$tmp/map_loop $N"
	cell maptap-report $mt --report -c "$tmp/map_loop $N"
	cell maptap-stacks $mt --stacks -c "$tmp/map_loop $N"
done | tee "$tmp/all"
echo "median of $R ($N pairs): cell wall user sys user+sys cpu/untraced"
for c in $cells; do
	awk -v c=$c '$1 == c { print $2, $3, $4, $3 + $4 }' "$tmp/all" |
	sort -n -k4 | awk -v c=$c '{ a[NR] = $0 } END { print c, a[int((NR + 1) / 2)] }'
done | awk '{ if ($1 == "untraced") base = $5
	printf "%-14s %s %s %s %.2f %.1f\n", $1, $2, $3, $4, $5,
	       (base > 0 ? $5 / base : 0) }'
