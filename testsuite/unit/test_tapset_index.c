/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_tapset_index.c -- the lexical pre-scan of tapset files
 * (translator/front/tapset_index.c): what it indexes, what it must skip, and
 * when it gives up and marks a file eager.  A miss here would make pass 2
 * fail to find a tapset definition, so each rule has a case.  Then, on
 * SystemTap's own tapsets when installed (STAP_TAPSET_DIR, else
 * /usr/share/systemtap/tapset), every alias, function and global the
 * parser finds in a file must be in the file's index entries, unless
 * the scan marked the file eager.
 */
#include <config.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "unit.h"
#include "tapset_index.h"
#include "tap.h"

static struct src_file *src(struct tr_session *s, const char *text)
{
	struct src_file *f = arena_alloc(&s->arena, sizeof(*f));

	f->name = "<test>";
	f->text = arena_strdup(&s->arena, text);
	f->len = strlen(text);
	f->is_tapset = true;
	return f;
}

/* How many files define KIND NAME; the last one's number in *FILE. */
static int count(const struct tr_tapset_index *ix, enum tr_def_kind kind,
		 const char *name, int *file)
{
	const struct tr_tapset_def *d;
	size_t pos = 0;
	int n = 0;

	while ((d = tr_tapset_index_find(ix, kind, name, &pos))) {
		n++;
		if (file)
			*file = d->file;
	}
	return n;
}

static void test_definitions(struct tr_session *s,
			     struct tr_tapset_index *ix)
{
	int f = tr_tapset_index_add(s, ix, src(s,
		"function f1(x) { return x + 1 }\n"
		"private function f2:long() { return 2 }\n"
		"global g1, g2[10], g3 = 5\n"
		"private g4\n"
		"private global g5;\n"
		"probe a.b = x.y { }\n"
		"probe c.d, e += y { z = 1 }\n"
		"probe begin { g1 = 1 }\n"
		"probe p.x(\"s, t\").y = kernel.function(\"z\") { }, { }\n"));
	static const char *const fns[] = { "f1", "f2" };
	static const char *const gls[] = { "g1", "g2", "g3", "g4", "g5" };
	static const char *const als[] = { "a.b", "c.d", "e", "p.x.y" };
	size_t i;

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		tap_int_eq(count(ix, TR_DEF_FUNCTION, fns[i], NULL), 1, fns[i]);
	for (i = 0; i < sizeof(gls) / sizeof(gls[0]); i++)
		tap_int_eq(count(ix, TR_DEF_GLOBAL, gls[i], NULL), 1, gls[i]);
	for (i = 0; i < sizeof(als) / sizeof(als[0]); i++)
		tap_int_eq(count(ix, TR_DEF_ALIAS, als[i], NULL), 1, als[i]);
	tap_int_eq(ix->aliases.n, 4, "four alias heads, begin is none");
	tap_int_eq(count(ix, TR_DEF_ALIAS, "begin", NULL), 0,
		   "an ordinary probe is no alias");
	tap_int_eq(count(ix, TR_DEF_FUNCTION, "z", NULL), 0,
		   "kernel.function(\"z\") defines nothing");
	tap_ok(!tr_tapset_index_eager(ix, f), "plain file is not eager");
}

static void test_noise(struct tr_session *s, struct tr_tapset_index *ix)
{
	int f = tr_tapset_index_add(s, ix, src(s,
		"# function n1() {}\n"
		"// global n2\n"
		"/* probe n3 = x {} */\n"
		"function real() { s = \"function n4() }{\" }\n"
		"%{ function n5() { %}\n"
		"global after\n"));
	static const char *const no[] = { "n1", "n3", "n4", "n5" };
	size_t i;

	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		tap_int_eq(count(ix, TR_DEF_FUNCTION, no[i], NULL) +
			   count(ix, TR_DEF_ALIAS, no[i], NULL), 0, no[i]);
	tap_int_eq(count(ix, TR_DEF_GLOBAL, "n2", NULL), 0, "n2");
	/* Braces in strings, comments and %{ %} must not shift the depth. */
	tap_int_eq(count(ix, TR_DEF_GLOBAL, "after", NULL), 1, "after");
	tap_int_eq(count(ix, TR_DEF_FUNCTION, "real", NULL), 1, "real");
	tap_ok(!tr_tapset_index_eager(ix, f), "comments are not eager");
}

/* A conditional may hide a definition: both arms are indexed. */
static void test_conditional(struct tr_session *s,
			     struct tr_tapset_index *ix)
{
	int f = tr_tapset_index_add(s, ix, src(s,
		"%( arch == \"x86_64\" %? function c1() { } "
		"%: function c2() { } %)\n"
		"global %( kernel_v >= \"2.6\" %? c3 %: c4 %)\n"
		"%( runtime == \"dyninst\" %? probe c.five = x { } %)\n"));
	int where = -1;

	tap_int_eq(count(ix, TR_DEF_FUNCTION, "c1", NULL), 1, "then arm");
	tap_int_eq(count(ix, TR_DEF_FUNCTION, "c2", &where), 1, "else arm");
	tap_int_eq(where, f, "in the third file");
	tap_int_eq(count(ix, TR_DEF_GLOBAL, "c3", NULL) +
		   count(ix, TR_DEF_GLOBAL, "c4", NULL), 2, "global arms");
	tap_int_eq(count(ix, TR_DEF_ALIAS, "c.five", NULL), 1,
		   "alias under a conditional");
}

static void test_eager(struct tr_session *s, struct tr_tapset_index *ix)
{
	static const struct { const char *text, *why; } cases[] = {
		{ "@mkfunc(h)\n", "a macro call at the top level" },
		{ "probe w.* = x { }\n", "a wildcard alias head" },
		{ "probe w.{a,b} = x { }\n", "an alternative in a head" },
		{ "function %( 1 %? f %: g %) () { }\n", "odd function" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tap_ok(tr_tapset_index_eager(ix, tr_tapset_index_add(s, ix,
			src(s, cases[i].text))), "eager: %s", cases[i].why);
	tap_ok(!tr_tapset_index_eager(ix, tr_tapset_index_add(s, ix,
		src(s, "probe w.* { }\nprobe v { @entry(1) }\n"))),
	       "wildcard probe and a macro in a body are not eager");
	tap_ok(!tr_tapset_index_eager(ix, tr_tapset_index_add(s, ix,
		src(s, "@define M(a) %( %( 1 %? @w(@a) %) } %)\n"
		       "@define N %( function nf() %)\n"
		       "function after_define() { return @M(1) }\n"))),
	       "@define bodies are skipped, not eager");
	tap_int_eq(count(ix, TR_DEF_FUNCTION, "after_define", NULL), 1,
		   "a definition after @define's is found");
	tap_int_eq(count(ix, TR_DEF_FUNCTION, "nf", NULL), 0,
		   "a definition inside a macro body is not");
}

/* Same name in two files: both are found, so the search order decides. */
static void test_duplicates(struct tr_session *s,
			    struct tr_tapset_index *ix)
{
	tr_tapset_index_add(s, ix, src(s, "function f1() { }\n"));
	tap_int_eq(count(ix, TR_DEF_FUNCTION, "f1", NULL), 2,
		   "f1 in two files");
	tap_int_eq(count(ix, TR_DEF_GLOBAL, "f1", NULL), 0,
		   "kinds are kept apart");
}

/* Enough names to make the table grow several times. */
static void test_many(struct tr_session *s, struct tr_tapset_index *ix)
{
	char *text = "";
	int i, found = 0;

	for (i = 0; i < 2000; i++)
		text = arena_printf(&s->arena, "%sprobe m.n%d = x { }\n",
				    text, i);
	tr_tapset_index_add(s, ix, src(s, text));
	for (i = 0; i < 2000; i++)
		found += count(ix, TR_DEF_ALIAS, arena_printf(&s->arena,
			       "m.n%d", i), NULL);
	tap_int_eq(found, 2000, "2000 heads all found");
}

static bool indexed(const struct tr_tapset_index *ix, enum tr_def_kind kind,
		    const char *name, int file)
{
	const struct tr_tapset_def *d;
	size_t pos = 0;

	while ((d = tr_tapset_index_find(ix, kind, name, &pos)))
		if (d->file == file)
			return true;
	return false;
}

static const char *head_name(struct tr_session *s,
			     const struct tr_probe_point *pp)
{
	const char *name = "";
	int i;

	for (i = 0; i < pp->comps.n; i++) {
		const struct tr_component *c = pp->comps.v[i];

		name = i ? arena_printf(&s->arena, "%s.%s", name, c->name) :
		       c->name;
	}
	return name;
}

/* The names the parser found in TF that the index lacks, diagnosed. */
static int misses(struct tr_session *s, const struct tr_tapset_index *ix,
		  const struct tr_file *tf, int file)
{
	int i, k, n = 0;

	for (i = 0; i < tf->functions.n; i++) {
		const struct tr_func *f = tf->functions.v[i];

		if (!indexed(ix, TR_DEF_FUNCTION, f->name, file) && ++n)
			tap_diag("%s: function %s", tf->src->name, f->name);
	}
	for (i = 0; i < tf->globals.n; i++) {
		const struct tr_sym *g = tf->globals.v[i];

		if (!indexed(ix, TR_DEF_GLOBAL, g->name, file) && ++n)
			tap_diag("%s: global %s", tf->src->name, g->name);
	}
	for (i = 0; i < tf->aliases.n; i++) {
		const struct tr_probe *a = tf->aliases.v[i];

		for (k = 0; k < a->alias_names.n; k++) {
			const char *h = head_name(s, a->alias_names.v[k]);

			if (!indexed(ix, TR_DEF_ALIAS, h, file) && ++n)
				tap_diag("%s: alias %s", tf->src->name, h);
		}
	}
	return n;
}

struct tree_stats {
	int files, parsed, eager, missed;
};

static void check_file(struct tr_session *s, struct tr_tapset_index *ix,
		       const char *path, struct tree_stats *st)
{
	struct src_file *f = tr_read_file(s, path, true);
	struct tr_file *tf;
	int file, errors = s->parse_errors;

	if (!f)
		return;
	st->files++;
	file = tr_tapset_index_add(s, ix, f);
	if (tr_tapset_index_eager(ix, file)) {
		st->eager++;
		return;
	}
	tf = tr_parse_file(s, f);
	if (!tf || s->parse_errors != errors)
		return;	/* a macro of another tree: nothing to compare */
	st->parsed++;
	st->missed += misses(s, ix, tf, file);
}

static void walk(struct tr_session *s, struct tr_tapset_index *ix,
		 const char *dir, struct tree_stats *st)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *path = arena_printf(&s->arena, "%s/%s", dir,
						de->d_name);
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		if (de->d_type == DT_DIR)
			walk(s, ix, path, st);
		else if (len > 4 && !strcmp(de->d_name + len - 4, ".stp"))
			check_file(s, ix, path, st);
	}
	closedir(d);
}

static void test_real_tapsets(void)
{
	const char *dir = getenv("STAP_TAPSET_DIR");
	struct tr_session s;
	struct tr_tapset_index ix = { 0 };
	struct tree_stats st = { 0 };
	FILE *null = fopen("/dev/null", "w");

	if (!dir)
		dir = "/usr/share/systemtap/tapset";
	tr_session_init(&s, NULL);
	if (null)
		s.err = null;
	walk(&s, &ix, dir, &st);
	if (st.parsed == 0) {
		tap_skip("no parsable SystemTap tapsets in %s", dir);
	} else {
		tap_diag("%s: %d files, %d eager, %d parsed and compared",
			 dir, st.files, st.eager, st.parsed);
		tap_int_eq(st.missed, 0, "the parser finds no name the index "
			   "lacks in SystemTap's tapsets");
	}
	tr_session_fini(&s);
	if (null)
		fclose(null);
}

int main(void)
{
	struct tr_session s;
	struct tr_tapset_index ix = { 0 };

	tr_session_init(&s, NULL);
	test_definitions(&s, &ix);
	test_noise(&s, &ix);
	test_conditional(&s, &ix);
	test_eager(&s, &ix);
	test_duplicates(&s, &ix);
	test_many(&s, &ix);
	tr_session_fini(&s);
	test_real_tapsets();
	return tap_done();
}
