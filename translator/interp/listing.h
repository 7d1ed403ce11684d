/* SPDX-License-Identifier: GPL-2.0-or-later */
/* listing.h -- maptap -l / -L: the concrete probe points a probe point
 * matches, one a line, as stap lists them.
 */
#ifndef TR_LISTING_H
#define TR_LISTING_H

#include <stdbool.h>
#include <stdio.h>

#include "unit.h"

/* Print the probe points of the elaborated session S to OUT, sorted,
 * each once; with VARS, each followed by its variables as NAME:TYPE
 * (the locals its alias sets, then its target variables).  Returns the
 * number of lines printed. */
int tr_list_probes(struct tr_session *s, FILE *out, bool vars);

#endif
