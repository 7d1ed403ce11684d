#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz-maps.sh -- run the maps/mm fuzz target under libFuzzer for 20 s.
# Needs clang with -fsanitize=fuzzer (Debian: clang, libclang-rt-*-dev);
# without it the case is a SKIP that says why.  The deterministic run of
# the same target under the ordinary compiler is fuzz_maps_standalone.
. "$top_srcdir/testsuite/lib/tap.sh"

NAME=fuzz
. "$top_srcdir/testsuite/lib/libfuzzer.sh"

src=$top_srcdir
if "$CLANG" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-g -O1 -I"$src/include" -I"$top_builddir" -I"$src" \
	-o "$work/fuzz_maps" "$src/testsuite/fuzz/fuzz_maps.c" \
	"$src/runtime/model/vma.c" "$src/runtime/model/maps_parse.c" \
	"$src/runtime/model/mm_tree.c" "$src/runtime/model/mm_diff.c" \
	"$src/runtime/model/mm.c" \
	>"$work/build.log" 2>&1; then
	ok "build the fuzz target with clang and libFuzzer"
else
	sed 's/^/# /' "$work/build.log"
	fail "build the fuzz target with clang and libFuzzer"
	tap_done; exit $?
fi

# Fuzz a copy: libFuzzer adds what it finds to its first corpus directory.
mkdir "$work/corpus"
cp "$src"/testsuite/fuzz/corpus/maps/* "$work/corpus/"
if (cd "$work" && ./fuzz_maps -max_total_time=20 -max_len=4096 \
	-print_final_stats=1 corpus >fuzz.log 2>&1); then
	ok "20 s of libFuzzer found no crash ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/fuzz.log" | grep -o '[0-9]*$') runs)"
else
	tail -n 40 "$work/fuzz.log" | sed 's/^/# /'
	mkdir -p "$top_builddir/testsuite/fuzz"
	for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
		[ -e "$f" ] || continue
		cp "$f" "$top_builddir/testsuite/fuzz/" &&
		diag "kept $top_builddir/testsuite/fuzz/${f##*/}"
	done
	fail "libFuzzer found a crash (reproducer above)"
fi
tap_done
