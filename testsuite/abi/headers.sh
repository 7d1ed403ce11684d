#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# headers.sh -- every public header (include/maptap/*.h) compiles alone
# as C99, C11 and C++, warning-free with -Wall -Wextra -pedantic; a C++
# program calls the library through them (C linkage); and no header cites
# a file of this tree that does not exist.
. "$top_srcdir/testsuite/lib/tap.sh"

inc=$top_srcdir/include
work=$(mktemp -d "${TMPDIR:-/tmp}/maptap-headers.XXXXXX")
trap 'rm -rf "$work"' EXIT
cxx=${CXX:-}
[ -n "$cxx" ] || cxx=$(command -v g++ || command -v c++ || true)

for h in "$inc"/maptap/*.h; do
	name=maptap/$(basename "$h")
	printf '#include <%s>\n' "$name" >"$work/one.c"
	for std in c99 c11; do
		if $CC -std=$std -pedantic -Wall -Wextra -Werror -I"$inc" \
			-fsyntax-only "$work/one.c" 2>"$work/err"; then
			ok "$name alone, $std"
		else
			diag "$(cat "$work/err")"
			fail "$name alone, $std"
		fi
	done
	if [ -z "$cxx" ]; then
		skip "$name alone, C++: no C++ compiler"
	elif $cxx -std=c++11 -pedantic -Wall -Wextra -Werror -I"$inc" \
		-x c++ -fsyntax-only "$work/one.c" 2>"$work/err"; then
		ok "$name alone, C++11"
	else
		diag "$(cat "$work/err")"
		fail "$name alone, C++11"
	fi
done

# libmaptap is built -fvisibility=hidden: a header that does not push
# default visibility around its declarations leaves its functions out of
# libmaptap.so (profile.h and uprobe.h were merged so, their API hidden).
for h in "$inc"/maptap/*.h; do
	name=maptap/$(basename "$h")
	if grep -q 'pragma GCC visibility push(default)' "$h" &&
	   grep -q 'pragma GCC visibility pop' "$h"; then
		ok "$name gives its declarations default visibility"
	else
		fail "$name gives its declarations default visibility"
	fi
done

# C linkage: a C++ program that includes every header links and runs.
if [ -z "$cxx" ]; then
	skip "a C++ program calls libmaptap: no C++ compiler"
else
	for h in "$inc"/maptap/*.h; do
		printf '#include <maptap/%s>\n' "$(basename "$h")"
	done >"$work/all.cc"
	cat >>"$work/all.cc" <<'EOC'
#include <cstdio>
int main()
{
	struct maptap_mm *mm = maptap_mm_new();

	std::printf("%s\n", maptap_version());
	maptap_mm_free(mm);
	return mm ? 0 : 1;
}
EOC
	# shellcheck disable=SC2086
	if $cxx $SAN_CFLAGS -I"$inc" -o "$work/all" "$work/all.cc" \
		-L"$top_builddir/.libs" -lmaptap \
		-Wl,-rpath,"$top_builddir/.libs" 2>"$work/err" &&
	   "$work/all" >"$work/out" 2>"$work/err"; then
		ok "a C++ program calls libmaptap ($(cat "$work/out"))"
	else
		diag "$(cat "$work/err")"
		fail "a C++ program calls libmaptap"
	fi
fi

# Files of this tree that a header cites.  runtime/ is left out: headers
# also cite SystemTap's runtime/ files (stap's runtime/stat-common.c, ...)
# as the source of a rule; tapset/ (singular) is SystemTap's too.
missing=
for f in $(grep -ohE '(\<[A-Z][A-Z]+\.md\>|\<(docs|bench|examples|man|scripts|tapsets|testsuite|translator)/[A-Za-z0-9_./-]*[A-Za-z0-9_/])' \
		"$inc"/maptap/*.h | sort -u); do
	[ -e "$top_srcdir/$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
	diag "cited, missing:$missing"
	fail "every file a header cites exists"
else
	ok "every file a header cites exists"
fi

tap_done
