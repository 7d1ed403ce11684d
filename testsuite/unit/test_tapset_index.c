/* test_tapset_index.c -- the lexical pre-scan of tapset files
 * (translator/tapset_index.c): what it indexes, what it must skip, and
 * when it gives up and marks a file eager.  A miss here would make pass 2
 * fail to find a tapset definition, so each rule has a case.
 */
#include <config.h>

#include <string.h>

#include "session.h"
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
		{ "@define M %( 1 %)\nfunction f() { return @M }\n",
		  "@define" },
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
	return tap_done();
}
