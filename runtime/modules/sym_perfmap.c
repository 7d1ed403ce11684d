/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sym_perfmap.c -- JIT code described by /tmp/perf-PID.map.
 *
 * A JIT (V8, LuaJIT, the JVM with perf-map-agent, CPython 3.12 -X perf)
 * writes one line per function it emits: "START SIZE NAME", START and SIZE
 * in hex without 0x (the convention of Linux's tools/perf, documented in
 * tools/perf/Documentation/jit-interface.txt).  PID is the process's pid
 * in its own pid namespace and /tmp is its own /tmp, so the file is read
 * as /proc/PID/root/tmp/perf-NSPID.map (NSPID: the last field of NSpid in
 * /proc/PID/status).  The file only grows; it is re-read from where the
 * last read stopped whenever its size has grown.  A later line for the
 * same START replaces an earlier one (code regenerated in place).
 */
#include <config.h>

#include "module_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct perf_entry {
	uint64_t start, end;
	uint32_t seq;		/* line number: later lines win */
	char *name;
};

struct mt_perfmap {
	char *path;
	off_t done;		/* bytes parsed so far (whole lines) */
	struct perf_entry *e;
	size_t n, cap;
	uint32_t lines;
	char *display;		/* "/tmp/perf-NSPID.map" for module.path */
	struct maptap_module_info info;
};

void mt_perfmap_free(struct mt_perfmap *pm)
{
	size_t i;

	if (!pm)
		return;
	for (i = 0; i < pm->n; i++)
		free(pm->e[i].name);
	free(pm->e);
	free(pm->path);
	free(pm->display);
	free(pm);
}

/* The pid of PID inside its own pid namespace, or PID itself. */
static long ns_pid(pid_t pid)
{
	char path[40], line[256];
	long ns = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return ns;
	while (fgets(line, sizeof(line), f)) {
		char *p, *end;

		if (strncmp(line, "NSpid:", 6) != 0)
			continue;
		for (p = line + 6; *p; p = end) {
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			ns = v;
		}
		break;
	}
	fclose(f);
	return ns;
}

static struct mt_perfmap *perfmap_new(pid_t pid)
{
	struct mt_perfmap *pm = calloc(1, sizeof(*pm));
	long ns = ns_pid(pid);

	if (!pm)
		return NULL;
	if (asprintf(&pm->path, "/proc/%d/root/tmp/perf-%ld.map", (int)pid,
		     ns) < 0)
		pm->path = NULL;
	if (asprintf(&pm->display, "/tmp/perf-%ld.map", ns) < 0)
		pm->display = NULL;
	if (!pm->path || !pm->display) {
		mt_perfmap_free(pm);
		return NULL;
	}
	pm->info.path = pm->display;
	pm->info.type = MAPTAP_MODULE_JIT;
	return pm;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct perf_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Parse one line; a malformed one is skipped. */
static int add_line(struct mt_perfmap *pm, char *line)
{
	unsigned long long start, size;
	int name_at = 0;
	struct perf_entry *e;
	size_t len;

	if (sscanf(line, "%llx %llx %n", &start, &size, &name_at) < 2 ||
	    !name_at || size == 0 || start + size < start)
		return 0;
	len = strcspn(line + name_at, "\n");
	if (pm->n == pm->cap) {
		size_t cap = pm->cap ? 2 * pm->cap : 64;
		struct perf_entry *ne = realloc(pm->e, cap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		pm->e = ne;
		pm->cap = cap;
	}
	e = &pm->e[pm->n];
	e->name = strndup(line + name_at, len);
	if (!e->name)
		return -ENOMEM;
	e->start = start;
	e->end = start + size;
	e->seq = pm->lines;
	pm->n++;
	return 0;
}

/* Read what was appended since the last read (whole lines only). */
static void perfmap_refresh(struct mt_perfmap *pm)
{
	char line[4096];
	struct stat st;
	FILE *f;

	if (stat(pm->path, &st) != 0 || st.st_size <= pm->done)
		return;
	f = fopen(pm->path, "re");
	if (!f)
		return;
	if (fseeko(f, pm->done, SEEK_SET) == 0) {
		while (fgets(line, sizeof(line), f)) {
			size_t len = strlen(line);

			if (len == 0 || line[len - 1] != '\n')
				break;	/* a line still being written */
			pm->done += (off_t)len;
			pm->lines++;
			if (add_line(pm, line) != 0)
				break;
		}
	}
	fclose(f);
	qsort(pm->e, pm->n, sizeof(*pm->e), entry_cmp);
}

int mt_perfmap_lookup(struct mt_space *sp, uint64_t addr,
		      struct maptap_module_info *mod, struct maptap_sym *sym)
{
	struct mt_perfmap *pm = sp->perfmap;
	size_t lo = 0, hi, i, steps;

	if (!pm) {
		pm = sp->perfmap = perfmap_new(sp->pid);
		if (!pm)
			return -ENOMEM;
	}
	perfmap_refresh(pm);
	hi = pm->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->e[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Entries at one start are oldest first, so walking back meets the
	 * newest first; look a few back for a region containing ADDR. */
	for (i = lo, steps = 0; i-- > 0 && steps < 16; steps++) {
		const struct perf_entry *e = &pm->e[i];

		if (addr >= e->end)
			continue;
		*mod = pm->info;
		sym->name = e->name;
		sym->addr = e->start;
		sym->size = e->end - e->start;
		sym->offset = addr - e->start;
		return 0;
	}
	return -ENOENT;
}
