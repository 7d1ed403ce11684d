#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_unwind.sh -- user backtraces of targets with known call chains,
# built now with and without frame pointers and CFI, checked frame by
# frame through test_unwind_run (which ptraces each target to the
# SIGSTOP it raises and prints what maptap_unwind() found).
. "$top_srcdir/testsuite/lib/tap.sh"

CC=${CC:-cc}
T=$top_srcdir/testsuite/targets
RUN=$top_builddir/testsuite/unit/test_unwind_run
D=$(mktemp -d "${TMPDIR:-/tmp}/maptap-unwind.XXXXXX")
trap 'rm -rf "$D"' EXIT

build() {	# build OUT CFLAGS... SRC...: compile a target (no sanitizers)
	out=$1; shift
	$CC -o "$D/$out" "$@" 2>"$D/$out.cc.log" ||
		{ diag "$(cat "$D/$out.cc.log")"; return 1; }
}

# run OUT ARGS...: the probe on a target, its output in OUT; its exit
# status is a case (sanitizer builds report leaks and errors there)
run() {
	out=$1; shift
	"$RUN" "$@" >"$out" 2>"$out.err"
	st=$?
	check "$(basename "$out" .out): probe exits 0 (got $st)" \
		test "$st" -eq 0
	[ "$st" -eq 0 ] || diag "$(head -20 "$out.err")"
}

# names FILE: the function of each frame, one per line
names() { awk '$1 == "frame" { sub(/\+0x.*/, "", $5); print $5 }' "$1"; }
# hows FILE FUNC: how each frame named FUNC was found
hows() { awk -v f="$2" '$1 == "frame" { n = $5; sub(/\+0x.*/, "", n);
	if (n == f) print $3 }' "$1"; }
end_of() { awk '$1 == "end" { print $2 }' "$1"; }
# after FILE FUNC: the function names from the first FUNC on, joined by
# spaces
after() { names "$1" | awk -v f="$2" '$0 == f { on = 1 } on' |
	tr '\n' ' ' | sed 's/ $//'; }
# before_in FILE FUNC MODULE: every frame before the first FUNC is in
# MODULE (the C library's raise() and pthread_kill())
before_in() { awk -v f="$2" -v m="$3" '$1 == "frame" { n = $5;
	sub(/\+0x.*/, "", n); if (n == f) exit bad; if ($6 != m) bad = 1 }
	END { exit bad }' "$1"; }

# startup FILE EXE: the frames after main are the C library's start code
# (whatever its version calls it) and then EXE's _start
startup() { awk -v exe="$2" '$1 == "frame" { n = $5; sub(/\+0x.*/, "", n);
	if (on) { last = n; lastmod = $6
		if (n != "_start" && $6 != "libc.so.6") bad = 1 }
	if (n == "main") on = 1 }
	END { exit bad || last != "_start" || lastmod != exe }' "$1"; }

# check_chain NAME FILE EXPECTED END: frames from "b" on start with
# EXPECTED, the C library's frames come first, and the walk ended with END
check_chain() {
	cname=$1 file=$2 want=$3 end=$4
	got=$(after "$file" b | cut -d' ' -f1-3)
	if [ "$got" = "$want" ]; then
		ok "$cname: frames $want"
	else
		fail "$cname: frames '$got', want '$want'"
		diag "$(cat "$file")"
	fi
	check "$cname: frames before b are in libc.so.6" \
		before_in "$file" b libc.so.6
	check "$cname: ends '$end' (got '$(end_of "$file")')" \
		test "$(end_of "$file")" = "$end"
}

# 1. CFI with and without frame pointers.
for v in "O0:-O0 -fno-omit-frame-pointer" "O2:-O2 -fomit-frame-pointer"; do
	tag=${v%%:*} flags=${v#*:}
	if build "chain_$tag" $flags "$T/uw_chain.c"; then
		run "$D/chain_$tag.out" "$D/chain_$tag"
		check_chain "chain $flags" "$D/chain_$tag.out" "b a main" \
			complete
		check "chain $flags: then libc's start code and _start" \
			startup "$D/chain_$tag.out" "chain_$tag"
		check "chain $flags: every frame after 0 found by CFI" test \
			"$(awk '$1 == "frame" && $2 > 0 && $3 != "cfi"' \
			"$D/chain_$tag.out")" = ""
	else
		fail "build chain $flags"
	fi
done

# 2. No CFI in the target's own code, but frame pointers.
NOCFI="-fno-asynchronous-unwind-tables -fno-unwind-tables"
if build chain_fp -O0 $NOCFI -fno-omit-frame-pointer "$T/uw_chain.c"; then
	run "$D/chain_fp.out" "$D/chain_fp"
	check_chain "no CFI, frame pointers" "$D/chain_fp.out" "b a main" \
		complete
	check "no CFI: then libc's start code and _start" \
		startup "$D/chain_fp.out" chain_fp
	check "no CFI: a and main found by frame pointer" test \
		"$(hows "$D/chain_fp.out" a) $(hows "$D/chain_fp.out" main)" = \
		"fp fp"
else
	fail "build chain_fp"
fi

# 3. Neither CFI nor frame pointers: the walk must stop with a marker
# right after the first frame it cannot unwind, inventing nothing.
if build chain_none -O2 $NOCFI -fomit-frame-pointer "$T/uw_chain.c"; then
	run "$D/chain_none.out" "$D/chain_none"
	check_chain "no CFI, no frame pointers" "$D/chain_none.out" b noinfo
else
	fail "build chain_none"
fi

# 3b. CFI only in .debug_frame (-g without unwind tables), no frame
# pointers: main -> a -> b -> c, each with a stack frame of its own; the
# walk must name every frame in order, found by .debug_frame.
DFLAGS="-g -O2 -fomit-frame-pointer $NOCFI -Wl,--build-id"
# dframe FILE: the functions from c on, up to main
dframe() { after "$1" c | awk '{ for (i = 1; i <= NF; i++) { printf "%s%s",
	(i > 1 ? " " : ""), $i; if ($i == "main") break } }'; }
if build dframe $DFLAGS "$T/uw_dframe.c"; then
	run "$D/dframe.out" "$D/dframe"
	check "dframe: frames c b a main" test "$(dframe "$D/dframe.out")" = \
		"c b a main"
	check "dframe: b, a and main found by .debug_frame" test \
		"$(hows "$D/dframe.out" b) $(hows "$D/dframe.out" a)\
 $(hows "$D/dframe.out" main)" = "dbg dbg dbg"
	check "dframe: then libc's start code and _start" \
		startup "$D/dframe.out" dframe
	check "dframe: complete" test "$(end_of "$D/dframe.out")" = complete

	# The same with .debug_frame only in a separate debug file found by
	# build-id under -D, the binary stripped.
	cp "$D/dframe" "$D/dframe_s"
	bid=$(readelf -n "$D/dframe_s" | awk '/Build ID/ { print $3 }')
	dd=$D/dfdebug/.build-id/$(echo "$bid" | cut -c1-2)
	mkdir -p "$dd"
	objcopy --only-keep-debug "$D/dframe_s" \
		"$dd/$(echo "$bid" | cut -c3-).debug"
	objcopy --strip-all "$D/dframe_s"
	check "dframe stripped: no .debug_frame left in the binary" test \
		"$(readelf -S "$D/dframe_s" | grep -c debug_frame)" -eq 0
	run "$D/dframe_s.out" -D "$D/dfdebug" "$D/dframe_s"
	check "dframe stripped: frames c b a main" test \
		"$(dframe "$D/dframe_s.out")" = "c b a main"
	check "dframe stripped: b, a and main found by .debug_frame" test \
		"$(hows "$D/dframe_s.out" b) $(hows "$D/dframe_s.out" a)\
 $(hows "$D/dframe_s.out" main)" = "dbg dbg dbg"
	check "dframe stripped: complete" test \
		"$(end_of "$D/dframe_s.out")" = complete
	# without the debug file there is no CFI for c: a marker after it
	run "$D/dframe_n.out" -D "$D/nowhere" "$D/dframe_s"
	check "dframe stripped, no debuginfo: ends noinfo" test \
		"$(end_of "$D/dframe_n.out")" = noinfo
else
	fail "build dframe"
fi

# 4. The same chain in a second thread.
if build thread -O1 -pthread "$T/uw_thread.c"; then
	run "$D/thread.out" "$D/thread"
	check "thread: the stop is not the main thread's" awk \
		'$1 == "stop" { exit !($2 != $3) }' "$D/thread.out"
	check "thread: b a u_thread_fn start_thread" test \
		"$(after "$D/thread.out" b | cut -d' ' -f1-4)" = \
		"b a u_thread_fn start_thread"
	check "thread: complete" test "$(end_of "$D/thread.out")" = complete
	# a thread that exited before the stop does not end the run
	run "$D/thread_x.out" "$D/thread" after-exit
	check "thread after another's exit: b a u_thread_fn" test \
		"$(after "$D/thread_x.out" b | cut -d' ' -f1-3)" = \
		"b a u_thread_fn"
else
	fail "build thread"
fi

# 4b. A stop inside a signal handler: the walk crosses the signal frame
# (glibc's __restore_rt) into the interrupted raise(), then a and main;
# also with the handler on an alternate signal stack.
if build signal -O1 "$T/uw_signal.c"; then
	for mode in same alt; do
		run "$D/signal_$mode.out" "$D/signal" $mode
		check "signal ($mode stack): h_inner handler first" test \
			"$(after "$D/signal_$mode.out" h_inner | cut -d' ' -f1-2)" \
			= "h_inner handler"
		check "signal ($mode stack): the signal frame is libc's" awk \
			'$5 ~ /^handler\+/ { getline; exit !($6 == "libc.so.6") }' \
			"$D/signal_$mode.out"
		check "signal ($mode stack): then a and main" test \
			"$(after "$D/signal_$mode.out" a | cut -d' ' -f1-2)" = \
			"a main"
		check "signal ($mode stack): complete" test \
			"$(end_of "$D/signal_$mode.out")" = complete
	done
else
	fail "build signal"
fi

# 5. 200 frames of a function with a 190-character name.
LONG=$(sed -n '/^#define LONG_NAME/,/^$/p' "$T/uw_deep.c" | sed '1d' |
	tr -d ' \t\\\n')
if build deep -O1 -fno-omit-frame-pointer "$T/uw_deep.c"; then
	run "$D/deep.out" -n 300 "$D/deep"
	check "deep: 200 frames of the long name in a row, then main" test \
		"$(names "$D/deep.out" | uniq -c | awk -v l="$LONG" \
		'$2 == l { print $1; getline; print $2 }' | tr '\n' ' ')" = \
		"200 main "
	check "deep: name of ${#LONG} characters kept whole" test \
		"$(hows "$D/deep.out" "$LONG" | wc -l)" -eq 200
	check "deep: complete with 300 frames allowed" test \
		"$(end_of "$D/deep.out")" = complete
	run "$D/deep20.out" "$D/deep"
	check "deep: MAXBACKTRACE 20 by default" test \
		"$(names "$D/deep20.out" | wc -l)" -eq 20
	check "deep: truncated marker at the limit" test \
		"$(end_of "$D/deep20.out")" = truncated
else
	fail "build deep"
fi

# 6. A stripped library: its static function is named by the separate
# debuginfo found by build-id under -D; then the same library deleted
# while mapped, and copied into a memfd.
L=$D/lib
mkdir -p "$L"
if build lib/libu_lib.so -O1 -g -fPIC -shared -Wl,--build-id \
	"$T/uw_lib.c" &&
   build libmain -O1 "$T/uw_libmain.c" -L"$L" -lu_lib -Wl,-rpath,"$L"; then
	cp "$L/libu_lib.so" "$D/libu_lib.full.so"
	bid=$(readelf -n "$L/libu_lib.so" | awk '/Build ID/ { print $3 }')
	mkdir -p "$D/debug/.build-id/$(echo "$bid" | cut -c1-2)"
	objcopy --only-keep-debug "$L/libu_lib.so" \
		"$D/debug/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" |
		cut -c3-).debug"
	objcopy --strip-all "$L/libu_lib.so"
	check "stripped library has no u_lib_inner symbol" test \
		"$(nm "$L/libu_lib.so" 2>/dev/null | grep -c u_lib_inner)" -eq 0
	run "$D/lib.out" -D "$D/debug" "$D/libmain"
	check "stripped library: u_lib_inner u_lib_entry main" test \
		"$(after "$D/lib.out" u_lib_inner | cut -d' ' -f1-3)" = \
		"u_lib_inner u_lib_entry main"
	check "stripped library: complete" test \
		"$(end_of "$D/lib.out")" = complete

	cp "$D/libu_lib.full.so" "$L/libu_lib.so"
	run "$D/del.out" "$D/libmain" unlink "$L/libu_lib.so"
	check "deleted library was deleted" test ! -e "$L/libu_lib.so"
	check "deleted library: u_lib_inner u_lib_entry main" test \
		"$(after "$D/del.out" u_lib_inner | cut -d' ' -f1-3)" = \
		"u_lib_inner u_lib_entry main"
	check "deleted library: complete" test "$(end_of "$D/del.out")" = \
		complete

	cp "$D/libu_lib.full.so" "$L/libu_lib.so"
	run "$D/memfd.out" "$D/libmain" memfd "$D/libu_lib.full.so"
	check "memfd code: u_lib_inner u_lib_entry main" test \
		"$(after "$D/memfd.out" u_lib_inner | cut -d' ' -f1-3)" = \
		"u_lib_inner u_lib_entry main"
	check "memfd code: u_lib_inner's module is the memfd" test \
		"$(awk '$5 ~ /^u_lib_inner\+/ { print $6 }' "$D/memfd.out")" = \
		"memfd:u_lib"
	check "memfd code: complete" test "$(end_of "$D/memfd.out")" = \
		complete
else
	fail "build library targets"
fi

tap_done
