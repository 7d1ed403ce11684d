/* main.c -- the maptap program: command line, the default event log, and
 * the hand-off to the SystemTap-language front end when a script is given.
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
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The log's state, handed to the session's callbacks. */
struct log_ctx {
	FILE *out;
	bool json;
	bool out_failed;
	uint64_t base_ns;
	struct maptap_modules *modules;	/* NULL: no module layer */
};

/* The one piece of process-wide state: a signal handler has no argument,
 * so it finds the session to detach through this pointer (set while
 * maptap_session_run() runs, cleared after). */
static struct maptap_session *volatile signal_session;

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
	      "  -v           more verbose (counts and timings on stderr)\n"
	      "  -w           suppress warnings\n"
	      "  -D NAME[=V]  set a limit (MAXSTRINGLEN, MAXACTION, ...)\n"
	      "  -G NAME=V    set a global variable\n"
	      "  -I DIR       search DIR for tapsets too\n"
	      "  -T SECS      stop after SECS seconds\n"
	      "  -d MODULE, --ldd   accepted for stap compatibility; no effect\n"
	      "  --runtime=dyninst, --dyninst  accepted (maptap's runtime is user\n"
	      "               space); other runtimes are refused\n"
	      "  --json       write events as JSON Lines\n"
	      "  --verify     check the model against /proc/PID/maps after each event\n"
	      "  --maps=SRC   read VMAs with auto, query (PROCMAP_QUERY) or text\n"
	      "  --no-seccomp launch without the seccomp filter (see maptap(1))\n"
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

static int add_define(struct driver_define **v, int *n, char *arg)
{
	struct driver_define *nv = realloc(*v, (size_t)(*n + 1) * sizeof(**v));
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

enum { OPT_JSON = 256, OPT_VERIFY, OPT_MAPS, OPT_NO_SECCOMP, OPT_LDD,
       OPT_RUNTIME, OPT_DYNINST };

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

static int parse_args(int argc, char **argv, struct driver_opts *o,
		      bool *no_seccomp)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "maps", required_argument, NULL, OPT_MAPS },
		{ "no-seccomp", no_argument, NULL, OPT_NO_SECCOMP },
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
	while ((c = getopt_long(argc, argv, "+c:x:e:o:p:vwD:G:I:T:d:hV",
				longopts, NULL)) != -1) {
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
			*no_seccomp = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("maptap %s\n", maptap_version());
			exit(0);
		default:
			usage(stderr);
			return 1;
		}
	}
	if (!o->script_text && optind < argc)
		o->script_file = argv[optind++];
	o->script_args = argv + optind;
	o->n_script_args = argc - optind;
	if (o->target_cmd && o->target_pid)
		return refuse("-c and -x cannot be used together");
	if (!o->script_text && !o->script_file && o->n_script_args)
		return refuse("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* Split CMD into words; hand it to /bin/sh -c when it needs a shell
 * (quotes, expansions, redirections, pipelines, ...). */
static char **split_command(const char *cmd)
{
	static const char shell_chars[] = "|&;<>()$`\\\"'*?[#~=%{}\n";
	size_t n = 0, i;
	char **argv, *copy, *tok, *save;

	if (strpbrk(cmd, shell_chars)) {
		argv = calloc(4, sizeof(*argv));
		if (!argv)
			return NULL;
		argv[0] = "/bin/sh";
		argv[1] = "-c";
		argv[2] = (char *)cmd;
		return argv;
	}
	for (i = 0; cmd[i]; i++)
		if (cmd[i] != ' ' && cmd[i] != '\t' &&
		    (i == 0 || cmd[i - 1] == ' ' || cmd[i - 1] == '\t'))
			n++;
	argv = calloc(n + 1, sizeof(*argv));
	copy = strdup(cmd);
	if (!argv || !copy) {
		free(argv);
		free(copy);
		return NULL;
	}
	n = 0;
	for (tok = strtok_r(copy, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save))
		argv[n++] = tok;
	return argv;
}

static int log_module_event(const struct maptap_module_event *me, void *arg)
{
	struct log_ctx *c = arg;

	if (c->out_failed)
		return 0;
	if (c->json)
		maptap_module_event_print_json(c->out, me);
	else
		maptap_module_event_print_text(c->out, me, c->base_ns);
	return 0;
}

static int log_event(const struct maptap_event *ev, void *arg)
{
	struct log_ctx *c = arg;
	struct maptap_module_desc desc;
	struct maptap_event e = *ev;
	int err;

	/* The module layer opens the mapped files now, while the target is
	 * stopped at this event; its module events come during the call. */
	if (c->modules &&
	    maptap_modules_event(c->modules, ev, &desc, log_module_event, c) == 0 &&
	    desc.has_module)
		e.where = &desc;
	if (c->out_failed)
		return 0;
	err = c->json ? maptap_event_print_json(c->out, &e) :
			maptap_event_print_text(c->out, &e, c->base_ns);
	if (!err && ev->kind >= MAPTAP_EV_ATTACH)
		err = fflush(c->out) ? -errno : 0;
	if (err) {
		/* Keep tracing: the target must run on as untraced. */
		c->out_failed = true;
		fprintf(stderr, "maptap: cannot write the log: %s; tracing goes on silently\n",
			strerror(errno ? errno : EIO));
	}
	return 0;
}

static void log_diag(const char *line, void *arg)
{
	(void)arg;
	fprintf(stderr, "maptap: %s\n", line);
}

static void on_signal(int signo, siginfo_t *si, void *uc)
{
	struct maptap_session *s = signal_session;

	(void)uc;
	if (!s)
		return;
	/* A ^C from the terminal reached a launched command directly (same
	 * process group); only a signal sent to maptap alone is passed on. */
	if (signo == SIGALRM)
		signo = SIGTERM;	/* -T ran out: end a launched command */
	else if (si->si_code == SI_KERNEL)
		signo = 0;
	maptap_session_request_detach(s, signo);
}

static void set_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;	/* no SA_RESTART: waitpid must return */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);	/* -T */
	signal(SIGPIPE, SIG_IGN);
}

static int exit_code_of(int status)
{
	if (status < 0)
		return 0;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

static void print_stats(const struct maptap_session *s)
{
	struct maptap_session_stats st;

	maptap_session_get_stats(s, &st);
	fprintf(stderr,
		"maptap: %llu stops (%llu seccomp, %llu syscall), %llu mapping calls, "
		"%llu range refreshes, %llu full reads, %llu events, %llu verify differences\n",
		(unsigned long long)st.stops, (unsigned long long)st.seccomp_stops,
		(unsigned long long)st.syscall_stops, (unsigned long long)st.map_calls,
		(unsigned long long)st.refreshes, (unsigned long long)st.full_reads,
		(unsigned long long)st.events, (unsigned long long)st.verify_diffs);
}

/* The default log: every event of the target, as text or JSON. */
static int run_log(const struct driver_opts *o, bool no_seccomp)
{
	struct maptap_session_opts so = { 0 };
	struct log_ctx ctx = { 0 };
	struct maptap_session *s;
	char **argv = NULL;
	int err, code = 0;
	pid_t pid;

	if (!o->target_cmd && !o->target_pid)
		return refuse("nothing to trace: give -c 'CMD' or -x PID, or a script");
	ctx.out = stdout;
	if (o->output_file) {
		ctx.out = fopen(o->output_file, "w");
		if (!ctx.out)
			return refuse("cannot open '%s': %s", o->output_file,
				      strerror(errno));
	}
	ctx.json = o->json;
	ctx.base_ns = 0;
	if (maptap_modules_new(NULL, &ctx.modules))
		return refuse("out of memory");
	so.on_event = log_event;
	so.on_diag = log_diag;
	so.arg = &ctx;
	so.maps_source = (enum maptap_maps_source)o->maps_source;
	so.verify = o->verify;
	so.no_seccomp = no_seccomp;
	if (maptap_session_new(&so, &s)) {
		maptap_modules_free(ctx.modules);
		return refuse("out of memory");
	}
	{
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ctx.base_ns = (uint64_t)ts.tv_sec * 1000000000ULL +
			      (uint64_t)ts.tv_nsec;
	}
	if (!ctx.json)
		maptap_event_print_text_header(ctx.out);
	set_signals();
	signal_session = s;
	if (o->target_cmd) {
		argv = split_command(o->target_cmd);
		if (!argv || !argv[0])
			err = -EINVAL;
		else
			err = maptap_session_launch(s, argv, &pid);
		if (err) {
			code = refuse("%s", argv && argv[0] ?
				      maptap_session_errmsg(s) :
				      "-c: the command is empty");
			goto out;
		}
	} else {
		err = maptap_session_attach(s, o->target_pid);
		if (err) {
			code = refuse("%s", maptap_session_errmsg(s));
			goto out;
		}
	}
	if (o->timeout_s)
		alarm(o->timeout_s);
	err = maptap_session_run(s);
	if (err)
		code = refuse("waiting for the target: %s", strerror(-err));
	else if (o->target_cmd)
		code = exit_code_of(maptap_session_exit_status(s));
	if (o->verbose)
		print_stats(s);
out:
	signal_session = NULL;
	fflush(ctx.out);
	maptap_session_free(s);
	maptap_modules_free(ctx.modules);
	if (argv && argv[0] && strcmp(argv[0], "/bin/sh") != 0)
		free(argv[0]);
	free(argv);
	if (ctx.out != stdout)
		fclose(ctx.out);
	return code;
}

int main(int argc, char **argv)
{
	struct driver_opts o;
	bool no_seccomp = false;
	int code;

	code = parse_args(argc, argv, &o, &no_seccomp);
	if (code)
		return code;
	if (o.script_text || o.script_file)
		code = translator_run(&o);
	else
		code = run_log(&o, no_seccomp);
	free(o.defines);
	free(o.globals);
	free(o.include_dirs);
	return code;
}
