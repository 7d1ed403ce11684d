/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symquery.c -- resolve addresses of a running process with libmaptap's
 * module and symbol layer; the probe the system tests and the benchmark
 * drive.
 *
 * Trace mode shows the integration with a session (what the maptap
 * program is to do) and symbolization after the fact:
 *
 *   symquery -t [-o CHILD_STDOUT] CMD [ARGS...]
 *
 * launches CMD under a session (stdin /dev/null, stdout to CHILD_STDOUT
 * or /dev/null), feeds every event to maptap_modules_event() and prints
 * one JSON line per range event (with its "module" and "segment") and per
 * module event ({"event":"module_load"|"module_unload",...}), then
 * {"event":"end"}.  After the run it reads "PID TIME_NS ADDR" lines from
 * stdin and answers each as below (TIME_NS 0: as mapped at the end).
 *
 *   symquery [-A] [-d] [-l] [-n] [-D DEBUGINFO_PATH] PID [ADDR...]
 *
 * Reads /proc/PID/maps once (maptap_modules_sync_pid()), then resolves
 * each ADDR (hex, with or without 0x; read from stdin one per line when
 * none is given) and prints one JSON object per address:
 *   {"addr":"0x..","module":{"path":..,"build_id":..,"bias":"0x..",
 *    "type":..},"segment":{"index":N,"kind":..,"p_vaddr":"0x..",
 *    "p_offset":"0x.."},"module_addr":"0x..","func":{"name":..,
 *    "offset":"0x..","size":"0x.."},"data":{...},"file":..,"line":N}
 * with null where nothing resolved.  -d demangles, -l adds file:line,
 * -n prints only the function name (or "??") per line, for benchmarks;
 * -v reports lookup times and index sizes on stderr (addresses on stdin);
 * -D sets the debuginfo path (maptap_modules_opts.debuginfo_path);
 * -A hides the name of the [vdso] VMA before the sync (as a kernel or a
 * maps source without names of special mappings shows it), so that the
 * vdso is found through AT_SYSINFO_EHDR only.
 */
#include <config.h>

#include <maptap/maps.h>
#include <maptap/module.h>
#include <maptap/session.h>
#include <maptap/symbols.h>

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct opts {
	unsigned flags;
	bool names_only;
	bool verbose;
	bool nameless_vdso;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* -v: how long the first lookup (which builds the symbol indexes it
 * needs) and the rest took, and what the indexes hold. */
static void report(struct maptap_modules *m, uint64_t first_ns,
		   uint64_t rest_ns, unsigned long n)
{
	struct maptap_sym_stats st;

	maptap_sym_get_stats(m, &st);
	fprintf(stderr, "symquery: first lookup %.3f ms; %lu more in %.3f ms "
		"(%.3f us each); %llu files indexed, %llu symbols, %llu "
		"bytes of index\n", first_ns / 1e6, n ? n - 1 : 0,
		rest_ns / 1e6, n > 1 ? rest_ns / 1e3 / (double)(n - 1) : 0.0,
		(unsigned long long)st.indexed_files,
		(unsigned long long)st.symbols,
		(unsigned long long)st.index_bytes);
}

static void json_str(const char *s)
{
	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_sym(const char *key, const struct maptap_sym *s)
{
	printf(",\"%s\":", key);
	if (!s->name) {
		fputs("null", stdout);
		return;
	}
	fputs("{\"name\":", stdout);
	json_str(s->name);
	printf(",\"addr\":\"0x%" PRIx64 "\",\"offset\":\"0x%" PRIx64
	       "\",\"size\":\"0x%" PRIx64 "\"}", s->addr, s->offset, s->size);
}

static void json_where(const struct maptap_module_desc *d)
{
	const struct maptap_module_info *mi = &d->module;
	const struct maptap_segment_info *si = &d->segment;

	fputs(",\"module\":", stdout);
	if (d->has_module) {
		fputs("{\"path\":", stdout);
		json_str(mi->path);
		fputs(",\"build_id\":", stdout);
		json_str(mi->build_id);
		printf(",\"bias\":\"0x%" PRIx64 "\",\"type\":\"%s\"}", mi->bias,
		       maptap_module_type_name(mi->type));
	} else {
		fputs("null", stdout);
	}
	fputs(",\"segment\":", stdout);
	if (d->has_segment)
		printf("{\"index\":%d,\"kind\":\"%s\",\"p_vaddr\":\"0x%" PRIx64
		       "\",\"p_offset\":\"0x%" PRIx64 "\"%s}", si->index,
		       maptap_segment_kind_name(si->kind), si->p_vaddr,
		       si->p_offset, d->anon ? ",\"anon\":true" : "");
	else
		fputs("null", stdout);
}

static void resolve_at(struct maptap_modules *m, pid_t pid, uint64_t addr,
		       uint64_t time_ns, const struct opts *o)
{
	struct maptap_sym_info si;
	int rc = maptap_sym_lookup(m, pid, addr, time_ns, o->flags, &si);

	if (o->names_only) {
		puts(rc == 0 && si.func.name ? si.func.name : "??");
		return;
	}
	printf("{\"addr\":\"0x%" PRIx64 "\"", addr);
	json_where(&si.where);
	printf(",\"module_addr\":");
	if (rc == 0)
		printf("\"0x%" PRIx64 "\"", si.module_addr);
	else
		fputs("null", stdout);
	json_sym("func", &si.func);
	json_sym("data", &si.data);
	fputs(",\"file\":", stdout);
	json_str(si.src_file);
	printf(",\"line\":%d}\n", si.src_line);
}

static void resolve(struct maptap_modules *m, pid_t pid, uint64_t addr,
		    const struct opts *o)
{
	resolve_at(m, pid, addr, 0, o);
}

/* -A: show the vdso as nameless anonymous memory, as a maps source
 * without the names of special mappings would. */
static void drop_vdso_name(struct maptap_vma_buf *buf)
{
	size_t i;

	for (i = 0; i < buf->n; i++) {
		if (buf->v[i].kind != MAPTAP_VMA_VDSO)
			continue;
		buf->v[i].kind = MAPTAP_VMA_ANON;
		buf->v[i].name = "";
		buf->v[i].name_len = 0;
	}
}

/* The address space of PID into M; with -A, a snapshot doctored first
 * (the only reason this reads the maps itself). */
static int load(struct maptap_modules *m, pid_t pid, const struct opts *o)
{
	struct maptap_maps_reader *r;
	struct maptap_vma_buf buf = { 0 };
	int rc;

	if (!o->nameless_vdso)
		return maptap_modules_sync_pid(m, pid, MAPTAP_MAPS_AUTO);
	rc = maptap_maps_open(pid, MAPTAP_MAPS_AUTO, &r);
	if (rc)
		return rc;
	rc = maptap_maps_read_all(r, &buf);
	if (!rc) {
		drop_vdso_name(&buf);
		rc = maptap_modules_sync(m, pid, buf.v, buf.n, NULL, NULL);
	}
	maptap_vma_buf_free(&buf);
	maptap_maps_close(r);
	return rc;
}

/* Time N lookups of A[] with nothing printed (ns in all). */
static uint64_t lookup_only(struct maptap_modules *m, pid_t pid,
			    const uint64_t *a, size_t n, unsigned flags)
{
	struct maptap_sym_info si;
	uint64_t t0 = now_ns();
	size_t i, named = 0;

	for (i = 0; i < n; i++)
		if (maptap_sym_lookup(m, pid, a[i], 0, flags, &si) == 0 &&
		    si.func.name)
			named++;
	if (named > n)		/* keeps the loop from being optimized out */
		fputs("", stderr);
	return now_ns() - t0;
}

/* Addresses from stdin, read in full first so that -v times lookups
 * and printing, not the pipe. */
static void resolve_stdin(struct maptap_modules *m, pid_t pid,
			  const struct opts *o)
{
	uint64_t *a = NULL, t0, t1 = 0, t2;
	size_t n = 0, cap = 0, i;
	char line[128];

	while (fgets(line, sizeof(line), stdin)) {
		if (n == cap) {
			uint64_t *na;

			cap = cap ? 2 * cap : 1024;
			na = realloc(a, cap * sizeof(*a));
			if (!na)
				break;
			a = na;
		}
		a[n++] = strtoull(line, NULL, 16);
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		resolve(m, pid, a[i], o);
		if (i == 0)
			t1 = now_ns();
	}
	t2 = now_ns();
	if (o->verbose && n) {
		report(m, t1 - t0, t2 - t1, (unsigned long)n);
		fprintf(stderr, "symquery: again without printing: %.3f us each\n",
			lookup_only(m, pid, a, n, o->flags) / 1e3 / (double)n);
	}
	free(a);
}

/* ---- trace mode ---- */

struct trace {
	struct maptap_modules *m;
	unsigned flags;
};

static int print_module_event(const struct maptap_module_event *me,
			      void *arg)
{
	printf("{\"event\":\"%s\",\"pid\":%d,\"time_ns\":%" PRIu64
	       ",\"path\":",
	       me->kind == MAPTAP_MODULE_LOAD ? "module_load" : "module_unload",
	       (int)me->pid, me->time_ns);
	json_str(me->module->path);
	fputs(",\"build_id\":", stdout);
	json_str(me->module->build_id);
	printf(",\"bias\":\"0x%" PRIx64 "\",\"type\":\"%s\"}\n",
	       me->module->bias, maptap_module_type_name(me->module->type));
	return 0;
}

static int on_event(const struct maptap_event *ev, void *arg)
{
	struct trace *tr = arg;
	struct maptap_module_desc d;
	int rc = maptap_modules_event(tr->m, ev, &d, print_module_event, tr);

	if (rc)
		fprintf(stderr, "symquery: module layer: %s\n", strerror(-rc));
	if (!maptap_event_is_range(ev->kind))
		return 0;
	printf("{\"event\":\"%s\",\"pid\":%d,\"time_ns\":%" PRIu64
	       ",\"start\":\"0x%" PRIx64 "\",\"end\":\"0x%" PRIx64 "\"",
	       maptap_event_kind_name(ev->kind), (int)ev->pid, ev->time_ns,
	       ev->vma.start, ev->vma.end);
	json_where(&d);
	puts("}");
	return 0;
}

/* Run ARGV under a session with the child's stdin from /dev/null and
 * stdout to OUT; the caller's own stdin and stdout are kept. */
static int trace_run(struct trace *tr, char **argv, const char *out)
{
	struct maptap_session_opts so = { .on_event = on_event, .arg = tr };
	struct maptap_session *s;
	int save_in = dup(0), save_out = dup(1), in, o, rc;
	pid_t pid;

	fflush(stdout);
	in = open("/dev/null", O_RDONLY);
	o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || o < 0 || maptap_session_new(&so, &s) != 0)
		return -1;
	dup2(in, 0);
	dup2(o, 1);
	rc = maptap_session_launch(s, argv, &pid);
	dup2(save_in, 0);
	dup2(save_out, 1);
	close(in);
	close(o);
	close(save_in);
	close(save_out);
	if (!rc)
		rc = maptap_session_run(s);
	if (rc)
		fprintf(stderr, "symquery: %s\n", maptap_session_errmsg(s));
	maptap_session_free(s);
	puts("{\"event\":\"end\"}");
	fflush(stdout);
	return rc;
}

static void trace_queries(struct maptap_modules *m, const struct opts *o)
{
	char line[256];
	unsigned long long t, a;
	int pid;

	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "%d %llu %llx", &pid, &t, &a) != 3)
			continue;
		resolve_at(m, pid, a, t, o);
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	struct opts o = { .flags = MAPTAP_SYM_FUNC | MAPTAP_SYM_DATA };
	struct maptap_modules_opts mo = { 0 };
	struct maptap_modules *m;
	const char *child_out = NULL;
	bool trace = false;
	pid_t pid;
	int c, i, rc;

	while ((c = getopt(argc, argv, "+AdlnvD:to:")) != -1) {
		switch (c) {
		case 'A':
			o.nameless_vdso = true;
			break;
		case 'd':
			o.flags |= MAPTAP_SYM_DEMANGLE;
			break;
		case 'l':
			o.flags |= MAPTAP_SYM_LINE;
			break;
		case 'D':
			mo.debuginfo_path = optarg;
			break;
		case 't':
			trace = true;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'o':
			child_out = optarg;
			break;
		case 'n':
			o.names_only = true;
			o.flags = MAPTAP_SYM_FUNC;
			break;
		default:
			fprintf(stderr, "usage: symquery [-Adlnv] [-D PATH] PID [ADDR...]\n"
				"       symquery -t [-o FILE] CMD [ARGS...]\n");
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "symquery: no PID\n");
		return 2;
	}
	if (maptap_modules_new(&mo, &m) != 0)
		return 1;
	if (trace) {
		struct trace tr = { .m = m, .flags = o.flags };

		rc = trace_run(&tr, argv + optind, child_out);
		trace_queries(m, &o);
		maptap_modules_free(m);
		return rc ? 1 : 0;
	}
	pid = (pid_t)atoi(argv[optind++]);
	rc = load(m, pid, &o);
	if (rc) {
		fprintf(stderr, "symquery: pid %d: %s\n", (int)pid, strerror(-rc));
		maptap_modules_free(m);
		return 1;
	}
	for (i = optind; i < argc; i++)
		resolve(m, pid, strtoull(argv[i], NULL, 16), &o);
	if (optind == argc)
		resolve_stdin(m, pid, &o);
	maptap_modules_free(m);
	return 0;
}
