/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report_print.c -- the report as text (docs/report.md) and as JSON Lines
 * (docs/json-schema.md, "The report").  Tables are sorted largest first,
 * ties by first appearance, so that two runs print alike.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "report_state.h"
#include "../common/json.h"

/* One row of a table: an id (site or class) and its bytes. */
struct row {
	uint32_t id;
	uint64_t bytes;
};

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The sites of P with live bytes, largest first; *N of them. */
static struct row *site_rows(const struct rp_proc *p, size_t *n)
{
	struct row *v = malloc((p->nsites + 1) * sizeof(*v));
	size_t i;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < p->nsites; i++)
		if (p->sites[i].live)
			v[(*n)++] = (struct row){ (uint32_t)i,
						  p->sites[i].live };
	qsort(v, *n, sizeof(*v), row_cmp);
	return v;
}

/* The sites of P with bytes at its peak, largest first; *N of them. */
static struct row *peak_rows(const struct rp_proc *p, size_t *n)
{
	struct row *v = malloc((p->nsites + 1) * sizeof(*v));
	size_t i;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < p->nsites; i++) {
		uint64_t b = rp_site_at_peak(p, &p->sites[i]);

		if (b)
			v[(*n)++] = (struct row){ (uint32_t)i, b };
	}
	qsort(v, *n, sizeof(*v), row_cmp);
	return v;
}

static void add_class_bytes(void *arg, const struct rp_node *n)
{
	uint64_t *by = arg;

	by[n->cls] += n->end - n->start;
}

/* The classes of P's live bytes, largest first: modules into *MOD (*NM),
 * anonymous names into *ANON (*NA). */
static int class_rows(const struct maptap_report *r, const struct rp_proc *p,
		      struct row **mod, size_t *nm, struct row **anon,
		      size_t *na)
{
	uint64_t *by = calloc(r->ncls + 1, sizeof(*by));
	size_t i;

	*nm = *na = 0;
	*mod = malloc((r->ncls + 1) * sizeof(**mod));
	*anon = malloc((r->ncls + 1) * sizeof(**anon));
	if (!by || !*mod || !*anon) {
		free(by);
		free(*mod);
		free(*anon);
		*mod = *anon = NULL;
		return -ENOMEM;
	}
	rp_map_walk(&p->map, add_class_bytes, by);
	for (i = 0; i < r->ncls; i++) {
		struct row row = { (uint32_t)i, by[i] };

		if (!by[i])
			continue;
		if (r->cls[i].module)
			(*mod)[(*nm)++] = row;
		else
			(*anon)[(*na)++] = row;
	}
	free(by);
	qsort(*mod, *nm, sizeof(**mod), row_cmp);
	qsort(*anon, *na, sizeof(**anon), row_cmp);
	return 0;
}

static int stream_status(FILE *fp)
{
	if (fflush(fp) != 0 || ferror(fp))
		return errno ? -errno : -EIO;
	return 0;
}

/* The names of enum rp_dl_op: JSON's "op" and the text's. */
static const char *dl_op_json(enum rp_dl_op op)
{
	return op == RP_DL_OPEN ? "dlopen" :
	       op == RP_DL_OPEN_FAILED ? "dlopen_failed" : "dlclose";
}

static const char *dl_op_text(enum rp_dl_op op)
{
	return op == RP_DL_OPEN_FAILED ? "dlopen failed" : dl_op_json(op);
}

/* ---- JSON ---- */

static void json_cstr(FILE *fp, const char *s)
{
	if (s)
		mt_json_str(fp, s, strlen(s));
	else
		fputs("null", fp);
}

static void json_frames(FILE *fp, const struct rp_frame *f, unsigned n)
{
	unsigned i;

	fputc('[', fp);
	for (i = 0; i < n; i++) {
		fprintf(fp, "%s{\"pc\":\"%#" PRIx64 "\",\"symbol\":",
			i ? "," : "", f[i].pc);
		json_cstr(fp, f[i].symbol);
		fprintf(fp, ",\"offset\":%" PRIu64 ",\"module\":", f[i].offset);
		json_cstr(fp, f[i].module);
		fputs(",\"file\":", fp);
		json_cstr(fp, f[i].file);
		fprintf(fp, ",\"line\":%d}", f[i].line);
	}
	fputc(']', fp);
}

static void json_sites(FILE *fp, const struct rp_proc *p,
		       const struct row *v, size_t n)
{
	size_t i;

	fputs(",\"sites\":[", fp);
	for (i = 0; i < n; i++) {
		const struct rp_site *s = &p->sites[v[i].id];

		fprintf(fp, "%s{\"what\":\"%s\",\"bytes\":%" PRIu64
			",\"peak_bytes\":%" PRIu64 ",\"maps\":%" PRIu64
			",\"frames\":", i ? "," : "", rp_what_name(s->what),
			s->live, s->peak, s->maps);
		json_frames(fp, s->frames, s->nframes);
		fputc('}', fp);
	}
	fputc(']', fp);
}

/* "peak_sites": the TOP largest at the peak. */
static int json_peak_sites(FILE *fp, const struct maptap_report *r,
			   const struct rp_proc *p)
{
	size_t n, i;
	struct row *v = peak_rows(p, &n);

	if (!v)
		return -ENOMEM;
	fputs(",\"peak_sites\":[", fp);
	for (i = 0; i < n && i < r->opts.top; i++) {
		const struct rp_site *s = &p->sites[v[i].id];

		fprintf(fp, "%s{\"what\":\"%s\",\"bytes\":%" PRIu64
			",\"frames\":", i ? "," : "", rp_what_name(s->what),
			v[i].bytes);
		json_frames(fp, s->frames, s->nframes);
		fputc('}', fp);
	}
	fputc(']', fp);
	free(v);
	return 0;
}

static void json_classes(FILE *fp, const struct maptap_report *r,
			 const struct row *mod, size_t nm,
			 const struct row *anon, size_t na)
{
	size_t i;

	fputs(",\"modules\":[", fp);
	for (i = 0; i < nm; i++) {
		const struct rp_class *c = &r->cls[mod[i].id];

		fputs(i ? ",{\"path\":" : "{\"path\":", fp);
		json_cstr(fp, c->name);
		fprintf(fp, ",\"kind\":\"%s\",",
			maptap_segment_kind_name(c->kind));
		if (c->anon)
			fputs("\"anon\":true,", fp);
		fprintf(fp, "\"bytes\":%" PRIu64 "}", mod[i].bytes);
	}
	fputs("],\"anon\":[", fp);
	for (i = 0; i < na; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", fp);
		json_cstr(fp, r->cls[anon[i].id].name);
		fprintf(fp, ",\"bytes\":%" PRIu64 "}", anon[i].bytes);
	}
	fputc(']', fp);
}

static void json_dl(FILE *fp, const struct rp_proc *p)
{
	size_t i;

	fputs(",\"dl\":[", fp);
	for (i = 0; i < p->ndl; i++) {
		const struct rp_dl *d = &p->dl[i];

		fprintf(fp, "%s{\"op\":\"%s\",\"time_ns\":%" PRIu64
			",\"tid\":%d,\"path\":", i ? "," : "",
			dl_op_json(d->op), d->time_ns, (int)d->tid);
		json_cstr(fp, d->path);
		fputs(",\"frames\":", fp);
		json_frames(fp, d->frames, d->nframes);
		fputc('}', fp);
	}
	fputc(']', fp);
}

static int json_proc(FILE *fp, const struct maptap_report *r,
		     const struct rp_proc *p)
{
	struct row *sites, *mod, *anon;
	size_t ns, nm, na;

	sites = site_rows(p, &ns);
	if (!sites)
		return -ENOMEM;
	if (class_rows(r, p, &mod, &nm, &anon, &na)) {
		free(sites);
		return -ENOMEM;
	}
	fprintf(fp, "{\"event\":\"report\",\"pid\":%d,\"exe\":", (int)p->pid);
	json_cstr(fp, p->exe);
	fprintf(fp, ",\"state\":\"%s\",",
		p->exited ? "exited" : p->execd ? "exec" : "detached");
	if (p->execd) {
		fputs("\"exec_path\":", fp);
		json_cstr(fp, p->exec_path);
		fputc(',', fp);
	}
	fputs("\"status\":", fp);
	if (p->exited)
		fprintf(fp, "%d", p->status);
	else
		fputs("null", fp);
	fprintf(fp, ",\"live_bytes\":%" PRIu64 ",\"peak_bytes\":%" PRIu64
		",\"peak_time_ns\":%" PRIu64 ",\"incomplete\":%s",
		p->map.bytes, p->peak, p->peak_ns,
		p->incomplete ? "true" : "false");
	json_sites(fp, p, sites, ns);
	if (json_peak_sites(fp, r, p)) {
		free(sites);
		free(mod);
		free(anon);
		return -ENOMEM;
	}
	json_classes(fp, r, mod, nm, anon, na);
	json_dl(fp, p);
	fprintf(fp, ",\"loads_at_start\":%" PRIu64 "}\n", p->loads_at_start);
	free(sites);
	free(mod);
	free(anon);
	return 0;
}

int maptap_report_print_json(struct maptap_report *r, FILE *fp)
{
	size_t i;
	int err;

	if (!r || !fp)
		return -EINVAL;
	for (i = 0; i < r->nprocs; i++) {
		err = json_proc(fp, r, r->procs[i]);
		if (err)
			return err;
	}
	return stream_status(fp);
}

/* ---- text ---- */

/* BYTES in binary units with one decimal ("1.5 MiB"), into BUF. */
static const char *human(uint64_t bytes, char buf[32])
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB",
					    "PiB", "EiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, 32, "%" PRIu64 " B", bytes);
		return buf;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, 32, "%.1f %s", v, unit[u]);
	return buf;
}

static double since(const struct maptap_report *r, uint64_t ns)
{
	uint64_t base = r->opts.base_ns ? r->opts.base_ns : r->first_ns;

	return ns >= base ? (double)(ns - base) / 1e9 :
			    -(double)(base - ns) / 1e9;
}

/* S for a line of text: control bytes as \ooo, as /proc/PID/maps writes
 * a newline in a path (\012), so that one name never breaks the
 * report's lines. */
static void text_str(FILE *fp, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\%03o", c);
		else
			fputc(c, fp);
	}
}

/* One frame as "sym+0xOFF (file:line) [module basename]". */
static void text_frame(FILE *fp, const struct rp_frame *f)
{
	if (f->symbol) {
		text_str(fp, f->symbol);
		fprintf(fp, "+%#" PRIx64, f->offset);
	} else {
		fprintf(fp, "%#" PRIx64, f->pc);
	}
	if (f->file) {
		fputs(" (", fp);
		text_str(fp, f->file);
		fprintf(fp, ":%d)", f->line);
	}
	if (f->module) {
		fputs(" [", fp);
		text_str(fp, rp_basename(f->module));
		fputc(']', fp);
	}
}

static void text_state(FILE *fp, const struct rp_proc *p)
{
	if (!p->exited && p->execd) {
		fputs("replaced by exec of ", fp);
		text_str(fp, p->exec_path ? p->exec_path : "?");
	} else if (!p->exited) {
		fputs("detached", fp);
	} else if (WIFEXITED(p->status)) {
		fprintf(fp, "exited with status %d", WEXITSTATUS(p->status));
	} else if (WIFSIGNALED(p->status)) {
		const char *abbrev = sigabbrev_np(WTERMSIG(p->status));

		if (abbrev)
			fprintf(fp, "killed by SIG%s", abbrev);
		else
			fprintf(fp, "killed by signal %d",
				WTERMSIG(p->status));
	} else {
		fprintf(fp, "ended with wait status %#x", p->status);
	}
}

/* The "... N more: B bytes" line of a table cut at TOP rows. */
static void text_more(FILE *fp, const struct row *v, size_t n, size_t top)
{
	uint64_t rest = 0;
	size_t i;
	char h[32];

	if (n <= top)
		return;
	for (i = top; i < n; i++)
		rest += v[i].bytes;
	fprintf(fp, "    ... %zu more: %" PRIu64 " bytes (%s)\n", n - top,
		rest, human(rest, h));
}

/* One site's name: its pseudo name or its frames. */
static void text_site_name(FILE *fp, const struct rp_site *s)
{
	unsigned j;

	if (s->what != RP_W_CALL)
		fprintf(fp, "[%s]", rp_what_name(s->what));
	for (j = 0; j < s->nframes; j++) {
		if (j)
			fputs(" <- ", fp);
		text_frame(fp, &s->frames[j]);
	}
	fputc('\n', fp);
}

/* Rows of the "at the peak" table: short, the full list is JSON's. */
#define TEXT_PEAK_ROWS 5

/* What held the peak, even sites that hold nothing now. */
static int text_peak_sites(FILE *fp, const struct rp_proc *p)
{
	size_t n, i;
	struct row *v = peak_rows(p, &n);
	char h[32];

	if (!v)
		return -ENOMEM;
	fputs("  at the peak:\n", fp);
	for (i = 0; i < n && i < TEXT_PEAK_ROWS; i++) {
		fprintf(fp, "    %14" PRIu64 " %10s  ", v[i].bytes,
			human(v[i].bytes, h));
		text_site_name(fp, &p->sites[v[i].id]);
	}
	text_more(fp, v, n, TEXT_PEAK_ROWS);
	free(v);
	return 0;
}

static void text_sites(FILE *fp, const struct maptap_report *r,
		       const struct rp_proc *p, const struct row *v, size_t n)
{
	size_t i, top = r->opts.top;

	fputs("  by call site:\n", fp);
	fprintf(fp, "    %14s %14s %8s  %s\n", "BYTES", "PEAK", "MAPS",
		"SITE");
	for (i = 0; i < n && i < top; i++) {
		const struct rp_site *s = &p->sites[v[i].id];

		fprintf(fp, "    %14" PRIu64 " %14" PRIu64 " %8" PRIu64 "  ",
			s->live, s->peak, s->maps);
		text_site_name(fp, s);
	}
	text_more(fp, v, n, top);
}

static void text_classes(FILE *fp, const struct maptap_report *r,
			 const struct row *mod, size_t nm,
			 const struct row *anon, size_t na)
{
	size_t i, top = r->opts.top;
	char h[32];

	fputs("  by module and segment:\n", fp);
	fprintf(fp, "    %14s %10s  %-12s %s\n", "BYTES", "", "KIND",
		"MODULE");
	for (i = 0; i < nm && i < top; i++) {
		const struct rp_class *c = &r->cls[mod[i].id];
		char kind[16];

		snprintf(kind, sizeof(kind), "%s%s",
			 maptap_segment_kind_name(c->kind),
			 c->anon ? "(anon)" : "");
		fprintf(fp, "    %14" PRIu64 " %10s  %-12s ",
			mod[i].bytes, human(mod[i].bytes, h), kind);
		text_str(fp, c->name);
		fputc('\n', fp);
	}
	text_more(fp, mod, nm, top);
	fputs("  by anonymous name:\n", fp);
	fprintf(fp, "    %14s %10s  %s\n", "BYTES", "", "NAME");
	for (i = 0; i < na && i < top; i++) {
		fprintf(fp, "    %14" PRIu64 " %10s  ", anon[i].bytes,
			human(anon[i].bytes, h));
		text_str(fp, r->cls[anon[i].id].name);
		fputc('\n', fp);
	}
	text_more(fp, anon, na, top);
}

static void text_dl(FILE *fp, const struct maptap_report *r,
		    const struct rp_proc *p)
{
	size_t i, top = r->opts.top;
	unsigned j;

	fprintf(fp, "  dlopen/dlclose: %zu; loaded at start: %" PRIu64 "\n",
		p->ndl, p->loads_at_start);
	for (i = 0; i < p->ndl && i < top; i++) {
		const struct rp_dl *d = &p->dl[i];

		fprintf(fp, "    +%.6f s tid %d %s ", since(r, d->time_ns),
			(int)d->tid, dl_op_text(d->op));
		text_str(fp, d->path);
		fputc('\n', fp);
		for (j = 0; j < d->nframes; j++) {
			fputs("        ", fp);
			text_frame(fp, &d->frames[j]);
			fputc('\n', fp);
		}
	}
	if (p->ndl > top)	/* a dlopen loop lists thousands */
		fprintf(fp, "    ... %zu more\n", p->ndl - top);
}

static int text_proc(FILE *fp, const struct maptap_report *r,
		     const struct rp_proc *p)
{
	struct row *sites, *mod, *anon;
	size_t ns, nm, na;
	char h1[32], h2[32];

	sites = site_rows(p, &ns);
	if (!sites)
		return -ENOMEM;
	if (class_rows(r, p, &mod, &nm, &anon, &na)) {
		free(sites);
		return -ENOMEM;
	}
	fprintf(fp, "maptap report: pid %d (", (int)p->pid);
	text_str(fp, p->exe ? p->exe : "?");
	fputs("): ", fp);
	text_state(fp, p);
	fprintf(fp, "%s\n", p->incomplete ?
		" [incomplete: out of memory]" : "");
	fprintf(fp, "  peak %" PRIu64 " bytes (%s) at +%.6f s; live %" PRIu64
		" bytes (%s) in %zu sites\n", p->peak, human(p->peak, h1),
		since(r, p->peak_ns), p->map.bytes, human(p->map.bytes, h2),
		ns);
	text_sites(fp, r, p, sites, ns);
	if (text_peak_sites(fp, p)) {
		free(sites);
		free(mod);
		free(anon);
		return -ENOMEM;
	}
	text_classes(fp, r, mod, nm, anon, na);
	text_dl(fp, r, p);
	free(sites);
	free(mod);
	free(anon);
	return 0;
}

int maptap_report_print_text(struct maptap_report *r, FILE *fp)
{
	size_t i;
	int err;

	if (!r || !fp)
		return -EINVAL;
	for (i = 0; i < r->nprocs; i++) {
		if (i)
			fputc('\n', fp);
		err = text_proc(fp, r, r->procs[i]);
		if (err)
			return err;
	}
	return stream_status(fp);
}
