/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tapset_load.c -- pass 2's tapset files: the tapset directories (-I,
 * then tr_tapset_dir(): $MAPTAP_TAPSET, the build tree's, the installed
 * ones), the files each provides as stap finds them
 * (RUNTIME/ARCH subdirectories first), the .stpm macro libraries, and
 * the .stp files, indexed up front (tapset_index.c) and parsed when the
 * script first needs a name one defines.  Split from elaborate.c (as
 * stap keeps tapset lookup apart from elaborate.cxx's resolution); the
 * code is as it was there.
 */
#include <config.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "elab_int.h"
#include "options.h"
#include "tapset_index.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char *tr_tapset_dir(const struct tr_options *o)
{
	const char *env = getenv("MAPTAP_TAPSET");

	if (env && *env)
		return env;
	if (o && o->uninstalled_tapsets)
		return o->uninstalled_tapsets;
	return MAPTAP_TAPSETDIR;
}

/* The tapset directories: -I first, then tr_tapset_dir(). */
static void tapset_dirs(struct tr_session *s)
{
	const struct tr_options *o = s->opts;
	int i;

	if (s->tapset_dirs.n || s->no_tapsets)
		return;
	for (i = 0; o && i < o->n_include_dirs; i++)
		vec_push(&s->arena, &s->tapset_dirs,
			 (void *)o->include_dirs[i]);
	vec_push(&s->arena, &s->tapset_dirs, (void *)tr_tapset_dir(o));
}

/* Paths of DIR's files ending in SUFFIX, sorted so runs are repeatable. */
static int list_dir(struct tr_session *s, const char *dir, const char *suffix,
		    char ***out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	int n = 0;
	size_t sl = strlen(suffix);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l <= sl || strcmp(de->d_name + l - sl, suffix))
			continue;
		v = realloc(v, sizeof(*v) * (size_t)(n + 1));
		if (!v)
			break;
		v[n++] = arena_printf(&s->arena, "%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (v)
		qsort(v, (size_t)n, sizeof(*v), cmp_str);
	*out = v;
	return v ? n : 0;
}

/* The files ending in SUFFIX that a tapset directory DIR provides, as
 * stap finds them: DIR/RUNTIME/ARCH, DIR/RUNTIME, DIR/ARCH, then DIR, the
 * more specific one winning when two have a file of the same name (so
 * dyninst/syscalls.stpm, not the top's, is the one read). */
static int list_tapset_dir(struct tr_session *s, const char *dir,
			   const char *suffix, char ***out)
{
	const char *sub[] = { TR_RUNTIME_NAME "/" TR_ARCH_NAME,
			      TR_RUNTIME_NAME, TR_ARCH_NAME, "" };
	char **all = NULL;
	int n = 0;
	size_t i;

	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		const char *d = *sub[i] ? arena_printf(&s->arena, "%s/%s",
						       dir, sub[i]) : dir;
		char **paths = NULL;
		int k, j, m = list_dir(s, d, suffix, &paths);

		for (k = 0; k < m; k++) {
			const char *base = strrchr(paths[k], '/') + 1;
			char **nall;

			for (j = 0; j < n; j++)
				if (!strcmp(strrchr(all[j], '/') + 1, base))
					break;
			if (j < n)
				continue;
			nall = realloc(all, sizeof(*all) * (size_t)(n + 1));
			if (!nall)
				break;
			all = nall;
			all[n++] = paths[k];
		}
		free(paths);
	}
	*out = all;
	return n;
}

/* Call FN(S, FILE, ARG) for every readable tapset file ending in SUFFIX,
 * directory by directory in search order. */
static void for_each_tapset_file(struct tr_session *s, const char *suffix,
				 void (*fn)(struct tr_session *s,
					    struct src_file *f, void *arg),
				 void *arg)
{
	int i, k;

	tapset_dirs(s);
	for (i = 0; i < s->tapset_dirs.n; i++) {
		char **paths = NULL;
		int n = list_tapset_dir(s, s->tapset_dirs.v[i], suffix,
					&paths);

		for (k = 0; k < n; k++) {
			struct src_file *f = tr_read_file(s, paths[k], true);

			if (f)
				fn(s, f, arg);
		}
		free(paths);
	}
}

static void load_macro_file(struct tr_session *s, struct src_file *f,
			    void *arg)
{
	struct tok_vec toks = { 0 };

	(void)arg;
	tr_lex(s, f, &toks);
	tr_load_macros(s, &toks);
}

void tr_load_macro_libs(struct tr_session *s)
{
	for_each_tapset_file(s, ".stpm", load_macro_file, NULL);
}

/* Tapset files are indexed up front (tapset_index.c) and parsed when
 * the script first needs a name one defines.  e->files keeps stap's
 * order, the script then every tapset file, with NULL for a file not
 * parsed yet, so lookups pick the same definition as if all were. */
static void index_tapset_file(struct tr_session *s, struct src_file *f,
			      void *arg)
{
	struct elab *e = arg;

	tr_tapset_index_add(s, s->tapset_index, f);
	vec_push(&s->arena, &e->files, NULL);
}

void tr_parse_tapset(struct elab *e, int file)
{
	struct tr_session *s = e->s;
	struct tr_file *tf;

	int macros = s->macros.n;

	if (e->files.v[file + 1])
		return;
	tf = tr_parse_file(s, s->tapset_index->files.v[file]);
	/* A tapset's own @define's are its own (stap's langref: only .stpm
	 * macros are shared), so the order files are parsed in cannot
	 * change what another file's macro calls mean. */
	s->macros.n = macros;
	e->files.v[file + 1] = tf;
	vec_push(&s->arena, &s->tapsets, tf);
}

void tr_load_tapsets(struct elab *e)
{
	struct tr_tapset_index *ix;
	int i;

	ix = arena_alloc(&e->s->arena, sizeof(*ix));
	e->s->tapset_index = ix;
	for_each_tapset_file(e->s, ".stp", index_tapset_file, e);
	for (i = 0; i < ix->files.n; i++)
		if (tr_tapset_index_eager(ix, i))
			tr_parse_tapset(e, i);
}

/* Parse every tapset file that defines a KIND named NAME. */
void tr_need_name(struct elab *e, enum tr_def_kind kind,
		  const char *name)
{
	const struct tr_tapset_def *d;
	size_t pos = 0;

	while ((d = tr_tapset_index_find(e->s->tapset_index, kind, name,
					 &pos)))
		tr_parse_tapset(e, d->file);
}
