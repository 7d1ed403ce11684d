#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfmode.sh -- what attaching costs a running process: maptap -x with
# the perf event source against the ptrace one, strace -p and
# `perf record -e syscalls:sys_enter_mmap -p` (the anchor), on (a) a
# getppid() loop, (b) an mmap/munmap loop, (c) a small HTTP server on
# loopback under a bounded load generator.  Each target is started
# first, the tool attached, and only then the timed work begins; the
# target times itself (ns per call, per pair, per request).  Rounds are
# interleaved (every tool once per round) and medians printed, as ratios
# to the untraced run.  Targets (issue 15): perf mode <= 1.05x untraced on
# (a) and (c), and <= perf record's cost + 10 % on (b).
#
# Usage: bench/tracer/perfmode.sh [ROUNDS]   (from a build directory:
# MAPTAP, CC may be set; needs root or CAP_PERFMON, strace and perf).
set -u
ROUNDS=${1:-5}
here=$(cd "$(dirname "$0")" && pwd)
MAPTAP=${MAPTAP:-$PWD/maptap}
CC=${CC:-cc}
export MAPTAP_TAPSET=${MAPTAP_TAPSET:-$here/../../tapsets}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$CC -O2 -o "$tmp/pm_target" "$here/pm_target.c" || exit 1
$CC -O2 -o "$tmp/pm_client" "$here/pm_client.c" || exit 1
command -v strace >/dev/null || { echo "strace not installed (Debian: strace)"; exit 1; }
command -v perf >/dev/null || { echo "perf not installed (Debian: linux-perf)"; exit 1; }
PORT=$((20000 + $$ % 10000))
TOOLS=${TOOLS:-"untraced ptrace perf strace perfrec"}
CASES=${CASES:-"getppid mmap http"}
# perfset (opt-in: TOOLS="untraced perf perfrec perfset"): perf record of
# the tracepoints maptap's perf source opens, as one group, without
# maptap: what the kernel's side of that set costs on its own.  perfsetd:
# the same with -d (mmap_data: MMAP2 records of data mappings too, as
# maptap asks for, and a sample address in each sample).  Without the
# mmap_lock tracepoint: maptap turns it on only once a traced mm has a
# second thread, and these targets have one.
PERFSET=
for c in munmap mprotect pkey_mprotect mremap brk madvise prctl shmdt \
	io_destroy execve execveat; do
	PERFSET="$PERFSET,syscalls:sys_enter_$c,syscalls:sys_exit_$c"
done
for c in exit_group exit vfork fork clone clone3; do
	PERFSET="$PERFSET,syscalls:sys_enter_$c"
done
PERFSET="{dummy$PERFSET,task:task_newtask,signal:signal_deliver,signal:signal_generate}"

# Work per run: the slow tools do less (the figure is per call).
n_for() {	# n_for CASE TOOL
	case $1:$2 in
	getppid:untraced|getppid:perf|getppid:perfrec|getppid:perfset|getppid:perfsetd) echo 2000000 ;;
	getppid:*) echo 20000 ;;
	mmap:untraced|mmap:perf|mmap:perfrec|mmap:perfset|mmap:perfsetd) echo 100000 ;;
	mmap:*) echo 5000 ;;
	http:untraced|http:perf|http:perfrec|http:perfset|http:perfsetd) echo 20000 ;;
	http:*) echo 2000 ;;
	esac
}

perf_fds() {	# perf_fds PID: perf event fds PID holds
	local n=0 f
	for f in /proc/"$1"/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = "anon_inode:[perf_event]" ] && n=$((n + 1))
	done
	echo $n
}

tracer_of() { awk '/^TracerPid:/ { print $2 }' /proc/"$1"/status 2>/dev/null; }

# attach TOOL PID: start TOOL on PID in the background (its pid in $tpid)
# and return once it is attached.
attach() {
	local tool=$1 pid=$2 i prev=-1 cur
	tpid=
	case $tool in
	untraced) return 0 ;;
	ptrace) "$MAPTAP" --events=ptrace -o /dev/null -x "$pid" 2>"$tmp/err" &
		tpid=$! ;;
	perf) "$MAPTAP" --events=perf -v -o /dev/null -x "$pid" 2>"$tmp/err" &
		tpid=$! ;;
	strace) strace -f -p "$pid" -o /dev/null 2>"$tmp/err" &
		tpid=$! ;;
	perfrec) perf record -q -e syscalls:sys_enter_mmap -p "$pid" \
			-o "$tmp/perf.data" 2>"$tmp/err" &
		tpid=$! ;;
	perfset) perf record -q -e "$PERFSET" -p "$pid" \
			-o "$tmp/perf.data" 2>"$tmp/err" &
		tpid=$! ;;
	perfsetd) perf record -q -d -e "$PERFSET" -p "$pid" \
			-o "$tmp/perf.data" 2>"$tmp/err" &
		tpid=$! ;;
	esac
	for i in $(seq 2000); do
		case $tool in
		ptrace|strace) [ "$(tracer_of "$pid")" = "$tpid" ] && return 0 ;;
		perf) grep -q '^maptap: events:' "$tmp/err" && return 0 ;;
		perfrec|perfset|perfsetd)	# attached once its event count stops growing
			cur=$(perf_fds "$tpid")
			[ "$cur" -gt 0 ] && [ "$cur" = "$prev" ] && return 0
			prev=$cur ;;
		esac
		sleep 0.01
	done
	echo "cannot attach $tool" >&2
	return 1
}

detach() {	# the tool ends with its target, or on SIGINT
	[ -n "$tpid" ] || return 0
	kill -INT "$tpid" 2>/dev/null
	wait "$tpid" 2>/dev/null
}

run_loop() {	# run_loop CASE TOOL: ns per iteration
	local n pid res
	n=$(n_for "$1" "$2")
	mkfifo "$tmp/in"
	"$tmp/pm_target" "$1" "$n" <"$tmp/in" >"$tmp/out" &
	pid=$!
	exec 9>"$tmp/in"
	while ! grep -q '^ready' "$tmp/out"; do sleep 0.01; done
	attach "$2" "$pid" || { kill "$pid"; exec 9>&-; rm -f "$tmp/in"; return; }
	echo go >&9
	exec 9>&-
	wait "$pid"
	res=$(tail -1 "$tmp/out")
	detach
	rm -f "$tmp/in"
	echo "$res"
}

run_http() {	# run_http TOOL: ns per request
	local n pid res
	n=$(n_for http "$1")
	"$tmp/pm_target" http "$PORT" >"$tmp/out" &
	pid=$!
	while ! grep -q '^ready' "$tmp/out"; do sleep 0.01; done
	attach "$1" "$pid" || { kill "$pid"; return; }
	res=$("$tmp/pm_client" "$PORT" 4 "$n")
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null
	detach
	PORT=$((PORT + 1))
	echo "$res"
}

for r in $(seq "$ROUNDS"); do
	for c in $CASES; do
		for t in $TOOLS; do
			if [ $c = http ]; then v=$(run_http $t); else v=$(run_loop $c $t); fi
			echo "$c $t $v" >>"$tmp/results"
		done
	done
	echo "round $r of $ROUNDS done" >&2
done

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
if [ "$TOOLS" != "untraced ptrace perf strace perfrec" ]; then
	# A chosen set: each tool's median as a ratio to the untraced run.
	for c in $CASES; do
		u=$(awk -v c=$c '$1 == c && $2 == "untraced" && $3 != "" { print $3 }' "$tmp/results" | median)
		line=$(printf '%-8s untraced %.1f ns' $c "$u")
		for t in $TOOLS; do
			[ $t = untraced ] && continue
			m=$(awk -v c=$c -v t=$t '$1 == c && $2 == t && $3 != "" { print $3 }' "$tmp/results" | median)
			line="$line, $t $(awk -v m="$m" -v u="$u" 'BEGIN { printf "%.3fx", m / u }')"
		done
		echo "$line"
	done
	echo "(medians of $ROUNDS interleaved rounds)"
	exit 0
fi
printf '%-8s %12s %12s %12s %12s %12s   %s\n' case "untraced ns" ptrace perf "strace -p" "perf record" "perf/untraced, perf/perf-record"
for c in $CASES; do
	for t in $TOOLS; do
		eval "m_$t=$(awk -v c=$c -v t=$t '$1 == c && $2 == t && $3 != "" { print $3 }' "$tmp/results" | median)"
	done
	awk -v c=$c -v u="$m_untraced" -v p="$m_ptrace" -v f="$m_perf" -v s="$m_strace" -v r="$m_perfrec" 'BEGIN {
		printf "%-8s %12.1f %11.2fx %11.3fx %11.2fx %11.3fx   %.3f, %.3f\n", c, u, p / u, f / u, s / u, r / u, f / u, f / r }'
done
echo "(medians of $ROUNDS interleaved rounds; ns per getppid call, mmap+munmap pair, HTTP request)"
