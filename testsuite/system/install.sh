#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# install.sh -- a clean install: `make install` into a scratch DESTDIR,
# then the installed files as a distribution would ship them (no
# libmaptap.la, man pages that say where the tapsets are, docs/ and
# examples/ under the docdir), and the installed program run with the
# build and source trees hidden and the install bound at its prefix, in
# a mount namespace of its own: it must run a script and the default log
# from installed files alone.  The installed man page's example (maptap(3))
# is built with pkg-config against the installed library and run.
#
# The program once had a RUNPATH into the build tree's .libs and a
# compiled-in path to the source tree's tapsets that won over the
# installed ones (issue 11).
. "$top_srcdir/testsuite/lib/tap.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/maptap-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
dest=$work/dest

# The make that runs this test must not lend us its jobserver.
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top_builddir" \
	install DESTDIR="$dest" >"$work/install.log" 2>&1; then
	ok "make install DESTDIR=..."
else
	diag "$(tail -n 20 "$work/install.log")"
	fail "make install DESTDIR=..."
	tap_done
	exit 1
fi

prog=$(find "$dest" -path '*/bin/maptap' -type f | head -n 1)
if [ -z "$prog" ]; then
	fail "the program is installed"
	tap_done
	exit 1
fi
prefix=${prog#"$dest"}
prefix=${prefix%/bin/maptap}
share=$dest$prefix/share
pc=$(find "$dest" -name maptap.pc | head -n 1)
libdir=$(dirname "$(dirname "${pc#"$dest"}")")
diag "prefix $prefix, libdir $libdir"

if find "$dest" -name 'maptap-uninstalled' | grep -q .; then
	fail "the build tree's maptap-uninstalled is not installed"
else
	ok "the build tree's maptap-uninstalled is not installed"
fi
if find "$dest" -name '*.la' | grep -q .; then
	diag "$(find "$dest" -name '*.la')"
	fail "no libtool .la file is installed"
else
	ok "no libtool .la file is installed"
fi
if [ -e "$dest$libdir/libmaptap.so.0" ] && [ -e "$dest$libdir/libmaptap.so" ]; then
	ok "libmaptap.so.0 and its link are installed"
else
	fail "libmaptap.so.0 and its link are installed"
fi

rpath=$(readelf -d "$prog" | grep -E 'RUNPATH|RPATH' || true)
case $rpath in
*"$top_builddir"*|*"$top_srcdir"*|*.libs*)
	diag "$rpath"; fail "the installed program has no RUNPATH into the build tree" ;;
*)
	ok "the installed program has no RUNPATH into the build tree" ;;
esac
# Debug info names the build directory; the code and data must not.
# Except in a sanitizer build: UBSan's check sites name their source
# file as the compiler was given it, absolute when configure was run by
# an absolute path (/path/to/src/configure --enable-sanitizers).
objcopy --strip-debug "$prog" "$work/stripped"
if [ -n "${SAN_CFLAGS:-}" ]; then
	skip "a sanitizer build names its sources (UBSan's check sites)"
elif strings "$work/stripped" | grep -F -e "$top_builddir" -e "$top_srcdir" \
	>"$work/paths"; then
	diag "$(head -n 5 "$work/paths")"
	fail "the installed program names no path of the build or source tree"
else
	ok "the installed program names no path of the build or source tree"
fi

missing=
for f in man/man1/maptap.1 man/man3/maptap.3 man/man7/maptap-language.7 \
	man/man7/maptapprobes.7 maptap/tapset/maptap/log.stp \
	maptap/tapset/syscalls.stp doc/maptap/README doc/maptap/NEWS \
	doc/maptap/COPYING doc/maptap/COPYING.LIB doc/maptap/docs/README.md \
	doc/maptap/docs/tracer.md doc/maptap/docs/model.md \
	doc/maptap/examples/README.md doc/maptap/examples/wx-audit.stp; do
	[ -f "$share/$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
	diag "missing under $prefix/share:$missing"
	fail "man pages, tapsets, docs/ and examples/ are installed"
else
	ok "man pages, tapsets, docs/ and examples/ are installed"
fi
if grep -l 'pkgdatadir\|(docdir)' "$share"/man/man*/* >"$work/unsub"; then
	diag "$(cat "$work/unsub")"
	fail "the installed man pages name installed paths, not \$(pkgdatadir)"
elif grep -qF "$prefix/share/maptap/tapset" "$share/man/man1/maptap.1"; then
	ok "the installed man pages name installed paths, not \$(pkgdatadir)"
else
	fail "the installed man pages name installed paths, not \$(pkgdatadir)"
fi

# The pages the messages cite by stap's names ("[man error::pass2]"):
# `man error::pass2` must find the installed one.
if ! command -v man >/dev/null 2>&1; then
	skip "man error::NAME finds the installed error pages: no man(1) here"
elif MANPATH="$share/man" man -w error::pass2 2>/dev/null |
		grep -qF "$share/man/man7/error::pass2.7maptap" &&
	MANPATH="$share/man" man -w error::fault 2>/dev/null |
		grep -qF "$share/man/man7/error::fault.7maptap"; then
	ok "man error::NAME finds the installed error pages"
else
	diag "$(ls "$share/man/man7" 2>&1)"
	fail "man error::NAME finds the installed error pages"
fi

# The example of maptap(3), as the installed page shows it (with the
# build's sanitizer flags: an ASan library wants an ASan program).
sed -n '/^\.\\" example begin/,/^\.\\" example end/p' \
	"$share/man/man3/maptap.3" | sed '1d;$d' | grep -v '^\.E[XE]$' |
	sed 's/\\-/-/g; s/\\e/\\/g' >"$work/mapcount.c"

# Run in a mount namespace: the trees hidden under empty tmpfs, the
# install bound at its prefix (a prefix inside a hidden tree, as make
# distcheck's, is made again in its tmpfs; any other must exist).
cat >"$work/inner.sh" <<'EOF'
set -e
cd /
mount -t tmpfs none "$builddir_real"
mount -t tmpfs none "$srcdir_real"
if [ $prefix_in_tree = yes ]; then
	mkdir -p "$prefix"		# in the tmpfs that hides its tree
elif [ ! -d "$prefix" ]; then
	echo "no directory $prefix to bind the install at" >&2
	exit 77
fi
mount --bind "$dest$prefix" "$prefix"
unset MAPTAP_TAPSET
set +e
"$prefix/bin/maptap" -e 'probe process.begin { printf("begin %s\n", execname()) }' \
	-c /bin/true >"$work/script.out" 2>&1
echo $? >"$work/script.rc"
"$prefix/bin/maptap" -c /bin/true >"$work/log.out" 2>&1
echo $? >"$work/log.rc"
flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs maptap) &&
	$CC ${SAN_CFLAGS:-} -o "$work/mapcount" "$work/mapcount.c" $flags \
		-Wl,-rpath,"$libdir" \
		>"$work/cc.out" 2>&1 &&
	"$work/mapcount" /bin/true >"$work/mapcount.out" 2>&1
echo $? >"$work/mapcount.rc"
exit 0
EOF
# As the kernel names them (make distcheck's are ../..-relative), so that
# a prefix inside a hidden tree is seen to be.
srcdir_real=$(cd "$top_srcdir" && pwd -P)
builddir_real=$(cd "$top_builddir" && pwd -P)
prefix_in_tree=no
if [ -d "$prefix" ]; then
	case $(cd "$prefix" && pwd -P)/ in
	"$srcdir_real"/*|"$builddir_real"/*) prefix_in_tree=yes ;;
	esac
fi
export srcdir_real builddir_real prefix prefix_in_tree dest work libdir CC
if [ "$(id -u)" -eq 0 ]; then ns="unshare -m --propagation private"
else ns="unshare -r -m --propagation private"; fi
$ns sh "$work/inner.sh" >"$work/ns.out" 2>&1
rc=$?
if [ $rc -eq 77 ] || { [ $rc -ne 0 ] && ! [ -f "$work/script.rc" ]; }; then
	diag "$(cat "$work/ns.out")"
	skip "the installed program, trees hidden: no mount namespace here"
	skip "the installed program's default log, trees hidden"
	skip "maptap(3)'s example, built with pkg-config, runs"
else
	if [ "$(cat "$work/script.rc")" = 0 ] &&
	   [ "$(cat "$work/script.out")" = "begin true" ]; then
		ok "the installed program runs a script, build and source trees hidden"
	else
		diag "rc=$(cat "$work/script.rc") $(cat "$work/script.out")"
		fail "the installed program runs a script, build and source trees hidden"
	fi
	if [ "$(cat "$work/log.rc")" = 0 ] &&
	   grep -q ' exec .*/true ' "$work/log.out"; then
		ok "the installed program's default log, trees hidden"
	else
		diag "rc=$(cat "$work/log.rc") $(head -n 5 "$work/log.out")"
		fail "the installed program's default log, trees hidden"
	fi
	if [ "$(cat "$work/mapcount.rc")" = 0 ] &&
	   grep -q '^map  *[1-9]' "$work/mapcount.out" &&
	   grep -q '^exec  *1$' "$work/mapcount.out"; then
		ok "maptap(3)'s example, built with pkg-config, runs"
	else
		diag "rc=$(cat "$work/mapcount.rc")"
		diag "$(cat "$work/cc.out" "$work/mapcount.out" 2>/dev/null | head -n 20)"
		fail "maptap(3)'s example, built with pkg-config, runs"
	fi
fi

# And `make uninstall` takes it all away again (libtool needs the .la to
# name the library's files; Makefile.am's uninstall-hook names them).
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top_builddir" \
	uninstall DESTDIR="$dest" >"$work/uninstall.log" 2>&1 &&
   ! find "$dest" -type f -o -type l | grep -q .; then
	ok "make uninstall leaves no file"
else
	diag "$(find "$dest" -type f -o -type l | head -n 10)"
	fail "make uninstall leaves no file"
fi

tap_done
