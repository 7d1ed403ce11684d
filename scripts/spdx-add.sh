#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# spdx-add.sh -- give every file git tracks that needs one an
# SPDX-License-Identifier line, or with --check list those that lack it
# (or carry the wrong one) and exit 1.  Idempotent: a file that has the
# line in its first five lines is left alone, so it can be re-run after
# a merge.  testsuite/abi/spdx.sh runs --check.
#
#   scripts/spdx-add.sh [--check]      (from anywhere in the git tree)
#
# Licence by place: libmaptap -- include/, runtime/ and its manual page
# man/maptap.3, whose example is meant to be copied into programs that
# link the library -- is LGPL-2.1-or-later (COPYING.LIB); everything else
# GPL-2.0-or-later (COPYING).
#
# Files that need the line, and the comment it goes in:
#   *.c *.h *.cc *.js                   /* ... */ on the first line
#   *.sh *.py, any file starting #!    # ...  after the #! line
#   *.stp *.stpm (tapsets, examples)    // ... after a #! line
#   *.am                                ## ... (not copied to Makefile.in)
#   configure.ac                        dnl ...
#   *.in (maptap.pc.in)                 # ...
#   man pages (man/*.[1-9])            .\" ...
# Exempt, with the reason:
#   *.md, README, NEWS, COPYING*: prose (the licence texts themselves);
#     the files at the top say the licence of the tree's documentation.
#   testsuite/script/cases/: scripts paired with the output they must
#     give, which names their line numbers; a line on top would shift
#     them all.  testsuite/fixtures/, testsuite/fuzz/corpus/: data.
#   testsuite/abi/libmaptap.sym: a list of names, compared as a whole.
#   .gitignore, */.keep: no content.
# Any other file is an error, so that a new kind of file gets a decision.
set -eu

check=0
[ "${1:-}" = --check ] && check=1
top=$(git rev-parse --show-toplevel)
cd "$top"

GPL=GPL-2.0-or-later
LGPL=LGPL-2.1-or-later

licence_of() {
	case $1 in
	include/*|runtime/*|man/maptap.3) echo "$LGPL" ;;
	*) echo "$GPL" ;;
	esac
}

# The comment style of FILE: c, hash, dhash, slash, dnl, roff; "exempt";
# or "unknown".
kind_of() {
	case $1 in
	testsuite/script/cases/*|testsuite/fixtures/*|testsuite/fuzz/corpus/*)
		echo exempt; return ;;
	*.md|README|*/README|NEWS|COPYING|COPYING.LIB|.gitignore|*/.keep|\
	testsuite/abi/libmaptap.sym)
		echo exempt; return ;;
	*.c|*.h|*.cc|*.js) echo c; return ;;
	*.sh|*.py|*.in) echo hash; return ;;
	*.stp|*.stpm) echo slash; return ;;
	*.am) echo dhash; return ;;
	configure.ac) echo dnl; return ;;
	man/*.[1-9]) echo roff; return ;;
	esac
	if head -c 2 "$1" | grep -q '^#!'; then
		echo hash
	else
		echo unknown
	fi
}

line_for() {	# KIND LICENCE
	id="SPDX-License-Identifier: $2"
	case $1 in
	c) printf '/* %s */\n' "$id" ;;
	hash) printf '# %s\n' "$id" ;;
	dhash) printf '## %s\n' "$id" ;;
	slash) printf '// %s\n' "$id" ;;
	dnl) printf 'dnl %s\n' "$id" ;;
	roff) printf '.\\" %s\n' "$id" ;;
	esac
}

bad=0
for f in $(git ls-files); do
	[ -f "$f" ] || continue		# deleted in the work tree
	kind=$(kind_of "$f")
	[ "$kind" = exempt ] && continue
	if [ "$kind" = unknown ]; then
		echo "$f: no rule for this kind of file (scripts/spdx-add.sh)" >&2
		bad=1
		continue
	fi
	lic=$(licence_of "$f")
	have=$(head -n 5 "$f" | sed -n 's/.*SPDX-License-Identifier: \([^ *]*\).*/\1/p' | head -n 1)
	if [ -n "$have" ]; then
		if [ "$have" != "$lic" ]; then
			echo "$f: SPDX-License-Identifier $have, should be $lic" >&2
			bad=1
		fi
		continue
	fi
	if [ $check = 1 ]; then
		echo "$f: no SPDX-License-Identifier line" >&2
		bad=1
		continue
	fi
	# After a #! line, else first.  (ENVIRON: awk -v would take the
	# backslash of roff's comment as an escape.)
	SPDX_LINE=$(line_for "$kind" "$lic") awk '
		BEGIN { line = ENVIRON["SPDX_LINE"] }
		NR == 1 && /^#!/ { print; print line; done = 1; next }
		NR == 1 { print line; done = 1 }
		{ print }
		END { if (!done) print line }
	' "$f" >"$f.spdx-tmp"
	chmod --reference="$f" "$f.spdx-tmp"
	mv "$f.spdx-tmp" "$f"
done
exit $bad
