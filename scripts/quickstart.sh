#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# quickstart.sh -- install what maptap needs, build it, and run the demo or
# the testsuite.  Meant for root on a fresh Debian 12 machine; on a machine
# that has everything it only builds.
#
#   scripts/quickstart.sh demo    build, then trace the bundled demo target
#   scripts/quickstart.sh check   build, then run the whole testsuite
#   scripts/quickstart.sh build   only build
#
# Environment: BUILDDIR (default: build), CONFIGURE_FLAGS (extra flags for
# ./configure, e.g. --enable-sanitizers), MAPTAP_NO_APT=1 to never run apt.
set -eu

mode=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${BUILDDIR:-$top/build}

# Debian packages: the build tools, the libraries configure looks for, and
# the tools the testsuite and the fuzz run use (systemtap-common: the real
# tapset files that testsuite/script/tapset-parse parses, 0.7 MB; chromium:
# profile.py looks at the flame graph in a real browser; gdb and strace:
# targets that trace, under maptap; systemtap-doc: SystemTap's own example
# scripts, which targetvars.py runs unchanged; libc6-dbg: glibc's DWARF,
# for target variables in libc; linux-perf: the anchor of
# bench/tracer/perfmode.sh; clang and libbpf-dev: perf mode's BPF
# filter, runtime/tracer/perf_bpf.bpf.c).
pkgs="build-essential autoconf automake libtool pkg-config libelf-dev
libdw-dev libunwind-dev libcapstone-dev libbpf-dev systemtap-sdt-dev
linux-libc-dev elfutils binutils
clang libclang-rt-14-dev python3 strace gdb time systemtap-common chromium
systemtap-doc libc6-dbg linux-perf"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ] && [ "${MAPTAP_NO_APT:-0}" != 1 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "quickstart: missing Debian packages:$missing (run as root, or install them)" >&2
		exit 1
	fi
	echo "quickstart: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing >&2
fi

cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] ||
   [ -n "$(find . -name local.am -newer configure 2>/dev/null | head -n 1)" ] ||
   [ Makefile.am -nt configure ]; then
	autoreconf -fi >&2
fi
mkdir -p "$builddir"
cd "$builddir"
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ]; then
	# shellcheck disable=SC2086
	"$top/configure" ${CONFIGURE_FLAGS:-} >&2
fi
make -j"$(nproc)" >&2

case "$mode" in
build)
	;;
demo)
	make -j"$(nproc)" testsuite/targets/demo testsuite/targets/demo-child >&2
	# Not installed: the build tree's maptap reads the source tree's
	# tapsets by itself (maptap(1), FILES, maptap-uninstalled).
	echo "quickstart: ./maptap -c testsuite/targets/demo" >&2
	exec ./maptap -c "testsuite/targets/demo"
	;;
check)
	status=0
	make -j"$(nproc)" check >/dev/null 2>&1 || status=$?
	# Show the failures' logs, then one summary line counting every case.
	for trs in $(find . -name '*.trs'); do
		if grep -qE '^:test-result: (FAIL|XPASS|ERROR)' "$trs"; then
			log=${trs%.trs}.log
			echo "==== $log"
			cat "$log"
		fi
	done
	cat $(find . -name '*.trs') 2>/dev/null | awk '
		/^:test-result: (PASS|XFAIL)/ { p++ }
		/^:test-result: (FAIL|XPASS|ERROR)/ { f++ }
		/^:test-result: SKIP/ { s++ }
		END {
			if (p + f == 0 && s == 0) f = 1
			printf "%d passed, %d failed, %d skipped\n", p, f, s
		}'
	[ "$status" -eq 0 ]
	;;
*)
	echo "quickstart: unknown mode '$mode' (want build, demo or check)" >&2
	exit 2
	;;
esac
