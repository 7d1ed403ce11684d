#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# layers.sh -- the folders of runtime/ and translator/ are layers: a file
# may include its own folder's private headers, the public ones in
# include/maptap/, and another folder's private header only where the
# table below allows it.  A new tie between subsystems is then a
# visible, reviewed line here, not an #include slipped into a .c file;
# and the allowed ties, exceptions set apart, must form no cycle.  In
# the build tree it checks libmaptap's calls too (nm): a folder calls
# another only down the layers, whatever header it went through.
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
# Back edges that exist today, allowed but kept out of the cycle check;
# each says why and how it would go (../shared/ARCHITECTURE-REVIEW.md
# section 4.2).  Do not add to this list lightly.
exceptions='
translator/front translator/driver
translator/interp translator/driver
translator/front translator/interp
'
# translator/{front,interp} -> translator/driver: driver.h's parsed
#	command line (struct tr_options), read by the passes as stap's
#	systemtap_session options are.
# translator/front -> translator/interp: elaborate.c includes cvars.h
#	(tr_cvar_lookup(): pass 2 asks pass 5's table which probe offers
#	which context variable) and dwvars.h (tr_dwvar_applies/bind/
#	entry_slot: pass 2 binds DWARF variables).  Moving cvars.c's table
#	alone to front/ would not end the tie: its lookup calls
#	tr_sdt_cvar_lookup() (interp/sdt_vars.c) and shares enum cvar with
#	the pass-5 half, and dwvars.c's binding is pass 2 too.  All three
#	pass-2 halves go to front/ together, with the ids in a front/
#	header that interp/ includes.

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
		elif printf '%s\n' "$exceptions" | grep -qx "$from $to"; then
			:
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

# tsort(1) reports a loop in the ties found (exceptions left out), and
# in the table itself, which would otherwise allow one later.
if printf '%s\n' "$allowed" | grep . | cat - "$edges" | tsort >/dev/null 2>"$edges.err" &&
	! [ -s "$edges.err" ]; then
	ok "the ties between subsystem folders form no cycle"
else
	diag "$(cat "$edges.err")"
	fail "the ties between subsystem folders form no cycle"
fi
rm -f "$edges.err"

# The same at link level inside libmaptap, where a tie through public
# headers shows too: FROM calls a function that TO's objects define.
# Inside libmaptap every tie runs one way, so here there are no
# exceptions (the translator's, through public headers, are abi.sh's).
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
objs() {	# objs DIR: DIR's objects in the build tree (PIC ones first)
	set -- "$top_builddir/$1"/.libs/*.o
	[ -f "$1" ] || set -- "$top_builddir/${1%/.libs/*}"/*.o
	[ -f "$1" ] && printf '%s\n' "$@"
}
defs=$(mktemp) || exit 1
ties=$(mktemp) || exit 1
for d in runtime/*/; do
	d=${d%/}
	for o in $(objs "$d"); do
		nm -g --defined-only "$o" | awk -v d="$d" 'NF == 3 { print $3, d }'
	done
done | LC_ALL=C sort -u >"$defs"
if [ ! -s "$defs" ]; then
	skip "calls between runtime/ folders: no objects in $top_builddir"
else
	for d in runtime/*/; do
		d=${d%/}
		for o in $(objs "$d"); do nm -u "$o"; done |
			awk '{ print $NF }' | LC_ALL=C sort -u |
			LC_ALL=C join - "$defs" | awk -v d="$d" '$2 != d { print d, $2, $1 }'
	done >"$ties"
	badties=$(awk '{ print $1, $2 }' "$ties" | sort -u |
		grep -vxF "$(printf '%s\n' "$calls" | grep .)" || true)
	if ! printf '%s\n' "$calls" | grep . | tsort >/dev/null; then
		fail "runtime/ folders call only down the layers (the table has a loop)"
	elif [ -z "$badties" ]; then
		ok "runtime/ folders call only down the layers ($(wc -l <"$ties") calls)"
	else
		printf '%s\n' "$badties" | while read -r a b; do
			diag "$a calls $b: $(awk -v a="$a" -v b="$b" \
				'$1 == a && $2 == b { printf "%s ", $3 }' "$ties")"
		done
		fail "runtime/ folders call only down the layers"
	fi
fi
rm -f "$defs" "$ties"

tap_done
