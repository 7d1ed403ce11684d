#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# startup.sh -- what the translator costs before a script runs: CPU time
# and peak RSS of `maptap -p2` for three scripts, an old build against a
# new one (bench/README.md, "Translator start-up").
#
#   trivial  -e 'probe begin { exit() }'
#   syscall  -e 'probe syscall.* {} ...': every alias of the syscall tapsets
#   log      the default event log's script (tapsets/maptap/log.stp)
#   floor    the trivial script at -p1: process start and the parse of
#            the script, no tapset (the control: both builds should tie)
#
# Each round runs every (script, build) cell once, interleaved, so a
# machine that gets busier mid-run slows both builds alike; the figures
# are medians over the rounds.  CPU time (user + system) and peak RSS come
# from wait4(2) (rusage.c, built with $CC at run time).
#
# Usage: startup.sh [-r ROUNDS] OLD_MAPTAP NEW_MAPTAP
#   -r  rounds (default 21)
# A libtool wrapper (build/maptap) is replaced by the real program in its
# .libs/, so the wrapper's shell is not measured.  Both builds should read
# the same tapsets: each reads its own source tree's.  Use builds without
# --enable-sanitizers.  Exit status 0, or 1 if any run fails.
set -eu -o pipefail

rounds=21
while getopts r:h opt; do
	case $opt in
	r) rounds=$OPTARG ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	   exit 1 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { echo "usage: startup.sh [-r ROUNDS] OLD NEW" >&2; exit 1; }

die() { echo "startup.sh: $*" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
# A build tree's maptap reads the tapsets MAPTAP_TAPSET names (maptap(1)):
# this tree's, unless the caller names others.  Older builds ignore it.
: "${MAPTAP_TAPSET:=$(cd "$here/../../tapsets" && pwd)}"
export MAPTAP_TAPSET
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
${CC:-cc} -O2 -o "$work/rusage" "$here/rusage.c" || die "cannot build rusage"

# The program to exec and the library path it needs, for one build.
real_prog() {
	local d b
	d=$(cd "$(dirname "$1")" && pwd) b=$(basename "$1")
	if [ -x "$d/.libs/$b" ]; then
		echo "$d/.libs $d/.libs/$b"
	else
		[ -x "$d/$b" ] || die "$1: not a program"
		echo "${LD_LIBRARY_PATH:-} $d/$b"
	fi
}
read -r old_lib old_bin <<<"$(real_prog "$1")"
read -r new_lib new_bin <<<"$(real_prog "$2")"
log_stp=$here/../../tapsets/maptap/log.stp
[ -f "$log_stp" ] || die "no $log_stp"

args_trivial=(-p2 -e 'probe begin { exit() }')
args_syscall=(-p2 -c true -e 'global n probe syscall.* { n++ } probe begin { exit() }')
args_log=(-p2 -c true "$log_stp")
args_floor=(-p1 -e 'probe begin { exit() }')

run() {	# BUILD SCRIPT: one measurement appended to $work/BUILD.SCRIPT
	local lib=${1}_lib bin=${1}_bin args="args_$2[@]"
	env LD_LIBRARY_PATH="${!lib}" "$work/rusage" "${!bin}" "${!args}" \
		>>"$work/$1.$2" || die "$1 build failed on the $2 script"
}

scripts="floor trivial syscall log"
for ((r = 0; r < rounds; r++)); do
	for s in $scripts; do
		run old $s
		run new $s
	done
done

median() {	# COLUMN-EXPRESSION FILE
	awk "{ print $1 }" "$2" | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

printf '%-8s %10s %10s %7s %10s %10s %7s\n' script "old cpu ms" \
	"new cpu ms" ratio "old rss KB" "new rss KB" ratio
for s in $scripts; do
	oc=$(median '$1 + $2' "$work/old.$s") nc=$(median '$1 + $2' "$work/new.$s")
	om=$(median '$3' "$work/old.$s") nm=$(median '$3' "$work/new.$s")
	awk -v s=$s -v oc=$oc -v nc=$nc -v om=$om -v nm=$nm 'BEGIN {
		printf "%-8s %10.1f %10.1f %7.2f %10d %10d %7.2f\n", s,
		       oc / 1000, nc / 1000, nc / oc, om, nm, nm / om }'
done
echo "($rounds rounds, medians; ratio = new / old)"
