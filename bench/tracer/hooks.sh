#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# hooks.sh -- what on_syscall costs a traced program (bench/README.md,
# "System-call hooks"): builds nomap_loop and map_loop with $CC and runs
# bench/tracer/hooks_bench on them (untraced; a session without hook;
# on_syscall for openat only; on_syscall for every call).
#
# Usage: hooks.sh [-r ROUNDS] [NOMAP_COUNT [MAP_COUNT]]
# Environment: CC (default cc), BENCH_CFLAGS (default -O2), HOOKS_BENCH
# (default ./bench/tracer/hooks_bench, i.e. run from the build directory).
# Use a build without --enable-sanitizers.
set -eu

rounds=3
if [ "${1:-}" = -r ]; then
	rounds=$2
	shift 2
fi
nomap_n=${1:-2000000}
map_n=${2:-200000}
here=$(cd "$(dirname "$0")" && pwd)
bench=${HOOKS_BENCH:-./bench/tracer/hooks_bench}
[ -x "$bench" ] || { echo "hooks.sh: no $bench (make bench-hooks)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/maptap-hooks-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
for t in nomap_loop map_loop; do
	# shellcheck disable=SC2086
	${CC:-cc} ${BENCH_CFLAGS:--O2} -o "$work/$t" "$here/$t.c"
done
echo "machine: $(nproc) CPUs, kernel $(uname -r);" \
	"load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "counts: nomap_loop $nomap_n getppid, map_loop $map_n mmap+munmap pairs;" \
	"$rounds interleaved rounds; medians"
"$bench" -r "$rounds" "$work/nomap_loop" "$nomap_n" "$work/map_loop" "$map_n"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
