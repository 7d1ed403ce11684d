/* SPDX-License-Identifier: GPL-2.0-or-later */
/* driver.h -- what is the maptap program's own: the signal state it
 * was started with, where its build tree's tapsets are, and the passes
 * it runs.  The parsed command line it fills is front/options.h's, which
 * the passes read.
 */
#ifndef MAPTAP_DRIVER_H
#define MAPTAP_DRIVER_H

#include "options.h"

/* Record in *ST the signal state the process was started with, block
 * those of SIGINT, SIGTERM and SIGHUP that are ignored, so that one sent
 * before pass 5 takes them is held, not dropped, and give an ignored
 * SIGCHLD its default action, so that the kernel tells maptap of its
 * tracees' stops (sigstart.c).  Call it first thing in main().
 * maptap(1), SIGNALS, has the rules. */
void driver_signals_at_start(struct tr_sigstate *st);

/* The name of the file the build writes beside the maptap it built
 * (never installed): one line, the absolute path of the source tree's
 * tapsets/. */
#define DRIVER_UNINSTALLED "maptap-uninstalled"

/* Set O->uninstalled_tapsets from the DRIVER_UNINSTALLED file beside the
 * running executable, when there is one owned by the executable's owner
 * and writable by no one else; else NULL (tapset_dir.c). */
void driver_find_uninstalled(struct tr_options *o);

/* Run a SystemTap-language script as OPTS says (translator/): parse,
 * elaborate, compile, run up to OPTS->last_pass.  Returns the process exit
 * status: 0 on success, 1 on a script or runtime error (messages already
 * printed to stderr). */
int translator_run(const struct tr_options *opts);

#endif
