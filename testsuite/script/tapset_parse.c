/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tapset_parse.c -- every real-world tapset file parses at -p1.
 *
 * Walks a SystemTap tapset tree (STAP_TAPSET_DIR, else Debian's
 * systemtap-common at /usr/share/systemtap/tapset) and runs each *.stp
 * file through translator_run() at pass 1, as `maptap -p1 -I DIR FILE`
 * does, one TAP case per file, so a failure names the file (the parse
 * error itself is on stderr, in the test's log).  Files under linux/ get
 * linux/ as a tapset directory too, for the macro libraries (.stpm) they
 * use, as stap --runtime=kernel would search it.  Without the tree the
 * test is skipped with the reason.
 *
 * One process for all ~600 files: the libtool wrapper around the maptap
 * program costs more than the parse, and the machine is shared.
 */
#include <config.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver.h"
#include "tap.h"

#define DEFAULT_TAPSET_DIR "/usr/share/systemtap/tapset"

struct file_list {	/* malloc'd paths */
	char **v;
	size_t n, cap;
};

static int push(struct file_list *l, const char *dir, const char *name)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	if (asprintf(&l->v[l->n], "%s/%s", dir, name) < 0)
		return -1;
	l->n++;
	return 0;
}

/* Every *.stp file under DIR, into L; -1 when DIR cannot be read. */
static int collect(struct file_list *l, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;

	if (!d)
		return -1;
	while (rc == 0 && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char *sub;

		if (de->d_name[0] == '.')
			continue;
		if (de->d_type == DT_DIR) {
			if (asprintf(&sub, "%s/%s", dir, de->d_name) < 0)
				rc = -1;
			else
				rc = collect(l, sub);
			free(sub);
		} else if (len > 4 && !strcmp(de->d_name + len - 4, ".stp")) {
			rc = push(l, dir, de->d_name);
		}
	}
	closedir(d);
	return rc;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Parse PATH (under the tree TOP) at pass 1; 0 when it parses. */
static int parse_one(const char *top, const char *path)
{
	const char *rel = path + strlen(top) + 1;
	char linux_dir[4096];
	const char *dirs[2];
	struct tr_options o;

	memset(&o, 0, sizeof(o));
	o.script_file = path;
	o.last_pass = 1;
	o.output_file = "/dev/null";
	o.include_dirs = dirs;
	if (!strncmp(rel, "linux/", 6)) {
		snprintf(linux_dir, sizeof(linux_dir), "%s/linux", top);
		dirs[o.n_include_dirs++] = linux_dir;
	}
	dirs[o.n_include_dirs++] = top;
	return translator_run(&o);
}

int main(void)
{
	const char *top = getenv("STAP_TAPSET_DIR");
	struct file_list files = { 0 };
	struct stat st;
	size_t i, failed = 0;

	if (!top || !*top)
		top = DEFAULT_TAPSET_DIR;
	if (stat(top, &st) < 0 || !S_ISDIR(st.st_mode)) {
		tap_skip("no SystemTap tapsets at %s (Debian: apt-get install "
			 "systemtap-common, or set STAP_TAPSET_DIR)", top);
		return tap_done();
	}
	if (collect(&files, top) < 0 || files.n == 0) {
		tap_ok(false, "found the *.stp files under %s", top);
		return tap_done();
	}
	qsort(files.v, files.n, sizeof(*files.v), cmp_path);
	for (i = 0; i < files.n; i++) {
		const char *rel = files.v[i] + strlen(top) + 1;
		bool ok = parse_one(top, files.v[i]) == 0;

		tap_ok(ok, "-p1 parses %s", rel);
		if (!ok)
			failed++;
		free(files.v[i]);
	}
	tap_diag("%zu of %zu tapset files under %s parse at -p1",
		 files.n - failed, files.n, top);
	free(files.v);
	return tap_done();
}
