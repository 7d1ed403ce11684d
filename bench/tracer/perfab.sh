#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfab.sh -- A/B of maptap builds in perf mode on one case of
# perfmode.sh, pinned, for changes to the perf event source: the target
# (and, for http, the client) run on CPU 0, the tool on CPU 1, every
# binary once per round, rounds interleaved, medians printed with their
# ratio to the untraced run.  For http it prints two figures: wall ns per
# request and the server's own CPU ns per request (/proc/PID/schedstat,
# the steadier one on a shared machine); for mmap and getppid the
# target's ns per iteration.  A round is run again (up to 5 times) when
# another process held perf events as it began (another tracer's
# syscall tracepoints slow every process on the machine).
#
# Usage: bench/tracer/perfab.sh ROUNDS http|mmap|getppid BIN...
# BIN is "untraced", "perfrec" (perf record -e syscalls:sys_enter_mmap)
# or the path of a maptap (or of a script running one); as root.
set -u
[ $# -ge 3 ] || { echo "usage: $0 ROUNDS http|mmap|getppid BIN..." >&2; exit 2; }
R=$1; C=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}
export MAPTAP_TAPSET=${MAPTAP_TAPSET:-$here/../../tapsets}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$CC -O2 -o "$tmp/pm_target" "$here/pm_target.c" || exit 1
$CC -O2 -o "$tmp/pm_client" "$here/pm_client.c" || exit 1
PIN="taskset -c 0"
TPIN="taskset -c 1"
PORT=$((30000 + $$ % 10000))

one() {	# one BIN: the figures of one run
	local b=$1 tp= pid n v c0 c1 out=$tmp/out err=$tmp/err i
	if [ "$C" = http ]; then
		$PIN "$tmp/pm_target" http $PORT >"$out" &
		pid=$!
	else
		case $C in mmap) n=100000 ;; *) n=2000000 ;; esac
		mkfifo "$out.in"
		$PIN "$tmp/pm_target" "$C" $n <"$out.in" >"$out" &
		pid=$!
		exec 9>"$out.in"
	fi
	while ! grep -q '^ready' "$out"; do sleep 0.01; done
	case $b in
	untraced) ;;
	perfrec)
		$TPIN perf record -q -e syscalls:sys_enter_mmap -p $pid \
			-o "$tmp/perf.data" 2>"$err" &
		tp=$!
		sleep 1 ;;
	*)
		$TPIN "$b" --events=perf -v -o /dev/null -x $pid 2>"$err" &
		tp=$!
		for i in $(seq 1000); do
			grep -q '^maptap: events:' "$err" && break
			sleep 0.01
		done ;;
	esac
	if [ "$C" = http ]; then
		c0=$(cut -d' ' -f1 /proc/$pid/schedstat)
		v=$($PIN "$tmp/pm_client" $PORT 4 20000)
		c1=$(cut -d' ' -f1 /proc/$pid/schedstat)
		v="$v $(( (c1 - c0) / 20000 ))"
		kill -TERM $pid
		wait $pid 2>/dev/null
		PORT=$((PORT + 1))
	else
		echo go >&9
		exec 9>&-
		wait $pid
		v=$(tail -1 "$out")
		rm -f "$out.in"
	fi
	if [ -n "$tp" ]; then
		# maptap -x ends with its target; perf record needs the INT
		kill -INT $tp 2>/dev/null
		wait $tp 2>/dev/null
	fi
	echo "$v"
}

others() {	# processes holding perf events
	local p f
	for p in /proc/[0-9]*; do
		for f in "$p"/fd/*; do
			if [ "$(readlink "$f" 2>/dev/null)" = "anon_inode:[perf_event]" ]; then
				echo "${p#/proc/}"
				break
			fi
		done
	done 2>/dev/null
}

for r in $(seq "$R"); do
	for b in "$@"; do
		for try in 1 2 3 4 5; do
			# maptap leaves the closing of its tracepoint events
			# to a process of its own (runtime/common/perf_close.c),
			# which outlives it by up to a second: wait for the
			# last run's to end, so only another tool's count.
			for i in $(seq 50); do
				[ -z "$(others)" ] && break
				sleep 0.1
			done
			o1=$(others); v=$(one "$b")
			[ -z "$o1" ] && break
			echo "perf events held by $o1: $b again" >&2
			sleep 2
		done
		echo "$b $v" >>"$tmp/results"
	done
	echo "round $r of $R done" >&2
done

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for col in 2 3; do
	u=$(awk -v c=$col '$1 == "untraced" { print $c }' "$tmp/results" | median)
	[ -n "$u" ] || break
	case $C:$col in
	http:2) echo "wall ns per request" ;;
	http:3) echo "server CPU ns per request" ;;
	*) echo "ns per iteration" ;;
	esac
	for b in "$@"; do
		m=$(awk -v c=$col -v b="$b" '$1 == b { print $c }' "$tmp/results" | median)
		awk -v b="$b" -v m="$m" -v u="$u" 'BEGIN { printf "  %-40s %10.1f %7.3fx\n", b, m, m / u }'
	done
done
echo "(medians of $R interleaved rounds; untraced always needs to be one of the BINs)"
