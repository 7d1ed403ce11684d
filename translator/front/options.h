/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options.h -- the parsed command line, as stap's systemtap_session
 * options are: the driver (driver/main.c) fills struct tr_options, the
 * passes read it through tr_session.opts.  Here, in the front end, so
 * that the passes read it without including the driver.
 *
 * Option letters follow stap(1) where stap has one.
 */
#ifndef TR_OPTIONS_H
#define TR_OPTIONS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* One -D NAME[=VALUE] or -G NAME=VALUE. */
struct tr_define {
	const char *name;
	const char *value;	/* NULL when none was given */
};

/* The command line.  Strings point into argv; arrays are malloc'd and
 * owned by the struct (the driver frees them). */
struct tr_options {
	const char *script_file;	/* SCRIPT.stp, or "-" for stdin; NULL */
	const char *script_text;	/* -e 'SCRIPT'; NULL */
	char **script_args;		/* $1.. / @1..: words after the script */
	int n_script_args;
	const char *target_cmd;		/* -c 'CMD ARGS'; NULL */
	pid_t target_pid;		/* -x PID; 0 when not given */
	const char *output_file;	/* -o FILE; NULL for stdout (stderr
					 * for maptap's own output) */
	bool own_output;		/* no script: the output is maptap's
					 * own (the log, --report, --profile),
					 * which goes to stderr unless -o, as
					 * strace's does, leaving stdout to the
					 * traced command */
	int last_pass;			/* -p N; 5 when not given */
	/* -l PROBEPOINT (1) / -L PROBEPOINT (2): list the concrete probe
	 * points it matches (with -L their variables) after pass 2 and
	 * stop; 0: not listing */
	int listing;
	const char *list_point;
	int verbose;			/* number of -v */
	bool suppress_warnings;		/* -w */
	bool json;			/* --json */
	bool stacks;			/* --stacks: the log's user stacks */
	bool report;			/* --report: who holds the address
					 * space, printed when tracing ends */
	bool log;			/* --log: the event log too (the
					 * default without --report) */
	/* --profile[=top|folded|svg]: sample the target's threads and
	 * print a profile when tracing ends (profile.h); 0: none, 1: top,
	 * 2: folded, 3: svg */
	int profile;
	bool verify;			/* --verify */
	bool no_seccomp;		/* --no-seccomp */
	bool pin;			/* --pin: maptap and -c's command
					 * on one CPU */
	int events;			/* --events=ptrace|perf|auto (enum
					 * maptap_events_source); -1 not given:
					 * auto for -x, ptrace for -c */
	int maps_source;		/* --maps=auto|query|text (enum maptap_maps_source) */
	unsigned timeout_s;		/* -T SECS; 0 for none */
	struct tr_define *defines;	/* -D */
	int n_defines;
	struct tr_define *globals;	/* -G */
	int n_globals;
	const char **include_dirs;	/* -I DIR: extra tapset directories */
	int n_include_dirs;
	/* How maptap was started (driver_signals_at_start()); NULL: as
	 * the process is now. */
	const struct tr_sigstate *sigstate;
	/* The source tree's tapsets when this program runs from its build
	 * tree (driver_find_uninstalled()), malloc'd; NULL. */
	char *uninstalled_tapsets;
};

/* The signal state maptap was started with
 * (driver_signals_at_start()); pass 5 gives it to the command it
 * launches. */
struct tr_sigstate {
	sigset_t ignored;	/* signals whose disposition was SIG_IGN */
	sigset_t mask;		/* the signal mask */
};

/* The tapset directory, read after the -I ones: $MAPTAP_TAPSET when set
 * and not empty (as SYSTEMTAP_TAPSET is stap's; the testsuite's way to the
 * source tree's tapsets/), else O's uninstalled_tapsets (the program runs
 * from its build tree), else the installed $(pkgdatadir)/tapset.  No
 * path into a source or build tree is compiled in: a root maptap reads
 * only what was installed, what its caller names, or what the build
 * wrote beside the program.  The default log is its maptap/log.stp.  A
 * static, environment or O's string (tapset_load.c).  O may be NULL. */
const char *tr_tapset_dir(const struct tr_options *o);

#endif
