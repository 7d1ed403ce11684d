#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# layers.sh -- the folders of runtime/ and translator/ are layers: a file
# may include its own folder's private headers, the public ones in
# include/maptap/, and another folder's private header only where the
# table below allows it.  A new tie between subsystems is then a
# visible, reviewed line here, not an #include slipped into a .c file;
# and the allowed ties must form no cycle: every one runs down the
# layers, with no exception.  In the build tree it checks the calls too
# (nm), libmaptap's and the translator's: a folder calls another only
# down the layers, whatever header it went through.
# runtime/README.md and translator/README.md draw the same picture.
. "$top_srcdir/testsuite/lib/tap.sh"

# FROM TO: files in folder FROM may include private headers of folder
# TO.  Only ties that exist are listed; the direction is that of calls
# (who includes whom), the layers of runtime/README.md.
allowed='
runtime/modules runtime/common
runtime/output runtime/common
runtime/profile runtime/common
runtime/report runtime/common
runtime/script runtime/common
runtime/tracer runtime/common
runtime/unwind runtime/modules
translator/driver translator/front
translator/driver translator/interp
translator/interp translator/front
'
# The translator names its private headers bare, found through one -I
# per folder (translator/local.am); runtime/ names them by relative path.
tr_dirs='translator/driver translator/front translator/interp'

cd "$top_srcdir" || exit 1
edges=$(mktemp) || exit 1
trap 'rm -f "$edges"' EXIT
bad=0
nfiles=0
for f in runtime/*/*.[ch] translator/*/*.[ch]; do
	[ -f "$f" ] || continue
	nfiles=$((nfiles + 1))
	from=${f%/*}
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		[ "$inc" = config.h ] && continue
		target=
		if [ -f "$from/$inc" ]; then
			target=$(realpath -m --relative-to=. "$from/$inc")
		else
			case $from in translator/*)
				for d in $tr_dirs; do
					if [ -f "$d/$inc" ]; then
						target=$d/$inc; break
					fi
				done ;;
			esac
		fi
		if [ -z "$target" ]; then
			diag "$f: #include \"$inc\" names no file of this tree"
			bad=$((bad + 1)); continue
		fi
		to=${target%/*}
		case $to in include/maptap) continue ;; esac
		[ "$to" = "$from" ] && continue
		if printf '%s\n' "$allowed" | grep -qx "$from $to"; then
			echo "$from $to" >>"$edges"
		else
			diag "$f: includes $target, private to $to; $from may not"
			bad=$((bad + 1))
		fi
	done
done

if [ "$nfiles" -lt 50 ]; then
	fail "subsystem folders found ($nfiles files: is top_srcdir right?)"
elif [ "$bad" -eq 0 ]; then
	ok "no file includes a private header of a folder it may not ($nfiles files)"
else
	fail "no file includes a private header of a folder it may not ($bad above)"
fi

# tsort(1) reports a loop in the ties found, and
# in the table itself, which would otherwise allow one later.
if printf '%s\n' "$allowed" | grep . | cat - "$edges" | tsort >/dev/null 2>"$edges.err" &&
	! [ -s "$edges.err" ]; then
	ok "the ties between subsystem folders form no cycle"
else
	diag "$(cat "$edges.err")"
	fail "the ties between subsystem folders form no cycle"
fi
rm -f "$edges.err"

# The same at link level, where a tie through public headers shows too:
# FROM calls a function that TO's objects define.  Inside libmaptap and
# inside the translator every tie runs one way; the translator's calls
# into libmaptap, through public headers, are abi.sh's.
calls='
runtime/tracer runtime/model
runtime/tracer runtime/common
runtime/profile runtime/common
runtime/modules runtime/model
runtime/unwind runtime/modules
runtime/report runtime/unwind
runtime/report runtime/modules
runtime/report runtime/common
runtime/output runtime/common
runtime/output runtime/modules
runtime/output runtime/model
'
tr_calls='
translator/driver translator/front
translator/driver translator/interp
translator/interp translator/front
'
objs() {	# objs DIR: DIR's objects in the build tree (PIC ones first)
	set -- "$top_builddir/$1"/.libs/*.o
	[ -f "$1" ] || set -- "$top_builddir/${1%/.libs/*}"/*.o
	[ -f "$1" ] && printf '%s\n' "$@"
}
# check_calls TREE TABLE: TREE's folders call one another only as TABLE
# says, and TABLE has no loop.
check_calls() {
	defs=$(mktemp) || exit 1
	ties=$(mktemp) || exit 1
	for d in "$1"/*/; do
		d=${d%/}
		for o in $(objs "$d"); do
			nm -g --defined-only "$o" |
				awk -v d="$d" 'NF == 3 { print $3, d }'
		done
	done | LC_ALL=C sort -u >"$defs"
	if [ ! -s "$defs" ]; then
		skip "calls between $1/ folders: no objects in $top_builddir"
		rm -f "$defs" "$ties"
		return
	fi
	for d in "$1"/*/; do
		d=${d%/}
		for o in $(objs "$d"); do nm -u "$o"; done |
			awk '{ print $NF }' | LC_ALL=C sort -u |
			LC_ALL=C join - "$defs" | awk -v d="$d" '$2 != d { print d, $2, $1 }'
	done >"$ties"
	badties=$(awk '{ print $1, $2 }' "$ties" | sort -u |
		grep -vxF "$(printf '%s\n' "$2" | grep .)" || true)
	if ! printf '%s\n' "$2" | grep . | tsort >/dev/null; then
		fail "$1/ folders call only down the layers (the table has a loop)"
	elif [ -z "$badties" ]; then
		ok "$1/ folders call only down the layers ($(wc -l <"$ties") calls)"
	else
		printf '%s\n' "$badties" | while read -r a b; do
			diag "$a calls $b: $(awk -v a="$a" -v b="$b" \
				'$1 == a && $2 == b { printf "%s ", $3 }' "$ties")"
		done
		fail "$1/ folders call only down the layers"
	fi
	rm -f "$defs" "$ties"
}
check_calls runtime "$calls"
check_calls translator "$tr_calls"

tap_done
