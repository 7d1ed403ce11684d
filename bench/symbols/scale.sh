#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# scale.sh -- run bench/symbols/scale: the module layer with N copies of
# one library mapped in K processes (see scale.c and README.md).
#
#   bench/symbols/scale.sh [N [K [ROUNDS]]]     (defaults 1000 4 5)
#
# From a build directory (make check builds bench/symbols/scale), or with
# top_builddir set; CC compiles scale_lib.c.
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${top_builddir:-$(pwd)}
n=${1:-1000}
k=${2:-4}
rounds=${3:-5}
tmp=$(mktemp -d /tmp/maptap-scale-lib.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -shared -fPIC -o "$tmp/scale_lib.so" "$here/scale_lib.c"
# Run the real program rather than libtool's wrapper script.
bin=$build/bench/symbols/scale
if [ -x "$build/bench/symbols/.libs/scale" ]; then
	bin=$build/bench/symbols/.libs/scale
	LD_LIBRARY_PATH=$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
"$bin" -r "$rounds" "$tmp/scale_lib.so" "$n" "$k"
