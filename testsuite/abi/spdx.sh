#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# spdx.sh -- every file git tracks that needs an SPDX-License-Identifier
# line has one, with the licence of its place (LGPL-2.1-or-later for
# libmaptap: include/, runtime/, man/maptap.3; GPL-2.0-or-later for the
# rest); scripts/spdx-add.sh says which kinds of file need it and why the
# others are exempt, and adds what is missing.  A tarball has no git to
# say which files are the project's: the check is made in a checkout.
. "$top_srcdir/testsuite/lib/tap.sh"

# The source tree must be the checkout's top, not a tarball unpacked
# inside one (make distcheck's).
gittop=$(git -C "$top_srcdir" rev-parse --show-toplevel 2>/dev/null || true)
if [ -z "$gittop" ] || [ "$gittop" != "$(cd "$top_srcdir" && pwd -P)" ]; then
	skip "SPDX lines: not a git checkout"
elif err=$(cd "$top_srcdir" && sh scripts/spdx-add.sh --check 2>&1); then
	ok "every tracked file that needs one has its SPDX-License-Identifier"
else
	diag "$err"
	diag "run scripts/spdx-add.sh to add the missing lines"
	fail "every tracked file that needs one has its SPDX-License-Identifier"
fi

tap_done
