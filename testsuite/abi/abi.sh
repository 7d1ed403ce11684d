#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# abi.sh -- what libmaptap.so exports, against the committed list
# (testsuite/abi/libmaptap.sym), so that an ABI change is a visible diff:
# regenerate the list with
#   nm -D --defined-only .libs/libmaptap.so | awk '{print $3}' | LC_ALL=C sort
# when an API change is meant.  Also: only maptap_* is exported, the
# maptap program's front end calls nothing else of the library (it links
# the objects statically, see Makefile.am), and an application defining
# a function named as an internal one (mt_now_ns) no longer replaces it.
. "$top_srcdir/testsuite/lib/tap.sh"

lib=$top_builddir/.libs/libmaptap.so
list=$top_srcdir/testsuite/abi/libmaptap.sym
work=$(mktemp -d "${TMPDIR:-/tmp}/maptap-abi.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ ! -f "$lib" ]; then
	fail "libmaptap.so built ($lib)"
	tap_done
	exit 1
fi

nm -D --defined-only "$lib" | awk '{ print $3 }' | LC_ALL=C sort >"$work/got"
if diff -u "$list" "$work/got" >"$work/diff"; then
	ok "exported symbols are testsuite/abi/libmaptap.sym ($(wc -l <"$work/got"))"
else
	diag "$(cat "$work/diff")"
	fail "exported symbols are testsuite/abi/libmaptap.sym"
fi

if grep -qv '^maptap_' "$work/got"; then
	diag "$(grep -v '^maptap_' "$work/got" | head -n 20)"
	fail "every exported symbol is maptap_*"
else
	ok "every exported symbol is maptap_*"
fi

# The front end's calls into the library: symbols the library's objects
# define that the front end's objects use.
nm -g --defined-only "$top_builddir/.libs/libmaptap_internal.a" 2>/dev/null |
	awk 'NF == 3 { print $3 }' | LC_ALL=C sort -u >"$work/defined"
nm -u "$top_builddir/.libs/libmaptap_translator.a" \
	"$top_builddir/translator/driver/maptap-main.o" 2>/dev/null |
	awk 'NF == 2 { print $2 }' | LC_ALL=C sort -u >"$work/used"
LC_ALL=C comm -12 "$work/defined" "$work/used" >"$work/calls"
if [ ! -s "$work/defined" ] || [ ! -s "$work/calls" ]; then
	fail "the front end's calls into libmaptap found"
elif LC_ALL=C comm -23 "$work/calls" "$list" | grep -q .; then
	diag "$(LC_ALL=C comm -23 "$work/calls" "$list")"
	fail "translator/ calls only libmaptap's public API"
else
	ok "translator/ calls only libmaptap's public API ($(wc -l <"$work/calls") functions)"
fi

# shellcheck disable=SC2086
if ! $CC $SAN_CFLAGS -I"$top_srcdir/include" -o "$work/own_now" \
	"$top_srcdir/testsuite/abi/own_now.c" -L"$top_builddir/.libs" \
	-lmaptap -Wl,-rpath,"$top_builddir/.libs"; then
	fail "build own_now (an application defining mt_now_ns)"
elif out=$("$work/own_now" /bin/true); then
	ok "an application's own mt_now_ns leaves event times alone ($out)"
else
	diag "own_now: $out"
	fail "an application's own mt_now_ns leaves event times alone"
fi

tap_done
