#!/bin/sh
# fuzz-run.sh -- the bounded stand-alone fuzz run over the case scripts.
. "$top_srcdir/testsuite/lib/tap.sh"
exec "$top_builddir/testsuite/script/fuzz-parse" \
	"$top_srcdir"/testsuite/script/cases/*.stp \
	"$top_srcdir"/tapsets/*.stp
