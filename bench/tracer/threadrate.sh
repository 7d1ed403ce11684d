#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# threadrate.sh -- what perf mode costs a process that creates threads
# while it has many others, and what it costs the rest of the machine.
# The target (thread_maker.c) has IDLE threads in pause() and creates and
# joins threads one after the other for 3 s; meanwhile a bystander, dd
# copying 1 GiB from /dev/zero to /dev/null in 4 KiB blocks, runs beside
# it.  Each BIN once per round, rounds interleaved; medians of the
# target's creations per second and of the bystander's seconds, with
# their ratios to the untraced run.
#
# Usage: bench/tracer/threadrate.sh ROUNDS IDLE BIN...
# BIN is "untraced", "perfrec" (perf record -e syscalls:sys_enter_munmap
# -p, inherit as by default) or the path of a maptap, run as
# maptap --events=perf -x PID; as root.
set -u
[ $# -ge 3 ] || { echo "usage: $0 ROUNDS IDLE BIN..." >&2; exit 2; }
R=$1; IDLE=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}
export MAPTAP_TAPSET=${MAPTAP_TAPSET:-$here/../../tapsets}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$CC -O2 -pthread -o "$tmp/thread_maker" "$here/thread_maker.c" || exit 1

one() {	# one BIN: "RATE DD_SECONDS"
	local b=$1 tp= pid out=$tmp/out err=$tmp/err i t0 t1 dd
	rm -f "$out.in"
	mkfifo "$out.in"
	"$tmp/thread_maker" "$IDLE" 3 <"$out.in" >"$out" &
	pid=$!
	exec 9>"$out.in"
	while ! grep -q '^ready' "$out"; do sleep 0.01; done
	case $b in
	untraced) ;;
	perfrec)
		perf record -q -e syscalls:sys_enter_munmap -p $pid \
			-o "$tmp/perf.data" 2>"$err" &
		tp=$!
		sleep 1 ;;
	*)
		"$b" --events=perf -v -o /dev/null -x $pid 2>"$err" &
		tp=$!
		for i in $(seq 3000); do
			grep -q '^maptap: events:' "$err" && break
			sleep 0.01
		done ;;
	esac
	t0=$(date +%s.%N)
	dd if=/dev/zero of=/dev/null bs=4k count=262144 2>/dev/null &
	dd=$!
	echo go >&9
	exec 9>&-
	wait $dd
	t1=$(date +%s.%N)
	wait $pid
	if [ -n "$tp" ]; then
		kill -INT $tp 2>/dev/null
		wait $tp 2>/dev/null
	fi
	awk -v r="$(sed -n 's/^rate //p' "$out")" -v a="$t0" -v b="$t1" \
		'BEGIN { print r, b - a }'
}

for r in $(seq "$R"); do
	for b in "$@"; do
		one "$b" >>"$tmp/res.$(echo "$b" | tr / _)"
	done
done

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
base_rate= base_dd=
printf '%d idle threads, %d rounds\n' "$IDLE" "$R"
printf '%-28s %12s %8s %10s %8s\n' BIN "threads/s" ratio "dd s" ratio
for b in "$@"; do
	f=$tmp/res.$(echo "$b" | tr / _)
	rate=$(cut -d' ' -f1 "$f" | median)
	dd=$(cut -d' ' -f2 "$f" | median)
	[ -z "$base_rate" ] && base_rate=$rate && base_dd=$dd
	awk -v b="$b" -v r="$rate" -v br="$base_rate" -v d="$dd" \
		-v bd="$base_dd" 'BEGIN { printf "%-28s %12s %8.3f %10.2f %8.2f\n",
		b, r, r / br, d, d / bd }'
done
