# SPDX-License-Identifier: GPL-2.0-or-later
# cells.sh -- sourced by stackcost.sh and reportcost.sh: the map_loop
# workload, how to run a build's maptap, one timed cell, and the table of
# medians.  Needs R, N and BUILD set; sets tmp, mt (BUILD's maptap with
# its output to /dev/null) and the map_loop binary "$tmp/map_loop".
here=$(cd "$(dirname "$0")" && pwd)
# A build tree's maptap reads the tapsets MAPTAP_TAPSET names (maptap(1)):
# this tree's, unless the caller names others.  Older builds ignore it.
: "${MAPTAP_TAPSET:=$(cd "$here/../../tapsets" && pwd)}"
export MAPTAP_TAPSET
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -g -o "$tmp/map_loop" "$here/map_loop.c"

maptap_of() {	# maptap_of DIR: the command that runs DIR's maptap
	if [ -x "$1/.libs/maptap" ]; then	# a libtool wrapper's tree
		echo "env LD_LIBRARY_PATH=$1/.libs $1/.libs/maptap -o /dev/null"
	else				# a real program, no wrapper
		echo "$1/maptap -o /dev/null"
	fi
}
mt=$(maptap_of "$BUILD")

cell() {	# NAME COMMAND...: one run, "NAME wall user sys"
	local name=$1; shift
	/usr/bin/time -f "$name %e %U %S" -o "$tmp/t" "$@" \
		>/dev/null 2>&1 || true
	cat "$tmp/t"
}

medians() {	# CELLS...: the median run of each cell in "$tmp/all" and
		# its CPU (user + sys) against the untraced cell's
	echo "median of $R ($N pairs): cell wall user sys user+sys cpu/untraced"
	for c in "$@"; do
		awk -v c=$c '$1 == c { print $2, $3, $4, $3 + $4 }' \
			"$tmp/all" | sort -n -k4 |
		awk -v c=$c '{ a[NR] = $0 } END { print c, a[int((NR + 1) / 2)] }'
	done | awk '{ if ($1 == "untraced") base = $5
		printf "%-14s %s %s %s %.2f %.1f\n", $1, $2, $3, $4, $5,
		       (base > 0 ? $5 / base : 0) }'
}
