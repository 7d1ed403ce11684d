/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sigstart.c -- the signal state maptap was started with.
 *
 * Two things need it, and only the very start of main() still has it:
 * the command maptap launches, which should start as it would untraced
 * (a shell starts a background job with SIGINT and SIGQUIT ignored, POSIX
 * "Shell Command Language" 2.11), and maptap's own stop signals.  A
 * signal whose disposition is SIG_IGN is dropped when it is sent, unless
 * it is blocked (kernel/signal.c, sig_ignored()): maptap takes SIGINT,
 * SIGTERM and SIGHUP from pass 5 on even when it was started with them
 * ignored, so those are blocked from here on, and one sent meanwhile
 * waits for pass 5 instead of being lost.  One that is not ignored keeps
 * its default action until then: it ends maptap before anything has been
 * launched or attached.
 *
 * SIGCHLD started ignored (a parent that set it to SIG_IGN and exec'd
 * us) is set back to SIG_DFL for maptap itself: the kernel sends no
 * SIGCHLD at a tracee's stop to a tracer that ignores it
 * (do_notify_parent_cldstop()), and maptap's stop loop then has to look
 * for stops every millisecond instead of sleeping until the next one
 * (runtime/tracer/loop.c, wait_chld()): a one-thread mapping storm ran 26
 * times slower.  The command still starts with it ignored: it is in
 * ST->ignored, which maptap_session_opts.launch_sigign passes on.
 */
#include <config.h>

#include <signal.h>

#include "driver.h"

void driver_signals_at_start(struct tr_sigstate *st)
{
	static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t hold;
	size_t k;
	int sig;

	sigemptyset(&st->ignored);
	sigemptyset(&hold);
	for (sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;

		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			sigaddset(&st->ignored, sig);
	}
	if (sigismember(&st->ignored, SIGCHLD) == 1)
		signal(SIGCHLD, SIG_DFL);
	for (k = 0; k < sizeof(stop_sigs) / sizeof(stop_sigs[0]); k++)
		if (sigismember(&st->ignored, stop_sigs[k]) == 1)
			sigaddset(&hold, stop_sigs[k]);
	sigprocmask(SIG_BLOCK, &hold, &st->mask);
}
