/* SPDX-License-Identifier: GPL-2.0-or-later */
/* build_target.h -- unit-test support: compile one of the system tests'
 * target programs (testsuite/targets/) at test time with the system
 * compiler, as the Python tests do (mttest.build()): no binaries are
 * committed.
 *
 * Not thread-safe (system(3)); for a test program's main thread.
 */
#ifndef MAPTAP_TEST_BUILD_TARGET_H
#define MAPTAP_TEST_BUILD_TARGET_H

#include <stddef.h>

/* Make a directory from DIR_TEMPLATE (mkdtemp(3): modified in place,
 * ending in XXXXXX) and compile $top_srcdir/testsuite/targets/SRC there
 * with $CC ("cc" when unset or empty) as "$CC FLAGS -o OUT SRC LIBS"
 * (FLAGS and LIBS: shell words, may be ""), OUT being DIR/NAME; its path
 * goes to OUT (OUT_SIZE bytes).  Returns 0, or -1 when top_srcdir is not
 * in the environment, the directory cannot be made, a path does not fit
 * or the compiler fails (its messages on stderr). */
int tap_build_target(char *dir_template, const char *src, const char *name,
		     const char *flags, const char *libs, char *out,
		     size_t out_size);

#endif
