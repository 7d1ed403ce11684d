#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# hitcost.sh -- what one breakpoint-probe hit costs (bench/README.md,
# "Breakpoint probes"), side by side in one run: maptap counting hits of
# a function, the same function untraced, maptap's own seccomp stop (a
# mapping call), gdb's dprintf (the ptrace peer), and kernel uprobes
# through perf probe -x + perf stat where this kernel and user allow.
#
# Usage: hitcost.sh [-r ROUNDS] [CALLS]
# Environment: CC (default cc), MAPTAP (default ./maptap, i.e. run from
# the build directory), GDB (default gdb), PERF (default perf).
set -eu

rounds=3
if [ "${1:-}" = -r ]; then
	rounds=$2
	shift 2
fi
n=${1:-100000}
here=$(cd "$(dirname "$0")" && pwd)
maptap=${MAPTAP:-./maptap}
[ -x "$maptap" ] || { echo "hitcost.sh: no $maptap" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/maptap-hitcost.XXXXXX")
trap 'rm -rf "$work"; ${PERF:-perf} probe -q -d "probe_hit_loop:*" >/dev/null 2>&1 || true' EXIT
${CC:-cc} -O2 -o "$work/hit_loop" "$here/hit_loop.c"
t="$work/hit_loop"

# Seconds (with ns) one run of "$@" takes; its output thrown away.
secs() {
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1 || return 1
	e=$(date +%s%N)
	echo "$s $e" | awk '{ printf "%.6f\n", ($2 - $1) / 1e9 }'
}

# The median of ROUNDS runs of "$@".
median() {
	i=0
	: > "$work/times"
	while [ $i -lt "$rounds" ]; do
		secs "$@" >> "$work/times" || { echo fail; return; }
		i=$((i + 1))
	done
	sort -n "$work/times" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

script='global n; probe process("'"$t"'").function("bench_fn") { n++ }'
echo "machine: $(nproc) CPUs, kernel $(uname -r);" \
	"load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$n calls of bench_fn (or mapping calls), $rounds rounds, medians;" \
	"per hit: (time of N calls - time of 0 calls) / N, so each tool's"
echo "start-up is not counted"

# One row: LABEL, then the command with @N@ for the count.
row() {
	label=$1
	shift
	a=$(median "$@" 0)
	b=$(median "$@" "$n")
	if [ "$a" = fail ] || [ "$b" = fail ]; then
		printf '%-46s %10s %12s\n' "$label" "n/a" "n/a"
		return
	fi
	printf '%-46s %10s %12s\n' "$label" "$b" \
		"$(echo "$a $b $n" | awk '{ printf "%.2f", ($2 - $1) * 1e6 / $3 }')"
}

# Commands that take the count as their last word.
mt_call() { "$maptap" -e "$script" -c "$t call $1"; }
mt_map() { "$maptap" -e 'probe begin {}' -c "$t map $1"; }
gdb_call() {
	${GDB:-gdb} -q -batch -ex 'dprintf bench_fn,"hit\n"' -ex run \
		--args "$t" call "$1"
}
perf_call() { ${PERF:-perf} stat -e probe_hit_loop:bench_fn "$t" call "$1"; }

printf '%-46s %10s %12s\n' "" "total s" "us per hit"
row "untraced call" "$t" call
row "maptap, counting probe" mt_call
row "maptap, one mapping call (seccomp+exit stop)" mt_map
if command -v "${GDB:-gdb}" >/dev/null 2>&1; then
	row "gdb dprintf" gdb_call
else
	printf '%-46s %10s %12s\n' "gdb dprintf" "no gdb" "n/a"
fi
if ${PERF:-perf} probe -q -x "$t" bench_fn >/dev/null 2>&1; then
	row "kernel uprobe (perf probe -x, perf stat)" perf_call
else
	printf '%-46s %10s %12s\n' "kernel uprobe (perf probe -x)" \
		"refused" "n/a"
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
