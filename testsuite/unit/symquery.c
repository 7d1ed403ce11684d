/* symquery.c -- resolve addresses of a running process with libmaptap's
 * module and symbol layer; the probe the system tests and the benchmark
 * drive.
 *
 *   symquery [-d] [-l] [-n] [-D DEBUGINFO_PATH] PID [ADDR...]
 *
 * Reads /proc/PID/maps once (maptap_modules_sync), then resolves each ADDR
 * (hex, with or without 0x; read from stdin one per line when none is
 * given) and prints one JSON object per address:
 *   {"addr":"0x..","module":{"path":..,"build_id":..,"bias":"0x..",
 *    "type":..},"segment":{"index":N,"kind":..,"p_vaddr":"0x..",
 *    "p_offset":"0x.."},"module_addr":"0x..","func":{"name":..,
 *    "offset":"0x..","size":"0x.."},"data":{...},"file":..,"line":N}
 * with null where nothing resolved.  -d demangles, -l adds file:line,
 * -n prints only the function name (or "??") per line, for benchmarks;
 * -D sets the debuginfo path (maptap_modules_opts.debuginfo_path).
 */
#include <config.h>

#include <maptap/maps.h>
#include <maptap/module.h>
#include <maptap/symbols.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct opts {
	unsigned flags;
	bool names_only;
};

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
		       "\",\"p_offset\":\"0x%" PRIx64 "\"}", si->index,
		       maptap_segment_kind_name(si->kind), si->p_vaddr,
		       si->p_offset);
	else
		fputs("null", stdout);
}

static void resolve(struct maptap_modules *m, pid_t pid, uint64_t addr,
		    const struct opts *o)
{
	struct maptap_sym_info si;
	int rc = maptap_sym_lookup(m, pid, addr, 0, o->flags, &si);

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

static int load(struct maptap_modules *m, pid_t pid)
{
	struct maptap_maps_reader *r;
	struct maptap_vma_buf buf = { 0 };
	int rc = maptap_maps_open(pid, MAPTAP_MAPS_AUTO, &r);

	if (rc)
		return rc;
	rc = maptap_maps_read_all(r, &buf);
	if (!rc)
		rc = maptap_modules_sync(m, pid, buf.v, buf.n, NULL, NULL);
	maptap_vma_buf_free(&buf);
	maptap_maps_close(r);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o = { .flags = MAPTAP_SYM_FUNC | MAPTAP_SYM_DATA };
	struct maptap_modules_opts mo = { 0 };
	struct maptap_modules *m;
	char line[128];
	pid_t pid;
	int c, i, rc;

	while ((c = getopt(argc, argv, "dlnD:")) != -1) {
		switch (c) {
		case 'd':
			o.flags |= MAPTAP_SYM_DEMANGLE;
			break;
		case 'l':
			o.flags |= MAPTAP_SYM_LINE;
			break;
		case 'D':
			mo.debuginfo_path = optarg;
			break;
		case 'n':
			o.names_only = true;
			o.flags = MAPTAP_SYM_FUNC;
			break;
		default:
			fprintf(stderr, "usage: symquery [-d] [-l] [-n] [-D DEBUGINFO_PATH] PID [ADDR...]\n");
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "symquery: no PID\n");
		return 2;
	}
	pid = (pid_t)atoi(argv[optind++]);
	if (maptap_modules_new(&mo, &m) != 0)
		return 1;
	rc = load(m, pid);
	if (rc) {
		fprintf(stderr, "symquery: pid %d: %s\n", (int)pid, strerror(-rc));
		maptap_modules_free(m);
		return 1;
	}
	for (i = optind; i < argc; i++)
		resolve(m, pid, strtoull(argv[i], NULL, 16), &o);
	if (optind == argc)
		while (fgets(line, sizeof(line), stdin))
			resolve(m, pid, strtoull(line, NULL, 16), &o);
	maptap_modules_free(m);
	return 0;
}
