#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# stops.sh -- the stop counts bench/tracer/run.sh reports, checked exactly
# (counts, not times, so the result does not depend on the machine's load).
#
# Launch mode must stop once at seccomp and once at the exit of each
# mapping call (issue 2: "one seccomp stop plus one exit stop"), but only
# at the seccomp stop for an mmap or munmap in a single-threaded mm (issue
# 16: its change, or where the mmap put its mapping, is read at the
# thread's next stop, docs/model.md), and never for
# a call that cannot change the address space.  The same for a script
# that reads no stopped thread's state (no uaddr(), registers, stacks or
# user memory reads).  Running each target
# twice with different counts cancels the start-up stops (ld.so, libc)
# out of the comparison.
. "$top_srcdir/testsuite/lib/tap.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/maptap-stops.XXXXXX")
trap 'rm -rf "$work"' EXIT
maptap=$top_builddir/maptap

for t in nomap_loop map_loop; do
	$CC -O2 -o "$work/$t" "$top_srcdir/bench/tracer/$t.c" ||
		{ fail "build $t"; tap_done; exit 1; }
done

# counts TARGET N [MAPTAP_ARG...]: print "stops seccomp syscall
# mapping_calls" of one run.
counts() {
	t=$1 n=$2
	shift 2
	"$maptap" -v -o /dev/null "$@" -c "$work/$t $n" 2>"$work/err" ||
		{ cat "$work/err" | sed 's/^/# /'; return 1; }
	sed -n 's/^maptap: \([0-9]*\) stops (\([0-9]*\) seccomp, \([0-9]*\) syscall), \([0-9]*\) mapping calls.*/\1 \2 \3 \4/p' \
		"$work/err"
}

a=$(counts map_loop 1000) && b=$(counts map_loop 3000)
if [ -z "$a" ] || [ -z "$b" ]; then
	fail "maptap -v prints its counters for map_loop"
	tap_done; exit 1
fi
set -- $a $b
diag "map_loop 1000: $a; map_loop 3000: $b"
check "2000 more pairs are exactly 4000 more mapping calls" \
	[ $(($8 - $4)) -eq 4000 ]
# Exactly: per mmap+munmap pair, the mmap's and the munmap's seccomp
# stops (2, where the obvious design needs 4).  More is a regression;
# fewer would miss a call.
check "2000 more pairs are exactly 4000 more stops" [ $(($5 - $1)) -eq 4000 ]
check "exactly one seccomp stop per mapping call" [ $(($6 - $2)) -eq 4000 ]
check "no exit stop: neither the mmap's nor the munmap's" \
	[ $(($7 - $3)) -eq 0 ]

# A script is deferred like the default log unless it reads the stopped
# thread (issue 16: uaddr(), registers, stacks, user memory): then every
# munmap keeps its exit stop.
plain='global n; probe vm.munmap { n++ } probe end { printf("%d\n", n) }'
regs='global n; probe vm.munmap { n += uaddr() != 0 } probe end { printf("%d\n", n) }'
a=$(counts map_loop 1000 -e "$plain") && b=$(counts map_loop 3000 -e "$plain")
set -- ${a:-0 0 0 0} ${b:-0 0 0 0}
diag "script, map_loop 1000: $a; map_loop 3000: $b"
check "a script that reads no thread: exactly 4000 more stops" \
	[ $(($5 - $1)) -eq 4000 ]
a=$(counts map_loop 1000 -e "$regs") && b=$(counts map_loop 3000 -e "$regs")
set -- ${a:-0 0 0 0} ${b:-0 0 0 0}
diag "script with uaddr(), map_loop 1000: $a; map_loop 3000: $b"
check "a script that calls uaddr(): exactly 8000 more stops (exit stops)" \
	[ $(($5 - $1)) -eq 8000 ]
a=$(counts nomap_loop 1000) && b=$(counts nomap_loop 100000)
if [ -z "$a" ] || [ -z "$b" ]; then
	fail "maptap -v prints its counters for nomap_loop"
	tap_done; exit 1
fi
diag "nomap_loop 1000: $a; nomap_loop 100000: $b"
check "getppid never stops the target (seccomp allows it)" [ "$a" = "$b" ]
tap_done
