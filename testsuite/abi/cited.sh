#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cited.sh -- every file of this tree that README or a man page cites
# exists; run by make distcheck on the unpacked tarball, it shows the
# tarball holds them (the headers' citations are headers.sh's).  Only
# paths with an extension or a trailing / are taken: the others README
# and the pages name are programs the build makes.
. "$top_srcdir/testsuite/lib/tap.sh"

for doc in README man/maptap.1 man/maptap.3 man/maptap-language.7 \
	man/maptapprobes.7 "$top_srcdir"/man/error-*.7; do
	doc=${doc#"$top_srcdir/"}
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

# The messages cite stap's error pages by name ("[man error::pass2]"); each
# cited page is shipped as man/error-NAME.7 (installed as error::NAME).
missing=
for ref in $(cd "$top_srcdir" && grep -rhoE '\[man [a-z]+::[a-z0-9_-]+\]' \
		runtime translator tapsets | sort -u |
		sed -e 's/^\[man //' -e 's/\]$//'); do
	[ -f "$top_srcdir/man/${ref%%::*}-${ref#*::}.7" ] ||
		missing="$missing $ref"
done
if [ -n "$missing" ]; then
	diag "cited by a message, no page:$missing"
	fail "every [man PAGE] a message cites is shipped"
else
	ok "every [man PAGE] a message cites is shipped"
fi

tap_done
