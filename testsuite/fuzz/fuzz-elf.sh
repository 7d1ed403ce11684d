#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz-elf.sh -- run the ELF segment/symbol fuzz target (fuzz_elf.c) under
# libFuzzer for 20 s, seeded with a few real ELF files.  Needs clang with
# -fsanitize=fuzzer (Debian: clang, libclang-rt-*-dev); without it the case
# is a SKIP that says why.  The deterministic run of the same code under
# the ordinary compiler is testsuite/fuzz/fuzz_elf.
. "$top_srcdir/testsuite/lib/tap.sh"

NAME=fuzz-elf
. "$top_srcdir/testsuite/lib/libfuzzer.sh"

# The module and symbol layer (runtime/modules/), whatever its files are
# called, but sync_pid.c, which reads /proc through the model: a list of
# names missed module_index.c when it was added, and the build failure
# then passed for "no libFuzzer here".  libFuzzer works (libfuzzer.sh
# built its probe), so a target that does not build is a failure.
src=$top_srcdir
d=$src/runtime/modules
files=$(ls "$d"/elf_*.c "$d"/module*.c "$d"/sym_*.c)
# shellcheck disable=SC2086
if "$CLANG" -DMAPTAP_LIBFUZZER -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -g -O1 -D_GNU_SOURCE \
	-I"$src/include" -I"$top_builddir" -I"$src" \
	-o "$work/fuzz_elf" "$src/testsuite/fuzz/fuzz_elf.c" $files \
	-lelf -ldw -ldl >"$work/build.log" 2>&1; then
	ok "build the ELF fuzz target with clang and libFuzzer"
else
	sed 's/^/# /' "$work/build.log" | head -40
	fail "build the ELF fuzz target with clang and libFuzzer (log above)"
	tap_done; exit $?
fi

# Seeds: small real ELF files (this machine's /bin/true and the vdso-sized
# ld.so are enough to start from); libFuzzer adds what it finds.
mkdir "$work/corpus"
for f in /bin/true /usr/lib/x86_64-linux-gnu/libdl.so.2; do
	[ -r "$f" ] && cp "$f" "$work/corpus/"
done
if (cd "$work" && ./fuzz_elf -max_total_time=20 -max_len=65536 \
	-print_final_stats=1 corpus >fuzz.log 2>&1); then
	ok "20 s of libFuzzer on the ELF layer found no crash ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/fuzz.log" | grep -o '[0-9]*$') runs)"
else
	tail -n 40 "$work/fuzz.log" | sed 's/^/# /'
	mkdir -p "$top_builddir/testsuite/fuzz"
	for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
		[ -e "$f" ] || continue
		cp "$f" "$top_builddir/testsuite/fuzz/" &&
		diag "kept $top_builddir/testsuite/fuzz/${f##*/}"
	done
	fail "libFuzzer found a crash in the ELF layer (reproducer above)"
fi
tap_done
