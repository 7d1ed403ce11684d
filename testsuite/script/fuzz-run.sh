#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz-run.sh -- the bounded stand-alone fuzz run over the case scripts.
. "$top_srcdir/testsuite/lib/tap.sh"
set -- "$top_srcdir"/testsuite/script/cases/*.stp
for f in "$top_srcdir"/tapsets/*.stp "$top_srcdir"/testsuite/script/lib/*; do
	[ -f "$f" ] && set -- "$@" "$f"
done
exec "$top_builddir/testsuite/script/fuzz-parse" "$@"
