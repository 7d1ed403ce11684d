# SPDX-License-Identifier: GPL-2.0-or-later
# libfuzzer.sh -- shared start of the libFuzzer shell tests: source it
# after tap.sh with NAME set.  It sets CLANG and a work directory $work
# (removed at exit), and ends the test with a SKIP that says why when
# clang cannot build a libFuzzer target here (Debian: clang,
# libclang-rt-*-dev).  Past it, a target that does not build is a
# failure, not a skip.

CLANG=${CLANG:-clang}
work=$(mktemp -d "${TMPDIR:-/tmp}/maptap-$NAME.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

if ! command -v "$CLANG" >/dev/null 2>&1; then
	skip "no clang: libFuzzer needs it"
	tap_done; exit $?
fi
cat > "$work/probe.c" <<'PROBE'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{ (void)d; (void)n; return 0; }
PROBE
if ! "$CLANG" -fsanitize=fuzzer,address -o "$work/probe" "$work/probe.c" \
	>"$work/probe.log" 2>&1; then
	skip "clang -fsanitize=fuzzer,address does not link here: $(head -n 1 "$work/probe.log")"
	tap_done; exit $?
fi
