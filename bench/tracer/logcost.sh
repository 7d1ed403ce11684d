#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# logcost.sh -- what the default log costs as a script (tapsets/maptap/
# log.stp) against another maptap build's log (e.g. the C log of a build
# before it), on map_loop, text and JSON, -o /dev/null.  Cells run
# interleaved, ROUNDS times; prints "cell wall user sys" per run (CPU of
# maptap and target together, /usr/bin/time) and the medians.
#
# Usage: OLD=DIR NEW=DIR logcost.sh [ROUNDS [PAIRS]]
#   DIR: a build directory (its maptap, or .libs/maptap in older trees, with .libs as library
#   path, not libtool's wrapper).  Defaults: 5 rounds, 20000 pairs.
set -e
R=${1:-5}; N=${2:-20000}
: "${OLD:?OLD=build dir}" "${NEW:?NEW=build dir}"
here=$(cd "$(dirname "$0")" && pwd)
# A build tree's maptap reads the tapsets MAPTAP_TAPSET names (maptap(1)):
# this tree's, unless the caller names others.  Older builds ignore it.
: "${MAPTAP_TAPSET:=$(cd "$here/../../tapsets" && pwd)}"
export MAPTAP_TAPSET
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -o "$tmp/map_loop" "$here/map_loop.c"

# The program itself: older build trees have libtool's wrapper script in
# front of .libs/maptap, newer ones a real program (-no-install, then
# libmaptap linked in statically).
prog() {	# DIR
	if [ -x "$1/.libs/maptap" ]; then
		echo "env LD_LIBRARY_PATH=$1/.libs $1/.libs/maptap"
	else
		echo "$1/maptap"
	fi
}

cell() {	# NAME DIR ARGS...
	local name=$1 dir=$2; shift 2
	# shellcheck disable=SC2046
	/usr/bin/time -f "$name %e %U %S" -o "$tmp/t" \
		$(prog "$dir") "$@" \
		-o /dev/null -c "$tmp/map_loop $N" 2>/dev/null || true
	cat "$tmp/t"
}

for r in $(seq "$R"); do
	cell old-text "$OLD"
	cell new-text "$NEW"
	cell old-json "$OLD" --json
	cell new-json "$NEW" --json
done | tee "$tmp/all"
echo "median of $R: cell wall user sys user+sys"
for c in old-text new-text old-json new-json; do
	awk -v c=$c '$1 == c { print $2, $3, $4, $3 + $4 }' "$tmp/all" |
	sort -n -k4 | awk -v c=$c '{ a[NR] = $0 } END { print c, a[int((NR + 1) / 2)] }'
done
