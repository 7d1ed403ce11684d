#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz-libfuzzer.sh -- build the parser fuzz target with clang's libFuzzer
# and run it for a bounded time (FUZZ_SECONDS, default 20) on the case
# scripts as seed corpus.  SKIPs where clang or libFuzzer is missing.
. "$top_srcdir/testsuite/lib/tap.sh"

secs=${FUZZ_SECONDS:-20}
clang=${CLANG:-clang}
tmp=${TMPDIR:-/tmp}/maptap-fuzz.$$
trap '[ -n "$KEEP" ] || rm -rf "$tmp"' EXIT
mkdir -p "$tmp/corpus"

if ! command -v "$clang" >/dev/null 2>&1; then
	skip "no clang"
	tap_done
	exit
fi
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' \
	>"$tmp/probe.c"
if ! "$clang" -fsanitize=fuzzer "$tmp/probe.c" -o "$tmp/probe" 2>/dev/null; then
	skip "clang has no libFuzzer (install libclang-rt-14-dev)"
	tap_done
	exit
fi

src=$top_srcdir
# Every translator source but the program's main(): a list of names
# would miss the files added later (builtins_proc.c did).
files=
for f in "$src"/translator/*/*.c; do
	case $f in */main.c) ;; *) files="$files $f" ;; esac
done
# The runtime too (target.c drives a session), built by clang like the
# rest: a sanitizer build's libmaptap has gcc's ASan runtime, which
# cannot be mixed with clang's.
# (Not perf mode's BPF programs, *.bpf.c, built for the BPF target;
# with them the bytes they compile to, generated in the build tree.)
for f in "$src"/runtime/*/*.c; do
	case $f in *.bpf.c|*/perf_bpf_obj.c) ;; *) files="$files $f" ;; esac
done
libbpf=
if grep -q '^#define HAVE_BPF 1' "$top_builddir/config.h"; then
	files="$files $top_builddir/runtime/tracer/perf_bpf_obj.c"
	libbpf=-lbpf
fi
# The target reads no tapsets (fuzz_parse.c), but the translator names
# the installed directory, which the Makefile defines.
# shellcheck disable=SC2086
if "$clang" -g -O1 -fsanitize=fuzzer,address,undefined \
	-DMAPTAP_TAPSETDIR='"/nonexistent/maptap/tapset"' \
	-I"$top_builddir" -I"$src/include" -I"$src/translator/driver" \
	-I"$src/translator/front" -I"$src/translator/interp" \
	$files "$src/testsuite/script/fuzz_parse.c" -lm \
	-ldw -lelf -lunwind-ptrace -lunwind-generic -lunwind -lcapstone \
	$libbpf -o "$tmp/fuzz" 2>"$tmp/build.log"; then
	ok "libFuzzer target builds"
else
	sed 's/^/# /' "$tmp/build.log" | head -20
	fail "libFuzzer target builds"
	tap_done
	exit
fi
cp "$src"/testsuite/script/cases/*.stp "$tmp/corpus/"
# Real tapsets as seeds too, when SystemTap's are installed: they hold
# the constructs (macros, %( %), target expressions) scripts rarely do.
cp /usr/share/systemtap/tapset/*.stp /usr/share/systemtap/tapset/*.stpm \
	"$tmp/corpus/" 2>/dev/null || true
if "$tmp/fuzz" -max_total_time="$secs" -max_len=4096 -timeout=10 \
	-rss_limit_mb=1024 "$tmp/corpus" >"$tmp/run.log" 2>&1; then
	ok "libFuzzer ran ${secs}s without a crash"
else
	tail -40 "$tmp/run.log" | sed 's/^/# /'
	fail "libFuzzer ran ${secs}s without a crash"
fi
tap_done
