#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tvarcost.sh -- what reading target variables adds to a breakpoint-probe
# hit (bench/README.md, "Target variables"): the same function probed by
# a handler that reads nothing and by one that reads three variables
# ($a, $p->x through a pointer, $c), in tv_loop.c built -O0 (variables in
# the stack frame: a memory read each) and -O2 (in registers), the runs
# interleaved round by round so that the machine's load drifts alike.
#
# Usage: tvarcost.sh [-r ROUNDS] [CALLS]
# Environment: CC (default cc), MAPTAP (default ./maptap, i.e. run from
# the build directory).
set -eu

rounds=5
if [ "${1:-}" = -r ]; then
	rounds=$2
	shift 2
fi
n=${1:-20000}
here=$(cd "$(dirname "$0")" && pwd)
maptap=${MAPTAP:-./maptap}
[ -x "$maptap" ] || { echo "tvarcost.sh: no $maptap" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/maptap-tvarcost.XXXXXX")
trap 'rm -rf "$work"' EXIT
${CC:-cc} -g -O0 -o "$work/tv_loop0" "$here/tv_loop.c"
${CC:-cc} -g -O2 -o "$work/tv_loop2" "$here/tv_loop.c"

# Seconds (with ns) of one run of "$@", its output thrown away.
secs() {
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1 || { echo fail; return; }
	e=$(date +%s%N)
	echo "$s $e" | awk '{ printf "%.6f\n", ($2 - $1) / 1e9 }'
}

none() { echo 'global k; probe process("'"$1"'").function("tv_fn") { k++ }'; }
three() {
	echo 'global k; probe process("'"$1"'").function("tv_fn") {' \
		'k += $a + $p->x + $c }'
}

echo "machine: $(nproc) CPUs, kernel $(uname -r);" \
	"load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$n calls of tv_fn, $rounds rounds interleaved, medians; per hit:" \
	"(time of N calls - time of 0 calls) / N"
printf '%-34s %12s %12s %12s\n' "" "none us/hit" "three us/hit" \
	"extra us/hit"
for opt in 0 2; do
	t="$work/tv_loop$opt"
	: > "$work/none"
	: > "$work/three"
	i=0
	while [ "$i" -lt "$rounds" ]; do
		for which in none three; do
			scr=$($which "$t")
			z=$(secs "$maptap" -e "$scr" -c "$t 0")
			f=$(secs "$maptap" -e "$scr" -c "$t $n")
			if [ "$z" = fail ] || [ "$f" = fail ]; then
				echo "tvarcost.sh: $maptap failed on:" \
					"$scr" >&2
				exit 1
			fi
			echo "$z $f $n" | awk '{ printf "%.4f\n",
				($2 - $1) * 1e6 / $3 }' >> "$work/$which"
		done
		i=$((i + 1))
	done
	med() { sort -n "$1" | awk '{ v[NR] = $1 } END {
		print v[int((NR + 1) / 2)] }'; }
	a=$(med "$work/none")
	b=$(med "$work/three")
	printf '%-34s %12s %12s %12s\n' "-O$opt (tv_loop.c)" "$a" "$b" \
		"$(echo "$a $b" | awk '{ printf "%.2f", $2 - $1 }')"
done
