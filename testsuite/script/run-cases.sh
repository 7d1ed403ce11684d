#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run-cases.sh -- run every cases/NAME.stp through maptap and compare.
#
# A case is NAME.stp plus the expected results:
#   NAME.out   exact stdout (required)
#   NAME.err   exact stderr (when absent, stderr must be empty)
#   NAME.rc    expected exit status (default 0)
#   NAME.opts  extra maptap arguments, one line, word-split by the shell
#              (options before the script; script arguments after "--")
# Cases run from the cases/ directory so messages name "NAME.stp".
. "$top_srcdir/testsuite/lib/tap.sh"

maptap=${MAPTAP:-$top_builddir/maptap}
cases=$top_srcdir/testsuite/script/cases
tmp=${TMPDIR:-/tmp}/maptap-cases.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$maptap" ]; then
	skip "maptap not built"
	tap_done
	exit
fi

cd "$cases" || exit 1
for stp in *.stp; do
	name=${stp%.stp}
	opts= args=
	if [ -f "$name.opts" ]; then
		line=$(cat "$name.opts")
		case $line in
		"-- "*) args=${line#-- } ;;
		*" -- "*) opts=${line%% -- *} args=${line#* -- } ;;
		*) opts=$line ;;
		esac
	fi
	want_rc=0
	[ -f "$name.rc" ] && want_rc=$(cat "$name.rc")
	# shellcheck disable=SC2086
	"$maptap" $opts "$stp" $args \
		>"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	good=yes
	if ! cmp -s "$tmp/out" "$name.out"; then
		good=no
		diag "$name: stdout differs:"
		diff -u "$name.out" "$tmp/out" | head -40 | sed 's/^/# /'
	fi
	if [ -f "$name.err" ]; then
		want_err=$name.err
	else
		want_err=/dev/null
	fi
	if ! cmp -s "$tmp/err" "$want_err"; then
		good=no
		diag "$name: stderr differs:"
		diff -u "$want_err" "$tmp/err" | head -40 | sed 's/^/# /'
	fi
	if [ "$rc" != "$want_rc" ]; then
		good=no
		diag "$name: exit status $rc, want $want_rc"
	fi
	if [ $good = yes ]; then ok "$name"; else fail "$name"; fi
done
tap_done
