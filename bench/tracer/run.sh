#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh -- what maptap costs a traced program, measured against running
# untraced and against strace, in one run (bench/README.md).
#
# Builds the two targets with $CC, then runs ROUNDS rounds; each round runs
# every cell once, interleaved (so a machine that slows down mid-run slows
# every cell alike), and the figures are the medians over the rounds:
#
#   targets  nomap_loop (2,000,000 getppid), map_loop (200,000 mmap+munmap)
#   tracers  none, `maptap -c`, `strace -f -e trace=%memory --seccomp-bpf`
#   CPUs     unpinned, and `taskset -c 0` on the whole command (tracer and
#            target then share one CPU and a stop needs no cross-CPU wake-up)
#
# Usage: run.sh [-r ROUNDS] [-n NOMAP_COUNT] [-m MAP_COUNT] [-k]
#        run.sh -p DIR
#   -r  rounds (default 5)         -n, -m  calls / pairs per target run
#   -k  keep the work directory (targets, raw times, maptap -v lines)
#   -p  only print the figures of a run kept with -k (its work directory
#       DIR), e.g. of the rounds an interrupted run finished
# Environment: CC (default cc), BENCH_CFLAGS (default -O2), MAPTAP (the
# maptap program; default ./maptap, i.e. run from the build directory),
# STRACE (default strace).  Use a build without --enable-sanitizers.
# Exit status 0, or 1 if a tool is missing or any run fails.
set -eu -o pipefail

rounds=5 nomap_n=2000000 map_n=200000 keep=0 kept=
while getopts r:n:m:kp:h opt; do
	case $opt in
	r) rounds=$OPTARG ;;
	n) nomap_n=$OPTARG ;;
	m) map_n=$OPTARG ;;
	k) keep=1 ;;
	p) kept=$OPTARG ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	   exit 1 ;;
	esac
done

die() { echo "run.sh: $*" >&2; exit 1; }

targets="nomap_loop map_loop"
tracers="none maptap strace"
pins="any cpu0"

# Build the targets and run every cell ROUNDS times into $work.
measure() {
	here=$(cd "$(dirname "$0")" && pwd)
	# A build tree's maptap reads the tapsets MAPTAP_TAPSET names (maptap(1)):
	# this tree's, unless the caller names others.  Older builds ignore it.
	: "${MAPTAP_TAPSET:=$(cd "$here/../../tapsets" && pwd)}"
	export MAPTAP_TAPSET
	cc=${CC:-cc}
	maptap=${MAPTAP:-./maptap}
	strace_bin=${STRACE:-strace}
	[ -x "$maptap" ] || die "no maptap program at '$maptap' (set MAPTAP)"
	maptap=$(cd "$(dirname "$maptap")" && pwd)/$(basename "$maptap")
	# In a build tree maptap is libtool's wrapper script, whose own
	# start-up (a bash run, ~0.2 s on a busy machine) would be billed to
	# maptap: run the real program the way the wrapper would.
	maptap_cmd=("$maptap")
	if head -c 200 "$maptap" | grep -q 'temporary wrapper script'; then
		libs=$(dirname "$maptap")/.libs
		[ -x "$libs/$(basename "$maptap")" ] ||
			die "$maptap is a libtool wrapper without $libs (run make)"
		ldpath=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		maptap_cmd=(env "LD_LIBRARY_PATH=$ldpath"
			    "$libs/$(basename "$maptap")")
	fi
	command -v "$strace_bin" >/dev/null ||
		die "strace not found (Debian package strace: apt-get install strace)"
	[ -x /usr/bin/time ] || die "/usr/bin/time not found (Debian package time)"
	command -v taskset >/dev/null || die "taskset not found (package util-linux)"
	case $rounds$nomap_n$map_n in *[!0-9]*) die "counts must be numbers" ;; esac
	[ "$rounds" -ge 1 ] || die "need at least one round"

	work=$(mktemp -d "${TMPDIR:-/tmp}/maptap-bench.XXXXXX")
	if [ "$keep" = 1 ]; then
		echo "run.sh: keeping $work" >&2
	else
		trap 'rm -rf "$work"' EXIT
	fi

	for t in nomap_loop map_loop; do
		# shellcheck disable=SC2086
		$cc ${BENCH_CFLAGS:--O2} -o "$work/$t" "$here/$t.c" ||
			die "cannot build $t with $cc"
	done

	declare -A count=([nomap_loop]=$nomap_n [map_loop]=$map_n)

	# Run one cell once; append "wall_s cpu_s" to $work/CELL.times.  Wall time
	# comes from bash's microsecond clock, CPU time (user+sys of the
	# tracer and the target together) from /usr/bin/time.
	run_cell() {
		local target=$1 tracer=$2 pin=$3 cell=$1.$2.$3
		local cmd=("$work/$target" "${count[$target]}")
		local pre=() t0 t1 rc=0

		[ "$pin" = cpu0 ] && pre=(taskset -c 0)
		case $tracer in
		maptap) cmd=("${maptap_cmd[@]}" -v -o /dev/null -c "${cmd[*]}") ;;
		strace) cmd=("$strace_bin" -f -e trace=%memory --seccomp-bpf
			     -o /dev/null "${cmd[@]}") ;;
		esac
		t0=$EPOCHREALTIME
		/usr/bin/time -f '%U %S' -o "$work/time.out" \
			"${pre[@]}" "${cmd[@]}" 2>"$work/$cell.err" || rc=$?
		t1=$EPOCHREALTIME
		if [ "$rc" != 0 ]; then
			cat "$work/$cell.err" >&2
			die "$cell failed ($rc)"
		fi
		awk -v a="$t0" -v b="$t1" \
			'{ printf "%.6f %.3f\n", b - a, $1 + $2 }' \
			"$work/time.out" >>"$work/$cell.times"
	}

	{
		echo "machine: $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' \
			/proc/cpuinfo | sort -u | head -1)), kernel $(uname -r)"
		echo "counts: nomap_loop $nomap_n getppid, map_loop $map_n" \
			"mmap+munmap pairs; interleaved rounds; figures are medians"
		echo "load average (1, 5, 15 min) at the start:" \
			"$(cut -d' ' -f1-3 /proc/loadavg)"
	} >"$work/header"
	for ((r = 1; r <= rounds; r++)); do
		printf 'round %d/%d ...\n' "$r" "$rounds" >&2
		for pin in $pins; do
			for target in $targets; do
				for tracer in $tracers; do
					run_cell "$target" "$tracer" "$pin"
				done
			done
		done
	done
	echo "load average (1, 5, 15 min) at the end:" \
		"$(cut -d' ' -f1-3 /proc/loadavg)" >>"$work/header"
}

if [ -n "$kept" ]; then
	[ -d "$kept" ] || die "no kept run in '$kept'"
	work=$kept
	# The rounds every cell finished.
	rounds=0
	[ "$(ls "$work" | grep -c '\.times$')" = 12 ] &&
		rounds=$(for f in "$work"/*.times; do wc -l <"$f"; done |
			sort -n | head -1)
	[ "${rounds:-0}" -ge 1 ] || die "no finished round in '$kept'"
else
	measure
fi
cat "$work/header" 2>/dev/null || true

# median FILE COLUMN: over the first $rounds rounds.
median() {
	head -n "$rounds" "$1" | awk -v c="$2" '{ print $c }' | sort -g |
		awk '{ v[NR] = $1 } END {
			if (NR % 2) print v[(NR + 1) / 2];
			else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# The stop counters of the last maptap run of a cell:
# "stops seccomp syscall mapping_calls".
stop_counts() {
	local n='\([0-9]*\)' re

	re="^maptap: $n stops ($n seccomp, $n syscall), $n mapping calls.*"
	sed -n "s/$re/\\1 \\2 \\3 \\4/p" "$work/$1.maptap.$2.err" | tail -1
}

echo
echo "wall seconds (CPU seconds, tracer + target), median of $rounds"
printf '%-10s %-5s %16s %16s %16s %9s %9s %9s\n' target cpus untraced \
	maptap strace 'mt/untr' 'st/untr' 'mt/st'
for pin in $pins; do
	for target in $targets; do
		declare -A w=() c=()
		for tracer in $tracers; do
			w[$tracer]=$(median "$work/$target.$tracer.$pin.times" 1)
			c[$tracer]=$(median "$work/$target.$tracer.$pin.times" 2)
		done
		awk -v t="$target" -v p="$pin" \
		    -v wn="${w[none]}" -v wm="${w[maptap]}" -v ws="${w[strace]}" \
		    -v cn="${c[none]}" -v cm="${c[maptap]}" -v cs="${c[strace]}" \
		    'BEGIN {
			printf "%-10s %-5s", t, p
			printf " %7.3f (%6.2f) %7.3f (%6.2f) %7.3f (%6.2f)",
				wn, cn, wm, cm, ws, cs
			printf " %9.2f %9.2f %9.2f\n", wm / wn, ws / wn, wm / ws }'
		unset w c
	done
done

echo
echo "CPU time ratios (less sensitive than wall time to a busy machine)"
printf '%-10s %-5s %9s %9s %9s\n' target cpus 'mt/untr' 'st/untr' 'mt/st'
for pin in $pins; do
	for target in $targets; do
		cn=$(median "$work/$target.none.$pin.times" 2)
		cm=$(median "$work/$target.maptap.$pin.times" 2)
		cs=$(median "$work/$target.strace.$pin.times" 2)
		awk -v t="$target" -v p="$pin" -v cn="$cn" -v cm="$cm" \
		    -v cs="$cs" 'BEGIN { printf "%-10s %-5s %9.2f %9.2f %9.2f\n",
			t, p, cm / cn, cs / cn, cm / cs }'
	done
done

echo
echo "pinned to CPU 0 against unpinned (wall, median): < 1 means pinning helps"
printf '%-10s %9s %9s %9s\n' target untraced maptap strace
for target in $targets; do
	line=$(printf '%-10s' "$target")
	for tracer in $tracers; do
		a=$(median "$work/$target.$tracer.any.times" 1)
		b=$(median "$work/$target.$tracer.cpu0.times" 1)
		line+=$(awk -v a="$a" -v b="$b" 'BEGIN { printf " %9.2f", b / a }')
	done
	echo "$line"
done

echo
echo "maptap stops (maptap -v, last round); wall time added per mapping call"
printf '%-10s %-5s %8s %8s %8s %9s %10s %10s %10s %10s\n' target cpus \
	stops seccomp syscall 'map calls' 'stops/call' 'maptap us' \
	'strace us' 'mt cpu us'
for pin in $pins; do
	for target in $targets; do
		read -r st sc sy mc <<<"$(stop_counts "$target" "$pin")" ||
			die "no counters from maptap -v for $target ($pin)"
		wn=$(median "$work/$target.none.$pin.times" 1)
		wm=$(median "$work/$target.maptap.$pin.times" 1)
		ws=$(median "$work/$target.strace.$pin.times" 1)
		cn=$(median "$work/$target.none.$pin.times" 2)
		cm=$(median "$work/$target.maptap.$pin.times" 2)
		awk -v t="$target" -v p="$pin" -v st="$st" -v sc="$sc" \
		    -v sy="$sy" -v mc="$mc" -v wn="$wn" -v wm="$wm" -v ws="$ws" \
		    -v cn="$cn" -v cm="$cm" \
		    'BEGIN {
			printf "%-10s %-5s %8d %8d %8d %9d %10.3f", t, p, st,
				sc, sy, mc, mc ? st / mc : 0
			# Too few calls to say anything per call: only start-up.
			if (mc < 1000)
				printf " %10s %10s %10s\n", "-", "-", "-"
			else
				printf " %10.1f %10.1f %10.1f\n",
					(wm - wn) * 1e6 / mc,
					(ws - wn) * 1e6 / mc,
					(cm - cn) * 1e6 / mc }'
	done
done
echo
echo "maptap us, strace us: (traced wall - untraced wall) / mapping calls;"
echo "both tracers stop twice per call (seccomp, then syscall exit), so the"
echo "difference is what maptap does per call beyond the stops (range"
echo "refresh, diff, event).  maptap cpu us: the same in CPU time."
