/* SPDX-License-Identifier: GPL-2.0-or-later */
/* driver.h -- the maptap program's parsed command line, shared by the
 * driver (main.c) and the SystemTap-language front end.
 *
 * Option letters follow stap(1) where stap has one.
 */
#ifndef MAPTAP_DRIVER_H
#define MAPTAP_DRIVER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* One -D NAME[=VALUE] or -G NAME=VALUE. */
struct driver_define {
	const char *name;
	const char *value;	/* NULL when none was given */
};

/* The command line.  Strings point into argv; arrays are malloc'd and
 * owned by the struct (driver_opts_free()). */
struct driver_opts {
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
	struct driver_define *defines;	/* -D */
	int n_defines;
	struct driver_define *globals;	/* -G */
	int n_globals;
	const char **include_dirs;	/* -I DIR: extra tapset directories */
	int n_include_dirs;
	/* How maptap was started (driver_signals_at_start()); NULL: as
	 * the process is now. */
	const struct driver_sigstate *sigstate;
	/* The source tree's tapsets when this program runs from its build
	 * tree (driver_find_uninstalled()), malloc'd; NULL. */
	char *uninstalled_tapsets;
};

/* The signal state maptap was started with. */
struct driver_sigstate {
	sigset_t ignored;	/* signals whose disposition was SIG_IGN */
	sigset_t mask;		/* the signal mask */
};

/* Record in *ST the signal state the process was started with, block
 * those of SIGINT, SIGTERM and SIGHUP that are ignored, so that one sent
 * before pass 5 takes them is held, not dropped, and give an ignored
 * SIGCHLD its default action, so that the kernel tells maptap of its
 * tracees' stops (sigstart.c).  Call it first thing in main().
 * maptap(1), SIGNALS, has the rules. */
void driver_signals_at_start(struct driver_sigstate *st);

/* The tapset directory, read after the -I ones: $MAPTAP_TAPSET when set
 * and not empty (as SYSTEMTAP_TAPSET is stap's; the testsuite's way to the
 * source tree's tapsets/), else O's uninstalled_tapsets (the program runs
 * from its build tree), else the installed $(pkgdatadir)/tapset.  No
 * path into a source or build tree is compiled in: a root maptap reads
 * only what was installed, what its caller names, or what the build
 * wrote beside the program.  The default log is its maptap/log.stp.  A
 * static, environment or O's string (tapset_dir.c).  O may be NULL. */
const char *driver_tapset_dir(const struct driver_opts *o);

/* The name of the file the build writes beside the maptap it built
 * (never installed): one line, the absolute path of the source tree's
 * tapsets/. */
#define DRIVER_UNINSTALLED "maptap-uninstalled"

/* Set O->uninstalled_tapsets from the DRIVER_UNINSTALLED file beside the
 * running executable, when there is one owned by the executable's owner
 * and writable by no one else; else NULL (tapset_dir.c). */
void driver_find_uninstalled(struct driver_opts *o);

/* Run a SystemTap-language script as OPTS says (translator/): parse,
 * elaborate, compile, run up to OPTS->last_pass.  Returns the process exit
 * status: 0 on success, 1 on a script or runtime error (messages already
 * printed to stderr). */
int translator_run(const struct driver_opts *opts);

#endif
