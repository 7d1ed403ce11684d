/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flame_svg.h -- an interactive flame graph as one self-contained SVG
 * file (flame_svg.c): click a frame to zoom, hover for its samples.
 */
#ifndef TR_FLAME_SVG_H
#define TR_FLAME_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Write to OUT the flame graph of the N folded stacks STACKS[i]
 * ("main;parse;malloc", outermost frame first, frames separated by ';')
 * with COUNTS[i] samples each, under TITLE (plain text; escaped here).
 * Returns 0 or -ENOMEM; write errors are the stream's (ferror). */
int tr_flame_svg(FILE *out, const char *const *stacks,
		 const uint64_t *counts, size_t n, const char *title);

#endif
