#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# uninstalled.sh -- the build tree's maptap finds the source tree's
# tapsets without MAPTAP_TAPSET, through the maptap-uninstalled file the
# build writes beside it (translator/driver/tapset_dir.c), and believes
# such a file only beside itself, of its own owner, writable by no one
# else; MAPTAP_TAPSET still wins.  install.sh checks the file is never
# installed.
. "$top_srcdir/testsuite/lib/tap.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/maptap-uninst.XXXXXX")
trap 'rm -rf "$work"' EXIT
prog=$top_builddir/maptap

out=$(env -u MAPTAP_TAPSET "$prog" -e 'probe begin { printf("[%s]\n",
	substr(thread_indent(1), 0, 6)) exit() }' 2>&1)
if [ "$out" = "[     0]" ]; then
	ok "the build tree's maptap reads the source tapsets (thread_indent) without MAPTAP_TAPSET"
else
	diag "$out"
	fail "the build tree's maptap reads the source tapsets (thread_indent) without MAPTAP_TAPSET"
fi
out=$(env -u MAPTAP_TAPSET "$prog" -c /bin/true 2>&1 >/dev/null | head -n 2)
case $out in
*exec*/bin/true*|*exec*/usr/bin/true*)
	ok "the build tree's maptap runs the default log without MAPTAP_TAPSET" ;;
*)
	diag "$out"
	fail "the build tree's maptap runs the default log without MAPTAP_TAPSET" ;;
esac

# A program of our own beside a file of our own, naming a tapset
# directory with a function no other has.
mkdir -p "$work/bin" "$work/tapsets/maptap"
cp "$prog" "$work/bin/maptap"
cat >"$work/tapsets/mine.stp" <<'EOT'
// SPDX-License-Identifier: GPL-2.0-or-later
function uninstalled_mark:string() { return "mine" }
EOT
echo "$work/tapsets" >"$work/bin/maptap-uninstalled"
script='probe begin { println(uninstalled_mark()) exit() }'
chmod 644 "$work/bin/maptap-uninstalled"
out=$(env -u MAPTAP_TAPSET "$work/bin/maptap" -e "$script" 2>&1)
if [ "$out" = mine ]; then
	ok "the file beside the program names its tapset directory"
else
	diag "$out"
	fail "the file beside the program names its tapset directory"
fi
out=$(MAPTAP_TAPSET=$top_srcdir/tapsets "$work/bin/maptap" -e "$script" 2>&1)
case $out in
mine) fail "MAPTAP_TAPSET wins over the file" ;;
*) ok "MAPTAP_TAPSET wins over the file" ;;
esac
chmod 664 "$work/bin/maptap-uninstalled"
out=$(env -u MAPTAP_TAPSET "$work/bin/maptap" -e "$script" 2>&1)
case $out in
mine) fail "a file others may write is not believed" ;;
*) ok "a file others may write is not believed" ;;
esac
chmod 644 "$work/bin/maptap-uninstalled"
mv "$work/bin/maptap-uninstalled" "$work/elsewhere"
ln -s "$work/elsewhere" "$work/bin/maptap-uninstalled"
out=$(env -u MAPTAP_TAPSET "$work/bin/maptap" -e "$script" 2>&1)
case $out in
mine) fail "a symbolic link in the file's place is not followed" ;;
*) ok "a symbolic link in the file's place is not followed" ;;
esac
tap_done
