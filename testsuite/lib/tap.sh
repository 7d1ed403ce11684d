# SPDX-License-Identifier: GPL-2.0-or-later
# tap.sh -- TAP output for maptap's shell system tests.  Source it.
# Each test script calls ok/fail/skip per case and tap_done at the end.

# The build tree's maptap knows only the installed tapsets: name the
# source tree's (make check does; this is for a test run by hand).
: "${MAPTAP_TAPSET:=$top_srcdir/tapsets}"
export MAPTAP_TAPSET
tap_n=0
tap_failed=0

ok() {		# ok NAME: a case that passed
	tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"
}
fail() {	# fail NAME: a case that failed
	tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $*"
}
skip() {	# skip REASON: a case that cannot run here
	tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $*"
}
diag() {	# diag TEXT: a diagnostic line
	printf '%s\n' "$*" | sed 's/^/# /'
}
check() {	# check NAME CMD...: ok if CMD succeeds
	name=$1; shift
	if "$@"; then ok "$name"; else fail "$name"; fi
}
tap_done() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}
