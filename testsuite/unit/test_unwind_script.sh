#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_unwind_script.sh -- the backtrace script functions (builtins_stack.c)
# at a probe on a target's mmap: main -> a -> b -> mmap (uw_mmap.c, built
# now), in stap's formats, with MAXBACKTRACE and MAXSTRINGLEN.
. "$top_srcdir/testsuite/lib/tap.sh"

CC=${CC:-cc}
MAPTAP=$top_builddir/maptap
D=$(mktemp -d "${TMPDIR:-/tmp}/maptap-unwind-script.XXXXXX")
trap 'rm -rf "$D"' EXIT

if ! $CC -O1 -o "$D/umm" "$top_srcdir/testsuite/targets/uw_mmap.c"; then
	fail "build u_mmap"
	tap_done
	exit
fi

# Marks each function's output so one run answers every case.
cat >"$D/s.stp" <<'EOF'
probe begin {
	print_ubacktrace()
	printf("begin-hex [%s]\n", ubacktrace())
}
probe maptap.syscall("mmap") {
	if ($arg2 == 73728) {
		printf("== print\n"); print_ubacktrace()
		printf("== sprint\n%s", sprint_ubacktrace())
		printf("== hex\n%s\n", ubacktrace())
		printf("== callers\n%s\n", ucallers(2))
		printf("== ustack\n%x %x\n", ustack(1), ustack(1000))
		printf("== brief\n"); print_ubacktrace_brief()
		printf("== usyms\n"); print_usyms(ubacktrace())
		printf("== sprint_ustack\n%s", sprint_ustack(ubacktrace()))
		printf("== end\n")
	}
}
EOF
"$MAPTAP" -o "$D/out" -c "$D/umm" "$D/s.stp" 2>"$D/err"
st=$?
check "maptap runs the script (status $st)" test "$st" -eq 0
[ "$st" -eq 0 ] || diag "$(cat "$D/err")"

part() {	# part NAME: the lines of one marked section
	awk -v p="== $1" '$0 == p { on = 1; next } /^== / { on = 0 } on' \
		"$D/out"
}

check "no user backtrace at begin" grep -qx '<no user backtrace at begin>' \
	"$D/out"
check "ubacktrace() is empty at begin" grep -qx 'begin-hex \[\]' "$D/out"

# print_ubacktrace: " 0xADDR : SYM+0xOFF/0xSIZE [PATH]"
part print >"$D/print"
FULL='^ 0x[0-9a-f]+ : [^ ]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[/[^]]+\]$'
check "print_ubacktrace: every line in stap's full format" test \
	"$(grep -cvE "$FULL" "$D/print")" -eq 0
check "print_ubacktrace: b a main after the libc frame, with the path" \
	test "$(sed -n '2,4s/^ 0x[0-9a-f]* : \([a-z]*\)+.*\[\(.*\)\]$/\1 \2/p' \
	"$D/print" | tr '\n' ' ')" = "b $D/umm a $D/umm main $D/umm "
check "print_ubacktrace: frame 0 is in libc.so.6" \
	grep -q '^ 0x[0-9a-f]* : [^ ]* \[.*/libc\.so\.6\]$' "$D/print"

# sprint_ubacktrace: "SYM+0xOFF [BASENAME]"
part sprint >"$D/sprint"
check "sprint_ubacktrace: b a main with module basenames" test \
	"$(sed -n '2,4p' "$D/sprint" | sed 's/+0x[0-9a-f]*//' |
	tr '\n' ' ')" = "b [umm] a [umm] main [umm] "
check "sprint_ubacktrace: as many lines as print_ubacktrace" test \
	"$(wc -l <"$D/sprint")" -eq "$(wc -l <"$D/print")"

# ubacktrace: the same pcs in hex, single spaces
hex=$(part hex)
check "ubacktrace: hex separated by single spaces" \
	sh -c 'printf "%s\n" "$1" | grep -qxE "0x[0-9a-f]+( 0x[0-9a-f]+)*"' \
	sh "$hex"
check "ubacktrace: the pcs print_ubacktrace printed" test "$hex" = \
	"$(awk '{ print $1 }' "$D/print" | tr '\n' ' ' | sed 's/ $//')"
check "ucallers(2): frames 1 and 2" test "$(part callers)" = \
	"$(echo "$hex" | cut -d' ' -f2-3)"
check "ustack(1) is frame 1, ustack(1000) is 0" test "$(part ustack)" = \
	"$(echo "$hex" | cut -d' ' -f2 | sed 's/^0x//') 0"
check "print_ubacktrace_brief: b+0x.. a+0x.. main+0x.." test \
	"$(part brief | sed -n '2,4p' | sed 's/+0x[0-9a-f]*$//' |
	tr '\n' ' ')" = "b a main "
check "print_usyms(ubacktrace()) is print_ubacktrace" test \
	"$(part usyms)" = "$(cat "$D/print")"
check "sprint_ustack(ubacktrace()) is sprint_ubacktrace" test \
	"$(part sprint_ustack)" = "$(cat "$D/sprint")"

# Limits: MAXBACKTRACE frames; MAXSTRINGLEN cuts between frames.
cat >"$D/lim.stp" <<'EOF'
probe maptap.syscall("mmap") {
	if ($arg2 == 73728) {
		printf("[%s]\n", ubacktrace())
		printf("%s", sprint_ubacktrace())
		printf("==\n")
	}
}
EOF
"$MAPTAP" -o "$D/lim3" -D MAXBACKTRACE=3 -c "$D/umm" "$D/lim.stp" \
	2>"$D/err3"
check "MAXBACKTRACE=3: three addresses" test \
	"$(head -1 "$D/lim3" | tr -d '[]' | wc -w)" -eq 3
check "MAXBACKTRACE=3: three lines" test \
	"$(sed -n '2,/^==$/p' "$D/lim3" | grep -vc '^==$')" -eq 3
"$MAPTAP" -o "$D/lim40" -D MAXSTRINGLEN=40 -c "$D/umm" "$D/lim.stp" \
	2>"$D/err40"
h=$(head -1 "$D/lim40" | tr -d '[]')
check "MAXSTRINGLEN=40: ubacktrace has whole addresses only" \
	sh -c 'printf "%s\n" "$1" | grep -qxE "0x[0-9a-f]+( 0x[0-9a-f]+)*" &&
	[ ${#1} -le 39 ]' sh "$h"
s40=$(sed -n '2,/^==$/p' "$D/lim40" | grep -v '^==$')
check "MAXSTRINGLEN=40: sprint_ubacktrace keeps whole lines" test \
	"$s40" = "$(sed -n "1,$(printf '%s\n' "$s40" | wc -l)p" "$D/sprint")"
check "MAXSTRINGLEN=40: within 39 bytes, at least one frame" test \
	"$(printf '%s\n' "$s40" | wc -c)" -le 39 -a -n "$s40"

tap_done
