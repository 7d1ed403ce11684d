#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# floor.sh -- maptap against the least a tracer of the mapping calls can
# do, and against strace, side by side (issue 16; bench/README.md).
#
# Tracers, each on the same workloads in interleaved rounds (every round
# runs every cell once, so a machine that slows down mid-run slows every
# cell alike); the figures are medians over the rounds:
#   none    the workload untraced
#   floor   bench/tracer/floor.c: a seccomp filter that traps maptap's
#           mapping calls, PTRACE_SYSCALL to each one's exit, one
#           blocking waitpid per stop, nothing read or logged
#   minimal floor -m: maptap's stops and system calls for a lone thread
#           (entry stops only, PTRACE_GET_SYSCALL_INFO and one
#           PROCMAP_QUERY each), without maptap's own work
#   strace  strace -f --seccomp-bpf -e trace=%memory -o /dev/null
#   maptap  maptap -v -o /dev/null -c (the default log, thrown away)
#   pin     maptap --pin (maptap and the command on one CPU)
#   perf    maptap --events=perf (no stop at all: the kernel's perf
#           records and tracepoints; docs/tracer.md, issue 15)
#   base    with MAPTAP_BASE set: that maptap program (an older build, for
#           a before/after comparison), as maptap
# Workloads:
#   map     map_loop: N mmap+munmap pairs of one page (default 20000)
#   dl      dl_loop: R rounds of dlopen+dlclose of 4 small libraries
#           built here (default 200)
#   py      python3 -c 'import json, ssl, sqlite3, decimal'
#
# Columns: wall seconds and CPU seconds (user+sys, tracer and target),
# the stops (floor's and maptap's own counts; "calls" is the floor's
# seccomp stops, one per traced call), the wall time added per stop over
# the untraced run (us/stop), the CPU time added per stop, and the
# ratios of wall time maptap/floor and maptap/strace.
#
# CPU time is wait4(2)'s rusage in microseconds (bench/translator/rusage.c;
# /usr/bin/time rounds to 10 ms).
#
# Usage: floor.sh [-r ROUNDS] [-m PAIRS] [-d ROUNDS] [-k]
# Environment: CC (default cc), MAPTAP (default ./maptap: run from the
# build directory), MAPTAP_BASE (optional, see base), STRACE (default
# strace).  Needs strace.  Exit status 0, or 1 if a tool is
# missing or a run fails.
set -eu -o pipefail

rounds=5 map_n=20000 dl_n=200 keep=0
while getopts r:m:d:kh opt; do
	case $opt in
	r) rounds=$OPTARG ;;
	m) map_n=$OPTARG ;;
	d) dl_n=$OPTARG ;;
	k) keep=1 ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	   exit 1 ;;
	esac
done

die() { echo "floor.sh: $*" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
: "${MAPTAP_TAPSET:=$(cd "$here/../../tapsets" && pwd)}"
export MAPTAP_TAPSET
cc=${CC:-cc}
maptap=${MAPTAP:-./maptap}
strace_bin=${STRACE:-strace}
[ -x "$maptap" ] || die "no maptap program at '$maptap' (set MAPTAP)"
maptap=$(cd "$(dirname "$maptap")" && pwd)/$(basename "$maptap")
maptap_cmd=("$maptap")
if head -c 200 "$maptap" | grep -q 'temporary wrapper script'; then
	libs=$(dirname "$maptap")/.libs
	maptap_cmd=(env "LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		    "$libs/$(basename "$maptap")")
fi
command -v "$strace_bin" >/dev/null ||
	die "strace not found (Debian package strace)"
command -v python3 >/dev/null || die "python3 not found"
case $rounds$map_n$dl_n in *[!0-9]*) die "counts must be numbers" ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/maptap-floor.XXXXXX")
if [ "$keep" = 1 ]; then
	echo "floor.sh: keeping $work" >&2
else
	trap 'rm -rf "$work"' EXIT
fi
$cc -O2 -o "$work/floor" "$here/floor.c" || die "cannot build floor"
$cc -O2 -o "$work/rusage" "$here/../translator/rusage.c" ||
	die "cannot build rusage"
$cc -O2 -o "$work/map_loop" "$here/map_loop.c" || die "cannot build map_loop"
$cc -O2 -o "$work/dl_loop" "$here/dl_loop.c" -ldl ||
	die "cannot build dl_loop"
dl_libs=()
for i in 1 2 3 4; do
	printf 'int f%d(int x) { return x * %d; }\nint g%d[4096] = { 1 };\n' \
		"$i" "$i" "$i" >"$work/lib$i.c"
	$cc -O2 -shared -fPIC -o "$work/lib$i.so" "$work/lib$i.c" ||
		die "cannot build lib$i.so"
	dl_libs+=("$work/lib$i.so")
done

workloads="map dl py"
tracers="none floor minimal strace maptap pin perf"
base_cmd=()
if [ -n "${MAPTAP_BASE:-}" ]; then
	[ -x "$MAPTAP_BASE" ] || die "MAPTAP_BASE: no program at '$MAPTAP_BASE'"
	base_cmd=("$MAPTAP_BASE")
	tracers="$tracers base"
fi

workload_cmd() {
	case $1 in
	map) echo "$work/map_loop $map_n" ;;
	dl) echo "$work/dl_loop $dl_n ${dl_libs[*]}" ;;
	py) echo "python3 -c 'import json, ssl, sqlite3, decimal'" ;;
	esac
}

# run_cell WORKLOAD TRACER: append "wall cpu stops" to $work/CELL.
run_cell() {
	local w=$1 tr=$2 cmd t0 t1 rc=0 stops=0
	cmd=$(workload_cmd "$w")
	local -a argv
	case $tr in
	none) argv=(sh -c "exec $cmd") ;;
	floor) argv=(sh -c "exec $work/floor $cmd") ;;
	minimal) argv=(sh -c "exec $work/floor -m $cmd") ;;
	strace) argv=("$strace_bin" -f --seccomp-bpf -e trace=%memory
		      -o /dev/null sh -c "exec $cmd") ;;
	maptap) argv=("${maptap_cmd[@]}" -v -o /dev/null -c "$cmd") ;;
	pin) argv=("${maptap_cmd[@]}" --pin -v -o /dev/null -c "$cmd") ;;
	perf) argv=("${maptap_cmd[@]}" --events=perf -v -o /dev/null
		    -c "$cmd") ;;
	base) argv=("${base_cmd[@]}" -v -o /dev/null -c "$cmd") ;;
	esac
	t0=$EPOCHREALTIME
	"$work/rusage" "${argv[@]}" >"$work/time.out" 2>"$work/err" || rc=$?
	t1=$EPOCHREALTIME
	[ "$rc" = 0 ] || { cat "$work/err" >&2; die "$w.$tr failed ($rc)"; }
	case $tr in
	floor|minimal) stops=$(sed -n 's/^floor: \([0-9]*\) stops (\([0-9]*\) seccomp.*/\1 \2/p' "$work/err") ;;
	maptap|pin|perf|base) stops=$(sed -n 's/^maptap: \([0-9]*\) stops.*/\1 0/p' "$work/err") ;;
	*) stops="0 0" ;;
	esac
	awk -v a="$t0" -v b="$t1" -v s="$stops" \
		'{ printf "%.6f %.6f %s\n", b - a, ($1 + $2) / 1e6, s }' \
		"$work/time.out" >>"$work/$w.$tr"
}

{
	echo "machine: $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' \
		/proc/cpuinfo | sort -u | head -1)), kernel $(uname -r)"
	echo "workloads: map = $map_n mmap+munmap pairs, dl = $dl_n rounds of" \
		"dlopen+dlclose of 4 libraries, py = python3 importing json," \
		"ssl, sqlite3, decimal; $rounds interleaved rounds, medians"
	echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$work/header"
for ((r = 1; r <= rounds; r++)); do
	printf 'round %d/%d ...\n' "$r" "$rounds" >&2
	for w in $workloads; do
		for tr in $tracers; do
			run_cell "$w" "$tr"
		done
	done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" \
	>>"$work/header"
cat "$work/header"

# median FILE COLUMN
median() {
	awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2];
		else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo
printf '%-4s %-7s %8s %8s %8s %6s %9s %9s %8s %8s\n' work tracer wall_s \
	cpu_s stops st/call 'us/stop' 'cpu_us/st' 'vs floor' 'vs strace'
for w in $workloads; do
	wn=$(median "$work/$w.none" 1)
	cn=$(median "$work/$w.none" 2)
	wf=$(median "$work/$w.floor" 1)
	ws=$(median "$work/$w.strace" 1)
	calls=$(median "$work/$w.floor" 4)
	fstops=$(median "$work/$w.floor" 3)
	for tr in $tracers; do
		wt=$(median "$work/$w.$tr" 1)
		ct=$(median "$work/$w.$tr" 2)
		st=$(median "$work/$w.$tr" 3)
		# strace's own stops are not counted: the floor's stand in
		# for its (both stop at entry and exit of each traced call).
		[ "$tr" = strace ] && st=$fstops
		awk -v w="$w" -v tr="$tr" -v wt="$wt" -v ct="$ct" -v st="$st" \
		    -v calls="$calls" -v wn="$wn" -v cn="$cn" -v wf="$wf" \
		    -v ws="$ws" 'BEGIN {
			printf "%-4s %-7s %8.3f %8.3f", w, tr, wt, ct
			if (tr == "none") { printf "\n"; exit }
			printf " %8d %6.2f", st, calls ? st / calls : 0
			printf " %9.2f %9.2f", st ? (wt - wn) * 1e6 / st : 0,
				st ? (ct - cn) * 1e6 / st : 0
			printf " %8.2f %8.2f\n", wt / wf, wt / ws }'
	done
done
echo
echo "us/stop: wall time added per stop over the untraced run; cpu_us/st:"
echo "CPU time (tracer + target) added per stop; strace's stops taken as"
echo "the floor's.  Targets (issue 16): maptap <= 0.75 x floor and <= 0.5 x"
echo "strace on the map loop; CPU per stop within 2 us of the floor's."
