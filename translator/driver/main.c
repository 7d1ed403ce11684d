/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c -- the maptap program: the command line, and the hand-off to the
 * SystemTap-language front end: the user's script, or without one the
 * default event log, itself a script (tapsets/maptap/log.stp).
 *
 * With --report the run also keeps maptap/report.h's report (target.c),
 * printed when tracing ends; without --log and without a script nothing
 * else runs on the target's events.
 *
 * Exit status: the launched command's own (128+N when killed by signal N)
 * with -c; 0 after a clean run or detach with -x; 1 for a refused input,
 * a script error or a runtime error (one line on stderr says which).
 */
#include <config.h>

#include "driver.h"

#include <maptap/maptap.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *fp)
{
	fputs("Usage: maptap [OPTIONS] [SCRIPT.stp [ARGS...] | -e 'SCRIPT' [ARGS...]]\n"
	      "              [-x PID | -c 'CMD ARGS']\n"
	      "Without a script, log every address-space event of the target.\n"
	      "  -c CMD       launch CMD (no shell unless it needs one) and trace it\n"
	      "  -x PID       attach to every thread of process PID\n"
	      "  -e SCRIPT    run SCRIPT (SystemTap language)\n"
	      "  -o FILE      write output to FILE\n"
	      "  -p N         stop after pass N (1 parse, 2 elaborate, 3 compile, 5 run)\n"
	      "  -l PROBE     list the probe points PROBE matches, one a line\n"
	      "  -L PROBE     the same, with their variables and types\n"
	      "  -v           more verbose (counts and timings on stderr)\n"
	      "  -w           suppress warnings\n"
	      "  -D NAME[=V]  set a limit (MAXSTRINGLEN, MAXACTION, ...)\n"
	      "  -G NAME=V    set a global variable\n"
	      "  -I DIR       search DIR for tapsets too\n"
	      "  -T SECS      stop after SECS seconds\n"
	      "  -d MODULE, --ldd   accepted for stap compatibility; no effect\n"
	      "  --runtime=dyninst, --dyninst  accepted (maptap's runtime is user\n"
	      "               space); other runtimes are refused\n"
	      "  --json       write events and the report as JSON Lines\n"
	      "  --stacks     log the user stack of each mapping call\n"
	      "  --report     when tracing ends, print who holds the address space\n"
	      "               (by call site, module, anonymous name; the peak;\n"
	      "               dlopen/dlclose), instead of the log\n"
	      "  --log        the event log (the default); with --report, both\n"
	      "  --profile[=top|folded|svg]  sample the target's threads (perf\n"
	      "               events) and print the functions by samples, the\n"
	      "               folded stacks, or a flame graph (SVG; use -o)\n"
	      "  --verify     check the model against /proc/PID/maps after each event\n"
	      "  --maps=SRC   read VMAs with auto, query (PROCMAP_QUERY) or text\n"
	      "  --no-seccomp launch without the seccomp filter (see maptap(1))\n"
	      "  --pin        run maptap and the -c command on one CPU (faster\n"
	      "               for a map-heavy single-threaded command when that\n"
	      "               CPU is free; see maptap(1))\n"
	      "  --events=SRC where address-space changes come from: ptrace (stops),\n"
	      "               perf (perf events; the target never stops) or auto\n"
	      "               (perf where possible; the default for -x)\n"
	      "  -h, --help   this text;  -V, --version  the version\n", fp);
}

static int refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int refuse(const char *fmt, ...)
{
	va_list ap;

	fputs("maptap: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static int add_define(struct tr_define **v, int *n, char *arg)
{
	struct tr_define *nv = realloc(*v, (size_t)(*n + 1) * sizeof(**v));
	char *eq;

	if (!nv)
		return -ENOMEM;
	*v = nv;
	eq = strchr(arg, '=');
	if (eq)
		*eq = '\0';
	nv[*n].name = arg;
	nv[*n].value = eq ? eq + 1 : NULL;
	(*n)++;
	return 0;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

enum { OPT_JSON = 256, OPT_VERIFY, OPT_MAPS, OPT_NO_SECCOMP, OPT_EVENTS, OPT_LDD,
       OPT_RUNTIME, OPT_DYNINST, OPT_STACKS, OPT_REPORT, OPT_LOG,
       OPT_PROFILE, OPT_PIN };

/* stap(1) --runtime=MODE: kernel (stap's default), dyninst or bpf.
 * maptap's runtime is in user space, the one stap calls dyninst, and the
 * tapsets are already read for it; the others are refused. */
static int check_runtime(const char *mode)
{
	if (strcmp(mode, "dyninst") == 0)
		return 0;
	return refuse("--runtime=%s: maptap runs scripts in user space, as "
		      "stap's dyninst runtime does; only --runtime=dyninst "
		      "is accepted", mode);
}

static const char shortopts[] = ":c:x:e:o:p:vwD:G:I:T:d:l:L:hV";

/* A usage error: what was wrong in one line, in getopt's words but
 * naming maptap (not argv[0]), then where the usage is, as stap and strace
 * say it.  C is getopt_long()'s ':' (missing argument) or '?'; optopt is
 * the short option, 0 for an unknown long one, or the value of a long one
 * given an argument it does not take (a known option: only a long one can
 * be refused so). */
static int bad_option(int c, char **argv)
{
	const char *arg = argv[optind - 1];
	bool is_long = optopt == 0 || optopt >= 256;
	bool known = optopt >= 256 ||
		     (optopt > 0 && strchr(shortopts + 1, optopt));

	if (c == ':' && is_long)
		fprintf(stderr, "maptap: option '%s' requires an argument\n", arg);
	else if (c == ':')
		fprintf(stderr, "maptap: option requires an argument -- '%c'\n",
			optopt);
	else if (known)
		fprintf(stderr, "maptap: option '%.*s' doesn't allow an argument\n",
			(int)strcspn(arg, "="), arg);
	else if (is_long)
		fprintf(stderr, "maptap: unrecognized option '%s'\n", arg);
	else
		fprintf(stderr, "maptap: invalid option -- '%c'\n", optopt);
	fputs("Try 'maptap --help' for more information.\n", stderr);
	return 1;
}

static int parse_args(int argc, char **argv, struct tr_options *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "stacks", no_argument, NULL, OPT_STACKS },
		{ "report", no_argument, NULL, OPT_REPORT },
		{ "log", no_argument, NULL, OPT_LOG },
		{ "profile", optional_argument, NULL, OPT_PROFILE },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "maps", required_argument, NULL, OPT_MAPS },
		{ "no-seccomp", no_argument, NULL, OPT_NO_SECCOMP },
		{ "pin", no_argument, NULL, OPT_PIN },
		{ "events", required_argument, NULL, OPT_EVENTS },
		{ "ldd", no_argument, NULL, OPT_LDD },
		{ "runtime", required_argument, NULL, OPT_RUNTIME },
		{ "dyninst", no_argument, NULL, OPT_DYNINST },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->last_pass = 5;
	o->events = -1;
	opterr = 0;	/* bad_option() says it, naming maptap */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->target_cmd = optarg;
			break;
		case 'x':
			if (parse_long(optarg, 1, INT_MAX, &v))
				return refuse("-x: '%s' is not a process id", optarg);
			o->target_pid = (pid_t)v;
			break;
		case 'e':
			o->script_text = optarg;
			break;
		case 'o':
			o->output_file = optarg;
			break;
		case 'p':
			if (parse_long(optarg, 1, 5, &v))
				return refuse("-p: '%s' is not a pass number (1-5)", optarg);
			o->last_pass = (int)v;
			break;
		case 'l':
		case 'L':
			o->listing = c == 'l' ? 1 : 2;
			o->list_point = optarg;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'w':
			o->suppress_warnings = true;
			break;
		case 'D':
			if (add_define(&o->defines, &o->n_defines, optarg))
				return refuse("out of memory");
			break;
		case 'G':
			if (!strchr(optarg, '='))
				return refuse("-G: '%s' is not NAME=VALUE", optarg);
			if (add_define(&o->globals, &o->n_globals, optarg))
				return refuse("out of memory");
			break;
		case 'I': {
			const char **nv = realloc(o->include_dirs,
				(size_t)(o->n_include_dirs + 1) * sizeof(*nv));
			if (!nv)
				return refuse("out of memory");
			o->include_dirs = nv;
			nv[o->n_include_dirs++] = optarg;
			break;
		}
		case 'T':
			if (parse_long(optarg, 1, INT_MAX, &v))
				return refuse("-T: '%s' is not a number of seconds", optarg);
			o->timeout_s = (unsigned)v;
			break;
		case 'd':
		case OPT_LDD:
			break;	/* every mapped module always has symbols */
		case OPT_RUNTIME:
			if (check_runtime(optarg))
				return 1;
			break;
		case OPT_DYNINST:
			break;	/* stap's shorthand for --runtime=dyninst */
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_STACKS:
			o->stacks = true;
			break;
		case OPT_REPORT:
			o->report = true;
			break;
		case OPT_LOG:
			o->log = true;
			break;
		case OPT_PROFILE:
			if (!optarg || strcmp(optarg, "top") == 0)
				o->profile = 1;
			else if (strcmp(optarg, "folded") == 0)
				o->profile = 2;
			else if (strcmp(optarg, "svg") == 0)
				o->profile = 3;
			else
				return refuse("--profile: '%s' is not top, "
					      "folded or svg", optarg);
			break;
		case OPT_VERIFY:
			o->verify = true;
			break;
		case OPT_MAPS:
			if (strcmp(optarg, "auto") == 0)
				o->maps_source = MAPTAP_MAPS_AUTO;
			else if (strcmp(optarg, "query") == 0)
				o->maps_source = MAPTAP_MAPS_QUERY;
			else if (strcmp(optarg, "text") == 0)
				o->maps_source = MAPTAP_MAPS_TEXT;
			else
				return refuse("--maps: '%s' is not auto, query or text", optarg);
			break;
		case OPT_NO_SECCOMP:
			o->no_seccomp = true;
			break;
		case OPT_PIN:
			o->pin = true;
			break;
		case OPT_EVENTS:
			if (strcmp(optarg, "ptrace") == 0)
				o->events = MAPTAP_EVENTS_PTRACE;
			else if (strcmp(optarg, "perf") == 0)
				o->events = MAPTAP_EVENTS_PERF;
			else if (strcmp(optarg, "auto") == 0)
				o->events = MAPTAP_EVENTS_AUTO;
			else
				return refuse("--events: '%s' is not ptrace, perf or auto", optarg);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("maptap %s\n", maptap_version());
			fputs("License GPL-2.0-or-later (libmaptap: "
			      "LGPL-2.1-or-later): COPYING, COPYING.LIB.\n"
			      "This is free software; see the source for "
			      "copying conditions.  There is NO\n"
			      "warranty; not even for MERCHANTABILITY or "
			      "FITNESS FOR A PARTICULAR PURPOSE.\n", stdout);
			exit(0);
		default:
			return bad_option(c, argv);
		}
	}
	if (!o->script_text && optind < argc)
		o->script_file = argv[optind++];
	o->script_args = argv + optind;
	o->n_script_args = argc - optind;
	if (o->target_cmd && o->target_pid)
		return refuse("-c and -x cannot be used together");
	if (o->listing && (o->script_text || o->script_file))
		return refuse("-%c lists probe points: give no script with it",
			      o->listing == 1 ? 'l' : 'L');
	if (o->pin && !o->target_cmd)
		return refuse("--pin is for a command maptap launches: give -c 'CMD'");
	if (!o->script_text && !o->script_file && o->n_script_args)
		return refuse("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* Without a script: run the log script on the target.  --json sets its
 * json global; MAXSTRINGLEN is raised so that no path is cut short
 * (a -D of the user's comes later and wins). */
static int run_log(struct tr_options *o)
{
	static char json_on[] = "json=1";
	static char stacks_on[] = "stacks=1";
	struct tr_define *d;
	char log[PATH_MAX];

	if (!o->target_cmd && !o->target_pid)
		return refuse("nothing to trace: give -c 'CMD' or -x PID, or a script");
	/* The default log is a script of the tapset directory's. */
	if (snprintf(log, sizeof(log), "%s/maptap/log.stp",
		     tr_tapset_dir(o)) >= (int)sizeof(log))
		return refuse("MAPTAP_TAPSET: path too long");
	o->script_file = log;
	if (o->json && add_define(&o->globals, &o->n_globals, json_on))
		return refuse("out of memory");
	if (o->stacks && add_define(&o->globals, &o->n_globals, stacks_on))
		return refuse("out of memory");
	d = realloc(o->defines, (size_t)(o->n_defines + 1) * sizeof(*d));
	if (!d)
		return refuse("out of memory");
	memmove(d + 1, d, (size_t)o->n_defines * sizeof(*d));
	o->defines = d;
	o->n_defines++;
	d[0].name = "MAXSTRINGLEN";
	d[0].value = "65536";
	return translator_run(o);
}

/* --report alone: a script with no probe that ever fires.  The target
 * is traced as for any script (target.c feeds the report every event),
 * but no event runs script code: the report pays only for its own
 * accounting and stacks, not for the log's formatting.  Nothing is
 * parsed from the tapsets but what this line names. */
static int run_report_only(struct tr_options *o)
{
	o->script_text = "probe never {}";
	return translator_run(o);
}

/* Every run reads the tapset directory (the default log is one of its
 * scripts): one line when it is not there, rather than a script that
 * cannot find its probes. */
static int check_tapset_dir(const struct tr_options *o)
{
	const char *dir = tr_tapset_dir(o);
	struct stat st;

	if (stat(dir, &st) != 0)
		return refuse("tapset directory %s: %s (not installed? "
			      "MAPTAP_TAPSET names another, see maptap(1))",
			      dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return refuse("tapset directory %s: not a directory", dir);
	return 0;
}

/* Combinations of options that cannot mean anything; one line each. */
static int check_modes(const struct tr_options *o)
{
	bool script = o->script_text || o->script_file;

	if (o->report && !o->target_cmd && !o->target_pid)
		return refuse("--report needs a process to report on: give "
			      "-c 'CMD' or -x PID");
	if (o->profile && !o->target_cmd && !o->target_pid)
		return refuse("--profile needs a process to sample: give "
			      "-c 'CMD' or -x PID");
	if (o->profile && o->last_pass < 5)
		return refuse("--profile samples the target while it runs "
			      "(pass 5); -p %d stops before", o->last_pass);
	if (o->report && o->last_pass < 5)
		return refuse("--report is made while the target runs (pass "
			      "5); -p %d stops before", o->last_pass);
	if (script && o->log)
		return refuse("--log is the default event log; a script "
			      "prints its own output");
	if (script && o->stacks)
		return refuse("--stacks is for the log; a script calls the "
			      "maptap_uframe* functions itself");
	if (o->report && !o->log && o->stacks)
		return refuse("--stacks is for the log: give --log with "
			      "--report to get both");
	return 0;
}

/* The user's script, the log, or with --report or --profile alone
 * nothing but the report or the profile. */
static int run(struct tr_options *o)
{
	static char text[8192];

	if (o->listing) {
		/* stap's way: the point as an optional probe, pass 2 only */
		if (snprintf(text, sizeof(text), "probe %s ? {}",
			     o->list_point) >= (int)sizeof(text))
			return refuse("-l: probe point too long");
		o->script_text = text;
		o->last_pass = 2;
		return translator_run(o);
	}
	if (o->script_text || o->script_file)
		return translator_run(o);
	o->own_output = true;
	if ((o->report || o->profile) && !o->log)
		return run_report_only(o);
	return run_log(o);
}

/* --pin: this thread (maptap, before it starts anything) on the CPU it
 * runs on now, which the command launched by fork(2) inherits
 * (sched_setaffinity(2)): a stop then needs no wake-up of another CPU
 * (issue 16; docs/tracer.md, "Pinning").  Returns 0 or 1 with a
 * message. */
static int pin_to_cpu(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return refuse("--pin: cannot tell which CPU maptap runs on: %s",
			      strerror(errno));
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		return refuse("--pin: cannot pin to CPU %d: %s", cpu,
			      strerror(errno));
	return 0;
}

int main(int argc, char **argv)
{
	struct tr_sigstate sigstate;
	struct tr_options o;
	int code;

	driver_signals_at_start(&sigstate);
	code = parse_args(argc, argv, &o);
	if (code)
		return code;
	o.sigstate = &sigstate;
	driver_find_uninstalled(&o);
	/* A pid that does not exist is refused before anything runs or is
	 * written: no begin probe, no log header, no -o file truncated (the
	 * attach itself reports every other refusal). */
	if (o.target_pid && kill(o.target_pid, 0) != 0 && errno == ESRCH)
		code = refuse("no such process: %d", (int)o.target_pid);
	else
		code = check_tapset_dir(&o);
	if (!code)
		code = check_modes(&o);
	if (!code && o.pin)
		code = pin_to_cpu();
	if (!code)
		code = run(&o);
	free(o.defines);
	free(o.globals);
	free(o.include_dirs);
	free(o.uninstalled_tapsets);
	return code;
}
