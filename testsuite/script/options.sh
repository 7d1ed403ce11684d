#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# options.sh -- the command-line options the translator honours: -v pass
# reports, -o FILE, -G NAME=VALUE, -T SECS, -w, and SIGINT ending a
# script that runs until interrupted (end probes then run, as in stap),
# --runtime=MODE, MAPTAP_TAPSET.
. "$top_srcdir/testsuite/lib/tap.sh"

maptap=${MAPTAP:-$top_builddir/maptap}
tmp=${TMPDIR:-/tmp}/maptap-opts.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

"$maptap" -v -e 'probe begin { exit() }' >"$tmp/out" 2>"$tmp/err"
if grep -q '^Pass 1: parsed user script in [0-9]*usr/[0-9]*sys/[0-9]*real ms\.$' "$tmp/err" &&
   grep -q '^Pass 2: analyzed script: 1 probe(s), 0 function(s), 0 global(s) using [0-9]* library script(s) in ' "$tmp/err" &&
   grep -q '^Pass 5: run completed in ' "$tmp/err"; then
	ok "-v reports each pass with counts and times"
else
	sed 's/^/# /' "$tmp/err"; fail "-v reports each pass with counts and times"
fi

"$maptap" -o "$tmp/file" -e 'probe begin { println("to file"); exit() }' >"$tmp/out"
if [ "$(cat "$tmp/file")" = "to file" ] && [ ! -s "$tmp/out" ]; then
	ok "-o FILE takes the script's output"
else
	fail "-o FILE takes the script's output"
fi

out=$("$maptap" -G n=5 -G s=text -e 'global n = 1, s = "x"
probe begin { printf("%d %s\n", n, s); exit() }')
if [ "$out" = "5 text" ]; then ok "-G sets globals"; else diag "$out"; fail "-G sets globals"; fi

out=$("$maptap" -T 1 -e 'probe end { println("ended") }')
if [ "$out" = "ended" ]; then ok "-T stops the script and runs end probes"; else fail "-T stops the script"; fi

err=$("$maptap" -w -e 'global unused probe begin { exit() }' 2>&1 >/dev/null)
if [ -z "$err" ]; then ok "-w silences warnings"; else diag "$err"; fail "-w silences warnings"; fi

"$maptap" -e 'probe begin { println("started") } probe end { println("ended") }' \
	>"$tmp/sig" 2>&1 &
pid=$!
i=0
while [ $i -lt 100 ] && ! grep -q started "$tmp/sig" 2>/dev/null; do
	sleep 0.1; i=$((i + 1))
done
kill -INT $pid
wait $pid
rc=$?
if [ $rc -eq 0 ] && [ "$(cat "$tmp/sig")" = "started
ended" ]; then
	ok "SIGINT ends the run through the end probes"
else
	diag "rc=$rc"; sed 's/^/# /' "$tmp/sig"; fail "SIGINT ends the run through the end probes"
fi

out=$("$maptap" -p2 -e 'probe timer.hz(50), timer.us(20000).randomize(100) { exit() }' | grep '^timer')
if [ "$(echo "$out" | wc -l)" = 2 ]; then ok "timer.hz and .randomize resolve"; else fail "timer.hz and .randomize resolve"; fi
# --runtime=MODE as stap(1) has it: maptap is the user-space runtime.
out=$("$maptap" --runtime=dyninst -e 'probe begin { println("dyninst"); exit() }' 2>&1)
out2=$("$maptap" --dyninst -e 'probe begin { println("dyninst"); exit() }' 2>&1)
if [ "$out" = dyninst ] && [ "$out2" = dyninst ]; then
	ok "--runtime=dyninst and --dyninst are accepted"
else
	diag "$out"; diag "$out2"; fail "--runtime=dyninst and --dyninst are accepted"
fi
for mode in kernel bpf; do
	err=$("$maptap" --runtime=$mode -e 'probe begin { println("ran"); exit() }' 2>&1)
	rc=$?
	want="maptap: --runtime=$mode: maptap runs scripts in user space, as stap's dyninst runtime does; only --runtime=dyninst is accepted"
	if [ $rc -ne 0 ] && [ "$err" = "$want" ]; then
		ok "--runtime=$mode is refused with the reason"
	else
		diag "rc=$rc $err"; fail "--runtime=$mode is refused with the reason"
	fi
done
# Options may follow the script's name, as with stap ("stap x.stp -c
# CMD"); a script argument that starts with '-' goes after "--".
printf 'probe process.begin { printf("%%s %%s\\n", execname(), @1); exit() }\n' \
	>"$tmp/after.stp"
out=$("$maptap" "$tmp/after.stp" -c true -- -arg 2>&1)
if [ "$out" = "true -arg" ]; then
	ok "options after the script name are options; '--' ends them"
else
	diag "$out"; fail "options after the script name are options; '--' ends them"
fi

# Output that cannot be written is reported once; the target runs on and
# its exit status still comes back.
err=$("$maptap" -o /dev/full -c 'sh -c "exit 3"' 2>&1 >/dev/null)
rc=$?
if [ $rc -eq 3 ] && [ "$(printf '%s\n' "$err" | grep -c 'cannot write the output')" = 1 ]; then
	ok "an unwritable -o is reported once; the target's status passes through"
else
	diag "rc=$rc $err"; fail "an unwritable -o is reported once"
fi

# The traced command gets maptap's environment unchanged: the build
# tree's maptap was libtool's wrapper script, which set LD_LIBRARY_PATH
# for every traced command.
want=$(env | grep '^LD_LIBRARY_PATH=' || true)
got=$("$maptap" -o /dev/null -c env 2>/dev/null | grep '^LD_LIBRARY_PATH=' || true)
if [ "$got" = "$want" ]; then
	ok "the traced command's environment is maptap's own"
else
	diag "got '$got', want '$want'"; fail "the traced command's environment is maptap's own"
fi

# A directory given as the script is refused as unreadable, in one line
# (a failed read was taken for an empty script: "no probes found").
"$maptap" "$tmp" -c /bin/true >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
   grep -q "^maptap: cannot read script $tmp: Is a directory\$" "$tmp/err"; then
	ok "a directory as the script: one line naming it, exit 1"
else
	sed 's/^/# /' "$tmp/err"; fail "a directory as the script: one line naming it, exit 1"
fi

# -x with a pid that does not exist is refused before anything runs: no
# begin probe, no log header, no -o file truncated.
true & gone=$!
wait "$gone"
echo precious >"$tmp/keep"
err=$("$maptap" -x "$gone" -o "$tmp/keep" 2>&1)
rc=$?
out=$("$maptap" -x "$gone" -e 'probe begin { println("BEGIN RAN") } probe process.begin { }' 2>&1)
if [ $rc -eq 1 ] && [ "$err" = "maptap: no such process: $gone" ] &&
   [ "$(cat "$tmp/keep")" = precious ] && [ "$out" = "maptap: no such process: $gone" ]; then
	ok "-x with a pid that does not exist is refused before anything runs"
else
	diag "rc=$rc err=$err out=$out keep=$(cat "$tmp/keep")"
	fail "-x with a pid that does not exist is refused before anything runs"
fi

# --version: the version, then the licence, as stap and strace print it.
out=$("$maptap" --version)
if printf '%s\n' "$out" | head -n 1 | grep -qE '^maptap [0-9]+\.[0-9]+\.[0-9]+$' &&
   printf '%s\n' "$out" | sed -n 2p | grep -q 'GPL-2.0-or-later (libmaptap: LGPL-2.1-or-later)'; then
	ok "--version: version and licence"
else
	diag "$out"; fail "--version: version and licence"
fi

# A usage error is the error and where to look, not the whole usage, as
# stap and strace print it.
for opt in --no-such-option -q; do
	err=$("$maptap" $opt -e 'probe begin { exit() }' 2>&1 >/dev/null)
	rc=$?
	first=$(printf '%s\n' "$err" | head -n 1)
	if [ $rc -eq 1 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 2 ] &&
	   case $first in maptap:*) true ;; *) false ;; esac &&
	   [ "$(printf '%s\n' "$err" | tail -n 1)" = "Try 'maptap --help' for more information." ]; then
		ok "$opt: one line and \"Try 'maptap --help'\""
	else
		diag "rc=$rc $err"; fail "$opt: one line and \"Try 'maptap --help'\""
	fi
done

# The tapsets are the installed ones or those MAPTAP_TAPSET names; no
# directory of the source tree is compiled in (a root maptap would read
# whatever anyone put there).  A missing one is one line.
err=$(MAPTAP_TAPSET=$tmp/none "$maptap" -e 'probe begin { exit() }' 2>&1)
rc=$?
want="maptap: tapset directory $tmp/none: No such file or directory (not installed? MAPTAP_TAPSET names another, see maptap(1))"
if [ $rc -eq 1 ] && [ "$err" = "$want" ]; then
	ok "a missing tapset directory is one line"
else
	diag "rc=$rc $err"; fail "a missing tapset directory is one line"
fi
mkdir -p "$tmp/ts/maptap"
printf 'function here() { return "tapset of MAPTAP_TAPSET" }\n' >"$tmp/ts/mine.stp"
printf 'probe process.begin { printf("own log %%s\\n", execname()) }\n' \
	>"$tmp/ts/maptap/log.stp"
out=$(MAPTAP_TAPSET=$tmp/ts "$maptap" -e 'probe begin { println(here()); exit() }' 2>&1)
log=$(MAPTAP_TAPSET=$tmp/ts "$maptap" -c true 2>&1)
if [ "$out" = "tapset of MAPTAP_TAPSET" ] && [ "$log" = "own log true" ]; then
	ok "MAPTAP_TAPSET names the tapsets and the default log's script"
else
	diag "$out"; diag "$log"
	fail "MAPTAP_TAPSET names the tapsets and the default log's script"
fi

# --pin: maptap and the launched command on one CPU (the command's
# allowed CPUs are one); only with -c, refused in one line otherwise.
all=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
out=$("$maptap" --pin -o /dev/null -c "sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status")
case $out in
*[,-]*|"") diag "allowed: '$out' (maptap's own: '$all')"; fail "--pin runs the command on one CPU" ;;
*) ok "--pin runs the command on one CPU ($out of $all)" ;;
esac
"$maptap" --pin -x $$ -e 'probe begin { exit() }' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" != 0 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
   grep -q -- '--pin' "$tmp/err"; then
	ok "--pin without -c is refused in one line"
else
	sed 's/^/# /' "$tmp/err"; fail "--pin without -c is refused in one line (rc $rc)"
fi

tap_done
