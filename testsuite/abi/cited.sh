#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cited.sh -- every file of this tree that README or a man page cites
# exists; run by make distcheck on the unpacked tarball, it shows the
# tarball holds them (the headers' citations are headers.sh's).  Only
# paths with an extension or a trailing / are taken: the others README
# and the pages name are programs the build makes.
. "$top_srcdir/testsuite/lib/tap.sh"

for doc in README man/maptap.1 man/maptap.3 man/maptap-language.7 \
	man/maptapprobes.7; do
	if [ ! -f "$top_srcdir/$doc" ]; then
		fail "$doc is there"
		continue
	fi
	missing=
	for f in $(grep -ohE '\<(docs|bench|examples|man|scripts|tapsets|testsuite|translator|runtime|include)/[A-Za-z0-9_./-]*[A-Za-z0-9_/]' \
			"$top_srcdir/$doc" | grep -E '(\.[A-Za-z0-9]+|/)$' | sort -u); do
		[ -e "$top_srcdir/$f" ] || missing="$missing $f"
	done
	if [ -n "$missing" ]; then
		diag "cited, missing:$missing"
		fail "every file $doc cites is in the tree"
	else
		ok "every file $doc cites is in the tree"
	fi
done

tap_done
